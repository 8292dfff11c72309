import { beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1, createQuarryClient, planV1, QuarryError, TokenRequestError } from '@quarry/client';
import { createServiceAccountAdmin, type IdentityDatabase, type ServiceAccountAdmin } from '@quarry/gateway';
import type { Kysely } from 'kysely';
import type { TestSystem } from './shared-system.js';

// @quarry/client against the real system: a Node program holding only a service account's id
// and secret gets a token from the embedded authorization server and calls the plan engine and
// the artifact store over gRPC, in its own org only.

export function serviceAccountClientSuite(system: () => TestSystem): void {
  describe('@quarry/client as a service account', () => {
    let gateway: TestSystem;
    let accounts: ServiceAccountAdmin;
    let db: Kysely<IdentityDatabase>;

    beforeAll(async () => {
      gateway = system();
      db = gateway.database.admin as Kysely<IdentityDatabase>;
      accounts = createServiceAccountAdmin(db);
      await gateway.admin.createOrg({ slug: 'globex-client', name: 'Globex' });
    });

    function clientFor(account: { clientId: string; clientSecret: string }, scopes = ['quarry:read', 'quarry:write']) {
      return createQuarryClient({
        issuer: gateway.base,
        clientId: account.clientId,
        clientSecret: account.clientSecret,
        scopes,
        addresses: {
          plan: gateway.services.planEngine.address,
          artifact: gateway.services.artifactStore.address,
        },
      });
    }

    describe('@quarry/client', () => {
      it("writes and reads its org's plans and artifacts; another org's are missing", async () => {
        const account = await accounts.create({ orgSlug: 'acme', name: 'ingest', scopes: 'quarry:read quarry:write' });
        const quarry = clientFor(account);
        const { planId, firstStep } = await quarry.plan.createResearchPlan(
          planV1.CreateResearchPlanRequest.fromPartial({
            name: 'Battery supply',
            researchQuestion: 'Where does lithium come from?',
            steps: [{ stepType: planV1.StepType.STEP_TYPE_SEARCH, instructions: 'Find producers' }],
          }),
        );
        const stored = await quarry.artifact.storeResearch(
          artifactV1.StoreResearchRequest.fromPartial({
            artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
            title: 'Australia mines most lithium',
            content: { claim: 'Australia leads' },
            planId,
            stepId: firstStep!.stepId,
          }),
        );
        const listed = await quarry.artifact.listArtifacts({ planId, tags: [] });
        expect(listed.artifacts.map((a) => a.id)).toEqual([stored.id]);
        expect((await quarry.plan.getPlanStatus({ planId })).planId).toBe(planId);

        const outsider = await accounts.create({ orgSlug: 'globex-client', name: 'ingest', scopes: 'quarry:read' });
        const foreign = clientFor(outsider, ['quarry:read']);
        const error = await foreign.plan.getPlanStatus({ planId }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(QuarryError);
        expect(error).toMatchObject({ code: 'PLAN_NOT_FOUND', status: 5 });
        expect((await foreign.artifact.listArtifacts({ planId, tags: [] })).artifacts).toEqual([]);
        quarry.close();
        foreign.close();
      });

      it('records each token it is issued, and reuses one token for many calls', async () => {
        const account = await accounts.create({ orgSlug: 'acme', name: 'audited', scopes: 'quarry:read' });
        const quarry = clientFor(account, ['quarry:read']);
        for (let i = 0; i < 3; i++) await quarry.plan.listActivePlans({});
        quarry.close();
        const events = await db
          .selectFrom('identity.auth_events')
          .select(['event', 'detail'])
          .where('client_id', '=', account.clientId)
          .orderBy('id')
          .execute();
        expect(events).toEqual([
          { event: 'service_account_created', detail: { name: 'audited', scopes: ['quarry:read'] } },
          { event: 'token_issued', detail: { grantType: 'client_credentials', scope: 'quarry:read' } },
        ]);
      });

      it('stops getting tokens once the secret is rotated or the account revoked', async () => {
        const account = await accounts.create({ orgSlug: 'acme', name: 'rotating', scopes: 'quarry:read' });
        const rotated = await accounts.rotateSecret(account.clientId);
        const stale = clientFor(account, ['quarry:read']);
        await expect(stale.plan.listActivePlans({})).rejects.toThrow(TokenRequestError);
        const fresh = clientFor(rotated, ['quarry:read']);
        await expect(fresh.plan.listActivePlans({})).resolves.toBeDefined();

        await accounts.revoke(account.clientId);
        const revoked = clientFor(rotated, ['quarry:read']);
        const error = await revoked.plan.listActivePlans({}).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TokenRequestError);
        expect(error).toMatchObject({ status: 401, error: 'invalid_client' });
        for (const client of [stale, fresh, revoked]) client.close();
      });
    });
  });
}
