import { randomUUID } from 'node:crypto';
import { Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { planV1 } from '@quarry/contracts';
import { expect } from '@jest/globals';

/** What a direct caller sends: exactly the metadata the README's grpcurl example sends. */
export function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** A client_credentials token request, as the README's curl example makes it. */
export function requestServiceToken(
  base: string,
  account: { clientId: string; clientSecret: string },
  params: Record<string, string> = {},
) {
  return fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${account.clientId}:${account.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: 'urn:quarry:grpc', ...params }),
  });
}

export async function serviceToken(
  base: string,
  account: { clientId: string; clientSecret: string },
  scope: string,
): Promise<string> {
  const response = await requestServiceToken(base, account, { scope });
  const body = (await response.json()) as { access_token?: string };
  expect(response.status).toBe(200);
  return body.access_token!;
}

export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

/** The plan engine's generated client, called with raw metadata (no Quarry library in between). */
export function rawPlanClient(address: string) {
  const client = new planV1.PlanServiceClient(address, credentials.createInsecure());
  const unary =
    <Req, Res>(method: (req: Req, md: Metadata, cb: (error: ServiceError | null, res: Res) => void) => unknown) =>
    (request: Req, metadata: Metadata) =>
      new Promise<Res>((resolve, reject) =>
        method.call(client, request, metadata, (error, response) => (error ? reject(error) : resolve(response))),
      );
  return {
    createResearchPlan: unary<planV1.CreateResearchPlanRequest, planV1.CreateResearchPlanResponse>(
      client.createResearchPlan,
    ),
    getPlanStatus: unary<planV1.GetPlanStatusRequest, planV1.GetPlanStatusResponse>(client.getPlanStatus),
    resolvePlanReference: unary<planV1.ResolvePlanReferenceRequest, planV1.ResolvePlanReferenceResponse>(
      client.resolvePlanReference,
    ),
    close: () => client.close(),
  };
}

export const newPlan = (name: string) =>
  planV1.CreateResearchPlanRequest.fromPartial({
    name,
    researchQuestion: 'Which sources matter?',
    steps: [{ stepType: planV1.StepType.STEP_TYPE_SEARCH, instructions: 'Look for sources' }],
  });

/** The status, Quarry error code and message a refused call came back with. */
export async function refusal(call: Promise<unknown>) {
  const error = (await call.then(
    () => {
      throw new Error('the call was expected to be refused');
    },
    (e: unknown) => e,
  )) as ServiceError;
  return {
    status: status[error.code],
    code: error.metadata?.get('x-quarry-error-code')[0],
    message: error.details,
  };
}

export const randomPlanId = () => randomUUID();
