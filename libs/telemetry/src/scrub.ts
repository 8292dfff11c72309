/** What a secret is replaced with, wherever it is found. */
export const REDACTED = '[REDACTED]';

// Each pattern matches a secret by its shape, so it is caught whatever field, message, error
// or interpolated argument it travels in. All of them stay inside JSON string content (no
// quotes, no backslashes), so they can run on a serialized log line without breaking it.
const SECRET_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // Any bearer credential (RFC 6750 b64token), whatever the scheme's case. First, so that a
  // bearer token of any format (a Quarry token, a JWT) reads `Bearer [REDACTED]`.
  [/\b(Bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi, `$1 ${REDACTED}`],
  // A JWT (e.g. signed identity metadata between services): three base64url parts, header first.
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  // A Quarry personal access token: `qry_` + base62 (32 random bytes, ~43 chars).
  [/qry_[0-9A-Za-z]{20,}/g, `qry_${REDACTED}`],
  // The password of a connection URL: postgres://user:password@host, and the same userinfo in
  // any engine URL (http(s) for OpenSearch/Qdrant/embeddings, kafka, amqp, redis…).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s"\\]*):[^@\s"\\/]*@/gi, `$1:${REDACTED}@`],
];

/**
 * Replace every token, bearer credential, JWT and connection-string password in `text`.
 * Pure and cheap enough to run on every log line; exported so error messages and other text
 * leaving a process (e.g. a JSON-RPC error body) can be scrubbed the same way.
 */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
