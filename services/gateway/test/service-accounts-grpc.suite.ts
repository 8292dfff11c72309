import { Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServiceAccountAdmin, type IdentityDatabase, type IssuedServiceAccount } from '@quarry/gateway';
import { generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import type { TestSystem } from './shared-system.js';
import {
  bearer,
  claimsOf,
  newPlan,
  randomPlanId,
  rawPlanClient,
  refusal,
  requestServiceToken,
  serviceToken,
} from './service-account-support.js';

// A service account calls the plan engine directly over gRPC with its own access token: its org
// is the tenant, its scopes decide which rpcs it may call, and every other credential is refused
// with an error that says why.

export function serviceAccountsSuite(system: () => TestSystem): void {
  describe('service accounts over gRPC', () => {
    let gateway: TestSystem;
    let db: Kysely<IdentityDatabase>;
    let plans: ReturnType<typeof rawPlanClient>;
    let writer: IssuedServiceAccount;
    let reader: IssuedServiceAccount;
    let outsider: IssuedServiceAccount;

    beforeAll(async () => {
      gateway = system();
      db = gateway.database.admin as Kysely<IdentityDatabase>;
      await gateway.admin.createOrg({ slug: 'globex', name: 'Globex' });
      const accounts = createServiceAccountAdmin(db);
      writer = await accounts.create({ orgSlug: 'acme', name: 'etl', scopes: 'quarry:read quarry:write' });
      reader = await accounts.create({ orgSlug: 'acme', name: 'dashboard', scopes: 'quarry:read' });
      outsider = await accounts.create({ orgSlug: 'globex', name: 'etl', scopes: 'quarry:read,quarry:write' });
      plans = rawPlanClient(gateway.services.planEngine.address);
    });
    afterAll(async () => {
      plans?.close();
    });

    describe('a service account with its token', () => {
      it('gets a short-lived token for the gRPC services, bound to its org', async () => {
        const token = await serviceToken(gateway.base, writer, 'quarry:read quarry:write');
        const claims = claimsOf(token);
        const acme = await gateway.admin.findOrg('acme');
        expect(claims).toMatchObject({
          iss: gateway.base,
          aud: 'urn:quarry:grpc',
          client_id: writer.clientId,
          quarry_org: acme!.id,
          quarry_service_account: 'etl',
          scope: 'quarry:read quarry:write',
        });
        expect((claims.exp as number) - (claims.iat as number)).toBe(300);
      });

      it('creates and reads its own plans; another org reads them as missing', async () => {
        const token = await serviceToken(gateway.base, writer, 'quarry:read quarry:write');
        const { planId } = await plans.createResearchPlan(newPlan('Direct plan'), bearer(token));
        const status = await plans.getPlanStatus({ planId }, bearer(token));
        expect(status.planId).toBe(planId);

        const foreign = await serviceToken(gateway.base, outsider, 'quarry:read');
        const other = await refusal(plans.getPlanStatus({ planId }, bearer(foreign)));
        const missing = await refusal(plans.getPlanStatus({ planId: randomPlanId() }, bearer(foreign)));
        expect(other).toMatchObject({ status: 'NOT_FOUND', code: 'PLAN_NOT_FOUND' });
        expect({ ...other, message: other.message?.replace(planId, '<id>') }).toEqual({
          ...missing,
          message: missing.message?.replace(/[0-9a-f-]{36}/, '<id>'),
        });
      });

      it('is refused a write rpc with a read-only scope, and every internal rpc', async () => {
        const token = await serviceToken(gateway.base, reader, 'quarry:read');
        expect(await refusal(plans.createResearchPlan(newPlan('Not allowed'), bearer(token)))).toEqual({
          status: 'PERMISSION_DENIED',
          code: 'SCOPE_INSUFFICIENT',
          message: expect.stringContaining('needs the scope quarry:write'),
        });
        const writing = await serviceToken(gateway.base, writer, 'quarry:read quarry:write');
        expect(await refusal(plans.resolvePlanReference({ planId: randomPlanId() }, bearer(writing)))).toEqual({
          status: 'PERMISSION_DENIED',
          code: 'RPC_INTERNAL',
          message: expect.stringContaining('ResolvePlanReference is internal'),
        });
      });
    });

    describe('refused tokens', () => {
      async function activeKey() {
        const row = await db
          .selectFrom('identity.oauth_signing_keys')
          .select('private_jwk')
          .where('retired_at', 'is', null)
          .executeTakeFirstOrThrow();
        const jwk = row.private_jwk as JWK;
        return { key: await importJWK(jwk, 'ES256'), kid: jwk.kid! };
      }
      async function forged(
        claims: Record<string, unknown>,
        signing?: { key: Awaited<ReturnType<typeof importJWK>>; kid: string },
      ) {
        const { key, kid } = signing ?? (await activeKey());
        return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).sign(key);
      }
      const valid = async () => claimsOf(await serviceToken(gateway.base, writer, 'quarry:read'));
      const statusWith = (token: string) => refusal(plans.getPlanStatus({ planId: randomPlanId() }, bearer(token)));

      it('refuses an expired token', async () => {
        const now = Math.floor(Date.now() / 1000);
        expect(await statusWith(await forged({ ...(await valid()), iat: now - 600, exp: now - 300 }))).toEqual({
          status: 'UNAUTHENTICATED',
          code: 'SERVICE_TOKEN_REFUSED',
          message: expect.stringContaining('it has expired'),
        });
      });

      it('refuses a token for another audience (an MCP access token)', async () => {
        expect(await statusWith(await forged({ ...(await valid()), aud: `${gateway.base}/mcp` }))).toEqual({
          status: 'UNAUTHENTICATED',
          code: 'SERVICE_TOKEN_REFUSED',
          message: expect.stringContaining('not issued for urn:quarry:grpc'),
        });
      });

      it('refuses a token signed with a key the authorization server does not publish', async () => {
        const { privateKey } = await generateKeyPair('ES256');
        const token = await forged(await valid(), { key: privateKey, kid: 'not-ours' });
        expect(await statusWith(token)).toMatchObject({ status: 'UNAUTHENTICATED', code: 'SERVICE_TOKEN_REFUSED' });
      });

      it('refuses a call with no credential, or a malformed one', async () => {
        expect(await refusal(plans.getPlanStatus({ planId: randomPlanId() }, new Metadata()))).toMatchObject({
          status: 'UNAUTHENTICATED',
          code: 'IDENTITY_MISSING',
        });
        expect(await statusWith('not-a-jwt')).toMatchObject({
          status: 'UNAUTHENTICATED',
          code: 'SERVICE_TOKEN_REFUSED',
        });
      });

      it("refuses a service account's token at the MCP endpoint", async () => {
        const token = await serviceToken(gateway.base, writer, 'quarry:read');
        const response = await fetch(gateway.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        expect(response.status).toBe(401);
      });

      it('issues no token for the MCP resource, nor beyond the account scopes', async () => {
        const mcp = await requestServiceToken(gateway.base, reader, { scope: 'quarry:read', resource: gateway.url });
        expect(mcp.status).toBe(400);
        expect(((await mcp.json()) as { error: string }).error).toBe('invalid_target');
        const wider = await requestServiceToken(gateway.base, reader, { scope: 'quarry:write' });
        expect(wider.status).toBe(400);
        expect(((await wider.json()) as { error: string }).error).toBe('invalid_scope');
        const wrongSecret = await requestServiceToken(gateway.base, { ...reader, clientSecret: 'qss_wrong' });
        expect(wrongSecret.status).toBe(401);
      });

      it('issues no client-credentials token to a client that is no service account', async () => {
        const registered = await fetch(`${gateway.base}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            client_name: 'Not a service account',
            grant_types: ['client_credentials'],
            response_types: [],
            redirect_uris: [],
            token_endpoint_auth_method: 'client_secret_basic',
          }),
        });
        expect(registered.status).toBe(201);
        const client = (await registered.json()) as { client_id: string; client_secret: string };
        const response = await requestServiceToken(
          gateway.base,
          { clientId: client.client_id, clientSecret: client.client_secret },
          { scope: 'quarry:read' },
        );
        expect(response.status).not.toBe(200);
        const mcp = await requestServiceToken(
          gateway.base,
          { clientId: client.client_id, clientSecret: client.client_secret },
          { scope: 'quarry:read', resource: gateway.url },
        );
        expect(mcp.status).not.toBe(200);
      });
    });
  });
}
