/**
 * Which redirect URIs a client may register, and what kind of client registers them (RFC 8252):
 * pure rules, applied to Dynamic Client Registration and Client ID Metadata Documents alike.
 */

export type ApplicationType = 'web' | 'native';

/** The loopback hosts of RFC 8252 §7.3, spelled as oidc-provider matches them (any port). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Schemes that run or read something in the browser instead of reaching an app. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'vbscript:', 'data:', 'blob:', 'file:', 'about:']);

const isWeb = (url: URL) => url.protocol === 'https:' || url.protocol === 'http:';
const isLoopback = (url: URL) => LOOPBACK_HOSTS.has(url.hostname);

/**
 * The application_type of a client that sent none: native when it names a private-use scheme
 * (`cursor://…`) or an http loopback redirect, which only apps on the user's device can receive;
 * web otherwise. A client that also lists an https loopback URI stays web (native clients may
 * not claim https on loopback), unless a private-use scheme makes it native anyway.
 */
export function inferApplicationType(redirectUris: readonly string[]): ApplicationType {
  const urls = redirectUris.map((uri) => URL.parse(uri)).filter((url): url is URL => url !== null);
  if (urls.some((url) => !isWeb(url))) return 'native';
  const httpLoopback = urls.some((url) => url.protocol === 'http:' && isLoopback(url));
  const httpsLoopback = urls.some((url) => url.protocol === 'https:' && isLoopback(url));
  return httpLoopback && !httpsLoopback ? 'native' : 'web';
}

/**
 * Why `uri` cannot be a redirect URI of a client of `type`, or undefined when it can. Each reason
 * names the URI and says what would be accepted; it starts with `redirect_uris` so that
 * oidc-provider answers it as `invalid_redirect_uri`.
 */
export function redirectUriProblem(uri: string, type: ApplicationType): string | undefined {
  const url = URL.parse(uri);
  const quoted = JSON.stringify(uri);
  if (!url) return `redirect_uris: ${quoted} is not an absolute URI`;
  if (uri.includes('#'))
    return `redirect_uris: ${quoted} has a fragment (#…); register it without one (RFC 6749 §3.1.2)`;
  if (FORBIDDEN_SCHEMES.has(url.protocol))
    return `redirect_uris: ${quoted} uses the ${url.protocol} scheme, which cannot receive an authorization response; use https, a loopback http address or your app's own scheme`;
  if (url.protocol === 'http:' && !isLoopback(url))
    return `redirect_uris: ${quoted} uses http to a host that is not this device; use https, or http://127.0.0.1, http://[::1] or http://localhost (any port) for an app on the user's device`;
  if (type === 'web' && !isWeb(url))
    return `redirect_uris: ${quoted} uses a private-use scheme, which only native clients may register; send application_type "native" or none`;
  if (type === 'native' && url.protocol === 'https:' && isLoopback(url))
    return `redirect_uris: ${quoted} is https on a loopback host, which a native client may not claim; use http://${url.host}${url.pathname} (RFC 8252 §7.3) or send application_type "web"`;
  return undefined;
}

/**
 * Where the consent page says the user is sent back to: the host of a web redirect, the address
 * on this device for loopback, the app's scheme and authority for a private-use one.
 */
export function redirectTarget(uri: string): string {
  const url = URL.parse(uri);
  if (!url) return uri;
  if (isWeb(url)) return url.host;
  return `${url.protocol}//${url.host}`;
}
