import { ConfigError } from './load.js';

/** `host:port` as a URL writes it (an IPv6 host in brackets). */
function endpoint(host: string, port: number): string {
  return `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

/** A port another process already holds: a ConfigError that also says which variable and port. */
export class PortInUseError extends ConfigError {
  constructor(
    readonly variable: string,
    readonly host: string,
    readonly port: number,
  ) {
    super([
      `${variable} ${port} is already in use on ${endpoint(host, port)} (another process listens there): set ${variable} to a free port`,
    ]);
    this.name = 'PortInUseError';
  }
}

/**
 * What failed binding means for the operator: a port in use or refused, or a HOST that is not
 * this machine's, is a configuration error naming the variable to change, not a stack trace.
 * `variable` names the port's variable (PORT, METRICS_PORT). Any other error is returned as is.
 * grpc-js reports a busy port only in its message, hence the message check beside `code`.
 */
export function explainBindError(variable: string, host: string, port: number, error: unknown): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const says = (errno: string) => code === errno || (typeof message === 'string' && message.includes(errno));
  const at = endpoint(host, port);
  if (says('EADDRINUSE')) return new PortInUseError(variable, host, port);
  if (says('EACCES'))
    return new ConfigError([
      `${variable} ${port} may not be bound on ${at} by this user (ports below 1024 need privileges): set ${variable} to a port above 1023`,
    ]);
  if (says('EADDRNOTAVAIL'))
    return new ConfigError([
      `HOST ${host} is not an address of this machine: set HOST to one of its interfaces (127.0.0.1, 0.0.0.0 for all)`,
    ]);
  return error;
}
