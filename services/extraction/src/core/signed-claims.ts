import { timingSafeEqual } from 'node:crypto';

/**
 * Claims a caller carries and gives back, signed, not encrypted (the caller may read them):
 *
 *   <prefix>.<base64url(JSON claims)>.<base64url(MAC over "<prefix>.<claims>")>
 *
 * Each kind of handle has its own prefix and MAC (key and domain), so one is never taken for
 * another. Opening answers undefined for anything that is not ours and untampered — too long,
 * another prefix, a wrong MAC, not JSON — so a stranger learns nothing from the refusal.
 */
export function sealClaims(prefix: string, claims: object, mac: (body: string) => Buffer): string {
  const body = `${prefix}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${mac(body).toString('base64url')}`;
}

export function openClaims(
  prefix: string,
  handle: string,
  maxChars: number,
  mac: (body: string) => Buffer,
): Record<string, unknown> | undefined {
  if (handle.length > maxChars) return undefined;
  const parts = handle.trim().split('.');
  if (parts.length !== 3 || parts[0] !== prefix) return undefined;
  const body = `${parts[0]}.${parts[1]}`;
  const given = Buffer.from(parts[2]!, 'base64url');
  const wanted = mac(body);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
