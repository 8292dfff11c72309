import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { Provider } from 'oidc-provider';
import * as oidc from 'openid-client';
import type { IdentityDatabase } from '../identity/schema.js';
import { recordAuthEvent } from './audit.js';
import { errorPage } from './pages.js';

/** An upstream OpenID Connect provider users may sign in to the embedded authorization server through. */
export interface SsoOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** What the sign-in page's "Sign in with" link names. */
  name: string;
}

/** Where the upstream provider sends the browser back: one fixed redirect URI to register there. */
const SSO_CALLBACK_PATH = '/oauth/sso/callback';
const COOKIE = 'quarry_sso';

interface Pending {
  uid: string;
  state: string;
  nonce: string;
  verifier: string;
}

type Html = (reply: FastifyReply, status: number, body: string) => FastifyReply;

/**
 * Single sign-on through an upstream OpenID Connect provider, with openid-client: authorization
 * code with PKCE, state and nonce; the ID token is checked (issuer, audience, nonce, signature
 * from the provider's JWKS) by the library. The upstream account maps by verified email to an
 * existing Quarry user who is a member of an org; no account is created here.
 *
 * The pending sign-in (interaction, state, nonce, verifier) rides in a signed, HttpOnly cookie
 * scoped to the callback and cleared there, so a callback replayed or sent with another state is
 * refused. oidc-provider's own interaction cookie is scoped to the interaction's path, so the
 * callback finds the interaction by the id the signed cookie names and records the sign-in on it;
 * resuming still needs the browser's own resume cookie.
 */
export function registerSso(
  scope: FastifyInstance,
  options: {
    provider: Provider;
    db: Kysely<IdentityDatabase>;
    csrfKey: Uint8Array;
    sso: SsoOptions;
    html: Html;
  },
) {
  const { provider, db, sso, html } = options;
  const publicUrl = new URL(provider.issuer);
  const redirectUri = new URL(SSO_CALLBACK_PATH, publicUrl).toString();
  const secure = publicUrl.protocol === 'https:';
  const sign = (value: string) => createHmac('sha256', options.csrfKey).update(`sso:${value}`).digest('base64url');

  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = () => {
    discovered ??= oidc
      .discovery(new URL(sso.issuer), sso.clientId, sso.clientSecret, undefined, {
        // Plain http only for a provider on this machine (tests, a local Keycloak).
        execute: isLoopback(sso.issuer) ? [oidc.allowInsecureRequests] : [],
      })
      .catch((error: unknown) => {
        discovered = undefined;
        throw error;
      });
    return discovered;
  };

  const cookie = (value: string, maxAge: number) =>
    `${COOKIE}=${value}; Path=${SSO_CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${
      maxAge === 0 ? '; Expires=Thu, 01 Jan 1970 00:00:00 GMT' : ''
    }${secure ? '; Secure' : ''}`;

  function readPending(request: FastifyRequest): Pending | undefined {
    const raw = (request.headers.cookie ?? '')
      .split(';')
      .map((c) => c.trim())
      .find((c) => c.startsWith(`${COOKIE}=`))
      ?.slice(COOKIE.length + 1);
    if (!raw) return undefined;
    const [body, mac] = raw.split('.');
    if (!body || !mac) return undefined;
    const expected = Buffer.from(sign(body));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Pending;
  }

  const refuse = (reply: FastifyReply, status: number, title: string, message: string) =>
    html(reply.header('set-cookie', cookie('', 0)), status, errorPage(title, message));

  scope.get('/oauth/interaction/:uid/sso', async (request, reply) => {
    let details;
    try {
      details = await provider.interactionDetails(request.raw, reply.raw);
    } catch {
      details = undefined;
    }
    if (!details || details.uid !== (request.params as { uid: string }).uid || details.prompt.name !== 'login')
      return html(reply, 400, errorPage('Sign-in expired', 'Go back to your app and connect again.'));
    let config: oidc.Configuration;
    try {
      config = await configuration();
    } catch {
      return html(reply, 502, errorPage('Sign-in unavailable', `${sso.name} cannot be reached; try again later.`));
    }
    const pending: Pending = {
      uid: details.uid,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier: oidc.randomPKCECodeVerifier(),
    };
    const body = Buffer.from(JSON.stringify(pending)).toString('base64url');
    const to = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return reply.header('set-cookie', cookie(`${body}.${sign(body)}`, 600)).redirect(to.toString(), 303);
  });

  scope.get(SSO_CALLBACK_PATH, async (request, reply) => {
    const pending = readPending(request);
    const interaction = pending ? await provider.Interaction.find(pending.uid) : undefined;
    if (!pending || !interaction)
      return refuse(
        reply,
        400,
        'Sign-in expired',
        'This sign-in is no longer valid. Go back to your app and connect again.',
      );
    const audit = (reason: string, email?: string) =>
      recordAuthEvent(db, {
        event: 'sso_refused',
        email: email ?? null,
        clientId: String(interaction.params.client_id),
        ip: request.ip,
        detail: { issuer: sso.issuer, reason },
      });
    let claims: Record<string, unknown>;
    try {
      const config = await configuration();
      const tokens = await oidc.authorizationCodeGrant(config, new URL(request.url, publicUrl), {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = { ...tokens.claims() };
      // Some providers put email in the ID token only when no access token is issued; ask userinfo.
      if (claims.email === undefined)
        claims = { ...claims, ...(await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
    } catch (error) {
      await audit(error instanceof Error ? error.message.slice(0, 200) : 'callback refused');
      return refuse(reply, 400, 'Sign-in refused', `${sso.name} did not confirm this sign-in. Connect again.`);
    }
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
    if (!email || claims.email_verified !== true) {
      await audit('email not verified', email || undefined);
      return refuse(reply, 403, 'Email not verified', `${sso.name} has not verified this account's email address.`);
    }
    const user = await db.selectFrom('identity.users').select('id').where('email', '=', email).executeTakeFirst();
    const member =
      user &&
      (await db.transaction().execute(async (trx) => {
        await sql`select set_config('app.user_id', ${user.id}, true)`.execute(trx);
        return trx
          .selectFrom('identity.memberships')
          .select('org_id')
          .where('user_id', '=', user.id)
          .executeTakeFirst();
      }));
    if (!user || !member) {
      await audit(user ? 'no organization' : 'unknown email', email);
      return refuse(
        reply,
        403,
        'No Quarry account',
        `${email} is not a member of any Quarry organization. Ask an administrator to invite you.`,
      );
    }
    await recordAuthEvent(db, {
      event: 'sign_in',
      email,
      userId: user.id,
      clientId: String(interaction.params.client_id),
      ip: request.ip,
      detail: { method: 'sso', issuer: sso.issuer },
    });
    interaction.result = { login: { accountId: user.id } };
    await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
    return reply.header('set-cookie', cookie('', 0)).redirect(interaction.returnTo, 303);
  });
}

function isLoopback(url: string) {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
