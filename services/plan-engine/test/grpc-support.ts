import { randomUUID } from 'node:crypto';
import { planV1 } from '@quarry/contracts';
import { createGrpcClient, createIdentitySigner, type Identity } from '@quarry/grpc';
import { createLogger } from '@quarry/telemetry';

// What the tests that call the plan engine over real gRPC share: one identity key, a silent
// logger, a typed client signed with that key, and a call's identity as a member of `orgId`.

export const KEY = 'k'.repeat(48);
export const logger = createLogger({ service: 'plan-engine-test', level: 'silent' });
const signer = createIdentitySigner({ key: KEY, issuer: 'test' });

export const as = (orgId: string): { identity: Identity } => ({
  identity: { kind: 'user', orgId, userId: randomUUID(), requestId: randomUUID() },
});
export const planClient = (address: string) => createGrpcClient(planV1.PlanServiceClient, address, { signer });
export type PlanClient = ReturnType<typeof planClient>;
