import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactSchemas } from '@quarry/artifact-store';
import { artifactV1, planV1 } from '@quarry/contracts';
import { eventsSchemas } from '@quarry/events';
import { createGrpcClient, createIdentitySigner, type Identity } from '@quarry/grpc';
import { planSchemas } from '@quarry/plan-engine';
import { startServices, type Services } from '@quarry/system';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';

const KEY = 'k'.repeat(48);
let database: TestDatabase;
let services: Services;
const signer = createIdentitySigner({ key: KEY, issuer: 'system-test' });
const identity = (): Identity => ({ kind: 'user', orgId: ORG, userId: randomUUID(), requestId: randomUUID() });
const ORG = randomUUID();

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...planSchemas, ...eventsSchemas, ...artifactSchemas] });
  services = await startServices({ databaseUrl: database.appUrl, identityKey: KEY, logger: createLogger({ service: 'system-test', level: 'silent' }) });
});
afterAll(async () => {
  await services?.close(1000);
  await database?.drop();
});

describe('startServices', () => {
  it('gives the gateway an address for every backend service', () => {
    expect(Object.keys(services.addresses).sort()).toEqual(['quarry.artifact.v1.ArtifactService', 'quarry.plan.v1.PlanService']);
    for (const address of Object.values(services.addresses)) expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('wires the services to each other over gRPC, both ways', async () => {
    const plans = createGrpcClient(planV1.PlanServiceClient, services.addresses['quarry.plan.v1.PlanService']!, { signer });
    const artifacts = createGrpcClient(artifactV1.ArtifactServiceClient, services.addresses['quarry.artifact.v1.ArtifactService']!, { signer });
    try {
      const plan = await plans.call(
        'createResearchPlan',
        planV1.CreateResearchPlanRequest.fromPartial({ name: 'p', researchQuestion: 'q', steps: [{ stepType: planV1.StepType.STEP_TYPE_SEARCH, instructions: 'look' }] }),
        { identity: identity() },
      );
      // artifact-store → plan-engine: the plan reference is checked before storing.
      const stored = await artifacts.call(
        'storeResearch',
        artifactV1.StoreResearchRequest.fromPartial({ artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING, title: 'found', content: { a: 1 }, contentText: 'text', planId: plan.planId }),
        { identity: identity() },
      );
      await expect(
        artifacts.call('storeResearch', artifactV1.StoreResearchRequest.fromPartial({ artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING, title: 'x', content: {}, planId: randomUUID() }), {
          identity: identity(),
        }),
      ).rejects.toMatchObject({ code: 'PLAN_NOT_FOUND' });
      // plan-engine → artifact-store: the plan's artifacts appear in its step context.
      const context = await plans.call('getStepContext', planV1.GetStepContextRequest.fromPartial({ planId: plan.planId, stepId: plan.firstStep!.stepId }), { identity: identity() });
      expect(context.artifacts.map((a) => a.id)).toEqual([stored.id]);
    } finally {
      plans.close();
      artifacts.close();
    }
  });
});
