import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { Provider } from 'oidc-provider';
import type { IdentityDatabase } from '../identity/schema.js';
import { SCOPES } from '../identity/scopes.js';
import { recordAuthEvent } from './audit.js';
import { signInWithPassword } from './password-sign-in.js';
import { redirectTarget } from './redirect-uris.js';
import { consentPage, errorPage, loginPage, pageHeaders } from './pages.js';
import { registerSso, type SsoOptions } from './sso.js';

export interface InteractionOptions {
  provider: Provider;
  db: Kysely<IdentityDatabase>;
  /** The MCP resource tokens are issued for. */
  resource: string;
  /** Signs the pages' CSRF tokens. */
  csrfKey: Uint8Array;
  /** Failed sign-ins allowed per email (and ten times that per address) within `failureWindowMs`. */
  maxFailures?: number;
  failureWindowMs?: number;
  /** An upstream OpenID Connect provider offered beside the password form. */
  sso?: SsoOptions;
}

type Form = Record<string, string | undefined>;
type Details = Awaited<ReturnType<Provider['interactionDetails']>>;

/**
 * The sign-in and consent pages of the embedded authorization server. Each form carries a CSRF
 * token bound to its interaction (whose cookie is SameSite=Lax and path-scoped), and a POST from
 * a foreign Origin is refused. A user picks the org at consent; the grant and every token issued
 * under it are bound to that user and org.
 */
export function registerInteractions(app: FastifyInstance, options: InteractionOptions) {
  const { provider, db, resource } = options;
  const maxFailures = options.maxFailures ?? 5;
  const windowMs = options.failureWindowMs ?? 15 * 60_000;
  const csrfFor = (uid: string) =>
    createHmac('sha256', options.csrfKey).update(`interaction:${uid}`).digest('base64url');
  const csrfValid = (uid: string, given: string | undefined) => {
    const expected = Buffer.from(csrfFor(uid));
    const actual = Buffer.from(given ?? '');
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  };
  const html = (reply: FastifyReply, status: number, body: string, redirectUri?: string) =>
    reply.code(status).headers(pageHeaders(redirectUri)).send(body);

  async function detailsOf(request: FastifyRequest, reply: FastifyReply): Promise<Details | undefined> {
    try {
      const details = await provider.interactionDetails(request.raw, reply.raw);
      if (details.uid !== (request.params as { uid: string }).uid) throw new Error('interaction mismatch');
      return details;
    } catch {
      html(
        reply,
        400,
        errorPage('Sign-in expired', 'This sign-in is no longer valid. Go back to your app and connect again.'),
      );
      return undefined;
    }
  }

  async function clientName(clientId: string) {
    const client = await provider.Client.find(clientId);
    return client?.clientName ?? clientId;
  }

  async function orgsOf(userId: string) {
    return db.transaction().execute(async (trx) => {
      await sql`select set_config('app.user_id', ${userId}, true)`.execute(trx);
      return trx
        .selectFrom('identity.memberships as m')
        .innerJoin('identity.organizations as o', 'o.id', 'm.org_id')
        .select(['o.id', 'o.slug', 'o.name', 'm.role'])
        .where('m.user_id', '=', userId)
        .orderBy('o.slug')
        .execute();
    });
  }

  /** The Quarry scopes the client asked for, as this member may hold them (admin only for org admins). */
  function scopesFor(details: Details, role: string): string[] {
    const asked = String(details.params.scope ?? '')
      .split(' ')
      .filter((s) => (SCOPES as readonly string[]).includes(s));
    const wanted = asked.length > 0 ? asked : ['quarry:read', 'quarry:write'];
    return wanted.filter((s) => s !== 'quarry:admin' || role === 'owner' || role === 'admin');
  }

  const foreignOrigin = (request: FastifyRequest) => {
    const origin = request.headers.origin;
    return origin !== undefined && origin !== 'null' && origin !== new URL(provider.issuer).origin;
  };

  async function renderConsent(reply: FastifyReply, details: Details, error?: string) {
    const userId = details.session!.accountId;
    const orgs = await orgsOf(userId);
    const user = await db.selectFrom('identity.users').select('email').where('id', '=', userId).executeTakeFirst();
    if (orgs.length === 0)
      return html(reply, 403, errorPage('No organization', 'Your account belongs to no Quarry organization yet.'));
    const role = orgs.some((o) => o.role !== 'member') ? 'admin' : 'member';
    return html(
      reply,
      error ? 400 : 200,
      consentPage({
        action: `/oauth/interaction/${details.uid}/consent`,
        csrf: csrfFor(details.uid),
        clientName: await clientName(String(details.params.client_id)),
        redirectHost: redirectTarget(String(details.params.redirect_uri)),
        scopes: scopesFor(details, role),
        orgs,
        email: user?.email ?? '',
        error,
      }),
      String(details.params.redirect_uri),
    );
  }

  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    if (options.sso) registerSso(scope, { provider, db, csrfKey: options.csrfKey, sso: options.sso, html });

    scope.get('/oauth/interaction/:uid', async (request, reply) => {
      const details = await detailsOf(request, reply);
      if (!details) return reply;
      if (details.prompt.name === 'login') {
        return html(
          reply,
          200,
          loginPage({
            action: `/oauth/interaction/${details.uid}/login`,
            csrf: csrfFor(details.uid),
            clientName: await clientName(String(details.params.client_id)),
            sso: options.sso && { name: options.sso.name, href: `/oauth/interaction/${details.uid}/sso` },
          }),
          String(details.params.redirect_uri),
        );
      }
      return renderConsent(reply, details);
    });

    scope.post('/oauth/interaction/:uid/login', async (request, reply) => {
      const details = await detailsOf(request, reply);
      if (!details) return reply;
      const form = (request.body ?? {}) as Form;
      if (!csrfValid(details.uid, form.csrf) || foreignOrigin(request))
        return html(reply, 403, errorPage('Request refused', 'The form did not come from this page; reload it.'));
      const email = (form.email ?? '').trim().toLowerCase();
      const name = await clientName(String(details.params.client_id));
      const page = (status: number, error: string) =>
        html(
          reply,
          status,
          loginPage({
            action: request.url,
            csrf: form.csrf!,
            clientName: name,
            email,
            error,
            sso: options.sso && { name: options.sso.name, href: `/oauth/interaction/${details.uid}/sso` },
          }),
          String(details.params.redirect_uri),
        );
      const clientId = String(details.params.client_id);
      const signIn = await signInWithPassword(
        db,
        { email, password: form.password ?? '', ip: request.ip },
        { windowMs, maxFailures },
        { clientId },
      );
      if (signIn.outcome === 'throttled')
        return page(429, 'Too many failed sign-ins. Wait a few minutes, then try again.');
      if (signIn.outcome === 'refused') return page(401, 'The email or password is not correct.');
      const to = await provider.interactionResult(
        request.raw,
        reply.raw,
        { login: { accountId: signIn.userId } },
        { mergeWithLastSubmission: false },
      );
      return reply.redirect(to, 303);
    });

    scope.post('/oauth/interaction/:uid/consent', async (request, reply) => {
      const details = await detailsOf(request, reply);
      if (!details) return reply;
      const form = (request.body ?? {}) as Form;
      if (!csrfValid(details.uid, form.csrf) || foreignOrigin(request) || details.prompt.name !== 'consent')
        return html(reply, 403, errorPage('Request refused', 'The form did not come from this page; reload it.'));
      const userId = details.session!.accountId;
      const clientId = String(details.params.client_id);
      if (form.decision !== 'allow') {
        await recordAuthEvent(db, { event: 'consent_denied', userId, clientId, ip: request.ip });
        const to = await provider.interactionResult(request.raw, reply.raw, {
          error: 'access_denied',
          error_description: 'The user denied access.',
        });
        return reply.redirect(to, 303);
      }
      const org = (await orgsOf(userId)).find((o) => o.id === form.org);
      if (!org) return renderConsent(reply, details, 'Choose one of your organizations.');
      const scopes = scopesFor(details, org.role);
      const grant = new provider.Grant({ accountId: userId, clientId });
      // What was asked and may not be held (quarry:admin for a member) is rejected, not left
      // pending: the client gets a token with the rest, and a step-up would be refused again.
      const asked = String(details.params.scope ?? '')
        .split(' ')
        .filter(Boolean);
      const refused = asked.filter((s) => (SCOPES as readonly string[]).includes(s) && !scopes.includes(s));
      const accepted = asked.filter((s) => !refused.includes(s));
      if (accepted.length > 0) grant.addOIDCScope(accepted.join(' '));
      if (refused.length > 0) {
        grant.rejectOIDCScope(refused.join(' '));
        grant.rejectResourceScope(resource, refused.join(' '));
      }
      grant.addResourceScope(resource, scopes.join(' '));
      const grantId = await grant.save();
      const name = await clientName(clientId);
      await db.transaction().execute(async (trx) => {
        await sql`select set_config('app.org_id', ${org.id}, true)`.execute(trx);
        await trx
          .insertInto('identity.oauth_grants')
          .values({
            org_id: org.id,
            user_id: userId,
            grant_id: grantId,
            client_id: clientId,
            client_name: name,
            scopes,
          })
          .execute();
      });
      await recordAuthEvent(db, {
        event: 'consent',
        userId,
        orgSlug: org.slug,
        clientId,
        ip: request.ip,
        detail: { scopes, grantId },
      });
      const to = await provider.interactionResult(
        request.raw,
        reply.raw,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
      return reply.redirect(to, 303);
    });
  });
}
