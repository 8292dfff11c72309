import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type LevelWithSilent, type Logger } from 'pino';
import { REDACTED, scrubSecrets } from './scrub.js';

export type { Logger };

export interface LoggerOptions {
  /** Service name, written on every line as `service`. */
  service: string;
  level?: LevelWithSilent;
  /** Where lines go; stdout by default. Tests pass a stream to capture output. */
  destination?: DestinationStream;
}

// Fields that carry credentials by name even when the value has no recognisable shape
// (a plain password, a signed identity header). Values at these paths are replaced before
// serialization; everything else is caught by pattern at the end (see `streamWrite`).
const REDACT_PATHS = [
  'authorization',
  'token',
  'password',
  'x-quarry-identity',
  '*.authorization',
  '*.token',
  '*.password',
  '*["x-quarry-identity"]',
  'headers.authorization',
  'headers["x-quarry-identity"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-quarry-identity"]',
  'metadata["x-quarry-identity"]',
];

/** Correlates a line with the trace it was written in, when a span is active. */
function traceFields(): Record<string, string> {
  const spanContext = trace.getSpanContext(context.active());
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/**
 * A JSON logger for one service. A Quarry token must never reach a log line, wherever it hides
 * (message, interpolated argument, nested field, error message or stack, child bindings), so
 * secrets are redacted by field name *and* every serialized line is scrubbed by pattern just
 * before it is written: the last step before bytes leave the process is the only place that
 * can make this a guarantee rather than a convention.
 */
export function createLogger({ service, level = 'info', destination }: LoggerOptions): Logger {
  const options = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    // `error` too, because `log.error({ error })` is a common slip and would otherwise print `{}`.
    serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    mixin: traceFields,
    hooks: { streamWrite: scrubSecrets },
  };
  return destination ? pino(options, destination) : pino(options);
}
