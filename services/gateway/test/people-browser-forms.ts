import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { PASSWORD } from './people-app.js';

/** A person's browser over inject(): its cookies, and forms posted with the token the page gave. */
export interface FormBrowser {
  cookies: Map<string, string>;
  get(path: string): Promise<LightMyRequestResponse>;
  /** Posts a form with `csrf` from `page` (or the last page got) and the browser's cookies. */
  post(
    path: string,
    form: Record<string, string>,
    options?: { page?: string; origin?: string },
  ): Promise<LightMyRequestResponse>;
  signIn(email: string, password?: string): Promise<LightMyRequestResponse>;
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

export function formBrowser(app: FastifyInstance): FormBrowser {
  const cookies = new Map<string, string>();
  let lastPage = '';
  const header = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (response: LightMyRequestResponse) => {
    for (const cookie of [response.headers['set-cookie'] ?? []].flat()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return response;
  };
  const browser: FormBrowser = {
    cookies,
    async get(path) {
      const response = keep(await app.inject({ method: 'GET', url: path, headers: { cookie: header() } }));
      lastPage = response.body;
      return response;
    },
    async post(path, form, options = {}) {
      const response = keep(
        await app.inject({
          method: 'POST',
          url: path,
          headers: {
            cookie: header(),
            'content-type': 'application/x-www-form-urlencoded',
            ...(options.origin ? { origin: options.origin } : {}),
          },
          payload: new URLSearchParams({ csrf: csrfOf(options.page ?? lastPage), ...form }).toString(),
        }),
      );
      lastPage = response.body;
      return response;
    },
    async signIn(email, password = PASSWORD) {
      await browser.get('/app/sign-in');
      const answer = await browser.post('/app/sign-in', { email, password, next: '/app/connect' });
      // Opens a page, as a browser following the redirect would: its forms carry the session's token.
      if (answer.statusCode === 303) await browser.get('/app/connect');
      return answer;
    },
  };
  return browser;
}
