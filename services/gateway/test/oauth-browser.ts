import { createHash, randomBytes } from 'node:crypto';

/**
 * A minimal browser for the authorization server's pages: follows redirects by hand (so a test
 * sees every hop), keeps cookies per host, and submits the sign-in and consent forms. Its
 * requests go over the network, or through `send` (a fetch answered by `app.inject()`).
 */
export function createBrowser(send: (url: string, init: RequestInit) => Promise<Response> = fetch) {
  // One jar per host, as a browser keeps them: an upstream identity provider's cookies stay apart.
  const jars = new Map<string, Map<string, string>>();

  async function request(url: string, init: { method?: string; form?: Record<string, string>; origin?: string } = {}) {
    const { host } = new URL(url);
    const jar = jars.get(host) ?? new Map<string, string>();
    jars.set(host, jar);
    const headers: Record<string, string> = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (init.origin) headers.origin = init.origin;
    const response = await send(url, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(cookie) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    const location = response.headers.get('location');
    return {
      status: response.status,
      location: location ? new URL(location, url).toString() : undefined,
      headers: response.headers,
      html: await response.text(),
    };
  }

  /** Follows redirects until a page is shown or the client's redirect URI is reached. */
  async function follow(url: string, stopAt: string) {
    let current = url;
    for (let hops = 0; hops < 15; hops++) {
      if (current.startsWith(stopAt)) return { url: current, page: undefined };
      const answer = await request(current);
      if (!answer.location) return { url: current, page: answer };
      current = answer.location;
    }
    throw new Error('too many redirects');
  }

  const field = (html: string, name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&');

  /** Signs in and consents, returning the URL the client's redirect URI receives. */
  async function authorize(
    authorizationUrl: string,
    opts: { email: string; password: string; redirectUri: string; org?: string; decision?: 'allow' | 'deny' },
  ): Promise<URL> {
    const login = await follow(authorizationUrl, opts.redirectUri);
    if (!login.page) return new URL(login.url);
    const signedIn = await request(`${login.url}/login`, {
      form: { csrf: field(login.page.html, 'csrf') ?? '', email: opts.email, password: opts.password },
    });
    if (!signedIn.location) throw new Error(`sign-in failed (${signedIn.status}): ${signedIn.html.slice(0, 400)}`);
    const consent = await follow(signedIn.location, opts.redirectUri);
    if (!consent.page) return new URL(consent.url);
    const org = opts.org ?? field(consent.page.html, 'org') ?? '';
    const decided = await request(`${consent.url}/consent`, {
      form: { csrf: field(consent.page.html, 'csrf') ?? '', org, decision: opts.decision ?? 'allow' },
    });
    if (!decided.location) throw new Error(`consent failed (${decided.status}): ${decided.html.slice(0, 400)}`);
    const done = await follow(decided.location, opts.redirectUri);
    return new URL(done.url);
  }

  return { request, follow, authorize, field };
}

/** An RFC 7636 S256 verifier and challenge. */
export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
