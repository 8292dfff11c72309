import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { QuarryError } from '@quarry/grpc';
import { as, startTestStore, type TestStore } from './support.js';

// What the artifact store refuses, over gRPC with the real plan engine behind plan references:
// contents over their size limit, documents that are not base64, a step without its plan, plans
// and steps that do not exist or belong to another org. Each refusal is a clear error with a
// stable code, and leaves no row and no event behind. Another org's ids are answered exactly like
// missing ones. (What the gateway's codec refuses before any rpc — unknown enum values, wrong
// JSON types, fields over their schema's length — is in the gateway's library-artifacts.suite.ts.)

const { ArtifactType, MediaType } = artifactV1;
const MiB = 1024 * 1024;
let store: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();
let planA: { planId: string; stepId: string };
let planB: { planId: string; stepId: string };
let otherPlanA: { planId: string; stepId: string };
const missing = randomUUID();

beforeAll(async () => {
  store = await startTestStore({ planEngine: true });
  planA = await store.plans.create(orgA);
  planB = await store.plans.create(orgB);
  otherPlanA = await store.plans.create(orgA);
});
afterAll(async () => {
  await store?.close();
});

/** Rows in both tables and events in the outbox (as the admin: every org). */
const counts = async () => ({
  artifacts: await store.count('artifact.research_artifacts'),
  outputs: await store.count('artifact.research_outputs'),
  events: await store.count('events.outbox'),
});

const research = (over: Partial<artifactV1.StoreResearchRequest>) => () =>
  store.client.call(
    'storeResearch',
    { artifactType: ArtifactType.ARTIFACT_TYPE_FINDING, title: 't', content: {}, tags: [], ...over },
    as(orgA),
  );
const output = (over: Partial<artifactV1.StoreResearchOutputRequest>) => () =>
  store.client.call(
    'storeResearchOutput',
    { planId: planA.planId, mediaType: MediaType.MEDIA_TYPE_MARKDOWN, title: 't', content: 'x', ...over },
    as(orgA),
  );
const report = (over: Partial<artifactV1.SubmitSubagentReportRequest>) => () =>
  store.client.call(
    'submitSubagentReport',
    { planId: planA.planId, stepId: planA.stepId, description: 'd', report: { a: 'b' }, ...over },
    as(orgA),
  );

/** How a call failed, as the caller sees it. */
async function failure(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(QuarryError);
  return { code: (error as QuarryError).code, message: (error as QuarryError).message };
}

describe('bad input: a clear error, nothing stored, no event', () => {
  // [what, call (ids are known only after setup), code, message]
  const cases: [string, () => () => Promise<unknown>, string, () => RegExp][] = [
    [
      'oversize content (JSON over 1 MiB)',
      () => research({ content: { text: 'x'.repeat(MiB) } }),
      'CONTENT_TOO_LARGE',
      () => /`content` is \d+ bytes; the limit is 1 MiB/,
    ],
    [
      'oversize contentText (over 1 MiB of UTF-8)',
      () => research({ contentText: 'é'.repeat(MiB / 2 + 1) }),
      'CONTENT_TOO_LARGE',
      () => /`contentText` is 1048578 bytes; the limit is 1 MiB/,
    ],
    [
      'oversize text output (over 1 MiB of UTF-8)',
      () => output({ content: 'é'.repeat(MiB / 2 + 1) }),
      'CONTENT_TOO_LARGE',
      () => /`content` is 1048578 bytes; the limit is 1 MiB/,
    ],
    [
      'oversize binary output (over 2 MiB decoded)',
      () =>
        output({
          mediaType: MediaType.MEDIA_TYPE_WORD,
          content: Buffer.alloc(2 * MiB + 3).toString('base64'),
          contentSummary: 's',
        }),
      'CONTENT_TOO_LARGE',
      () => /`content` is 2097155 bytes; the limit is 2 MiB/,
    ],
    [
      'oversize report',
      () => report({ report: { text: 'x'.repeat(MiB) } }),
      'CONTENT_TOO_LARGE',
      () => /`report` is \d+ bytes/,
    ],
    [
      'invalid base64 (bad characters)',
      () => output({ mediaType: MediaType.MEDIA_TYPE_POWERPOINT, content: 'not base64!', contentSummary: 's' }),
      'INVALID_BASE64',
      () => /`content` must be the powerpoint document's bytes, base64-encoded/,
    ],
    [
      'invalid base64 (truncated)',
      () => output({ mediaType: MediaType.MEDIA_TYPE_EXCEL, content: 'QUJDRA=', contentSummary: 's' }),
      'INVALID_BASE64',
      () => /base64-encoded/,
    ],
    [
      'stepId without planId',
      () => research({ stepId: planA.stepId }),
      'INVALID_ARGUMENT',
      () => /`stepId` needs planId/,
    ],
    [
      'unknown planId (StoreResearch)',
      () => research({ contentText: 'x', planId: missing }),
      'PLAN_NOT_FOUND',
      () => new RegExp(`No research plan with id ${missing}`),
    ],
    [
      'unknown planId (StoreResearchOutput)',
      () => output({ planId: missing }),
      'PLAN_NOT_FOUND',
      () => RegExp(missing),
    ],
    [
      'unknown planId (SubmitSubagentReport)',
      () => report({ planId: missing }),
      'PLAN_NOT_FOUND',
      () => RegExp(missing),
    ],
    [
      'unknown stepId (StoreResearch)',
      () => research({ contentText: 'x', planId: planA.planId, stepId: missing }),
      'STEP_NOT_FOUND',
      () => new RegExp(`Step ${missing} is not part of this plan`),
    ],
    [
      'unknown stepId (SubmitSubagentReport)',
      () => report({ stepId: missing }),
      'STEP_NOT_FOUND',
      () => RegExp(missing),
    ],
    [
      "another org's planId (StoreResearch)",
      () => research({ contentText: 'x', planId: planB.planId }),
      'PLAN_NOT_FOUND',
      () => /No research plan with id/,
    ],
    [
      "another org's planId (StoreResearchOutput)",
      () => output({ planId: planB.planId, mediaType: MediaType.MEDIA_TYPE_HTML, content: '<p>x</p>' }),
      'PLAN_NOT_FOUND',
      () => /No research plan with id/,
    ],
    [
      "another org's plan and step (SubmitSubagentReport)",
      () => report({ planId: planB.planId, stepId: planB.stepId }),
      'PLAN_NOT_FOUND',
      () => /No research plan with id/,
    ],
    [
      "another org's step on an own plan",
      () => research({ contentText: 'x', planId: planA.planId, stepId: planB.stepId }),
      'STEP_NOT_FOUND',
      () => /is not part of this plan/,
    ],
    [
      'a step of another own plan',
      () => report({ stepId: otherPlanA.stepId }),
      'STEP_NOT_FOUND',
      () => /is not part of this plan/,
    ],
  ];

  it.each(cases)('%s', async (_what, call, code, message) => {
    const before = await counts();
    const refused = await failure(call()());
    expect(refused.code).toBe(code);
    expect(refused.message).toMatch(message());
    expect(await counts()).toEqual(before);
  });

  it("answers another org's ids exactly like missing ones (same code, same message shape)", async () => {
    const foreign = await failure(research({ planId: planB.planId })());
    const absent = await failure(research({ planId: missing })());
    expect(foreign.code).toBe(absent.code);
    expect(foreign.message.replace(planB.planId, '<id>')).toBe(absent.message.replace(missing, '<id>'));
  });
});
