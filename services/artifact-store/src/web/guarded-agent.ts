import { lookup as systemLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { blockedAddress, literalAddress, type BlockRule, type TargetPolicy } from '../core/url-targets.js';

/**
 * An undici Agent whose connections can only reach addresses the target policy allows
 * (docs/adr/0057-import-url-ssrf-guard.md). The guard sits where the address is chosen, not
 * before it: a host name is resolved once, in the socket's own `lookup`, every address it resolved
 * to is checked, and the socket connects to exactly those (pinned: nothing resolves the name again
 * between the check and the connect, so a rebinding DNS server cannot swap in another address).
 * An IP literal is checked before connecting; and once connected, the socket's remote address is
 * checked again, whatever path led there.
 */

/** How host names are resolved (tests pass their own, e.g. a rebinding one). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

/** The connection went (or would have gone) to an address the policy refuses. */
export class BlockedTargetError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly blocked: BlockRule,
  ) {
    super(`${host} is ${address}, ${blocked.explanation}`);
    this.name = 'BlockedTargetError';
  }
}

/** A lookup that answers from `resolve` only when every address it gave is allowed. */
function pinnedLookup(resolve: Resolver, policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((found) => {
        for (const { address } of found) {
          const blocked = blockedAddress(address, hostname, policy);
          if (blocked) throw new BlockedTargetError(hostname, address, blocked);
        }
        const usable = found.filter((a) => !options.family || a.family === options.family);
        if (usable.length === 0) {
          const error = Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
          throw error;
        }
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}

export interface GuardedAgentOptions {
  policy: TargetPolicy;
  resolve: Resolver;
  /** Connect timeout (the caller's own deadline covers the whole fetch). */
  connectTimeoutMs: number;
}

export function guardedAgent({ policy, resolve, connectTimeoutMs }: GuardedAgentOptions): Agent {
  const connect = buildConnector({ lookup: pinnedLookup(resolve, policy), timeout: connectTimeoutMs });
  return new Agent({
    connect: (options, callback) => {
      const literal = literalAddress(options.hostname);
      const early = literal && blockedAddress(literal, options.hostname, policy);
      if (literal && early) {
        callback(new BlockedTargetError(options.hostname, literal, early), null);
        return;
      }
      connect(options, (error, socket) => {
        if (error) return callback(error, null);
        const remote = socket.remoteAddress;
        const late =
          remote === undefined || !isIP(remote)
            ? { rule: 'unknown', explanation: 'an address that could not be checked' }
            : blockedAddress(remote, options.hostname, policy);
        if (late) {
          socket.destroy();
          return callback(new BlockedTargetError(options.hostname, remote ?? '?', late), null);
        }
        callback(null, socket);
      });
    },
  });
}
