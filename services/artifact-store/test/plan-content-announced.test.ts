import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { createNotificationListener, type NotificationListener } from '@quarry/db';
import { createLogger } from '@quarry/telemetry';
import { storeFinding } from './extraction-support.js';
import { as, startTestStore, type TestStore } from './support.js';

// A plan's deliverables stored or deleted are announced at commit on quarry_plan_content_changed
// as "<org_id>:<plan_id>" (the gateway tells the plan's subscribers; see
// services/gateway/test/plan-subscriptions.e2e.test.ts). Heard here on a real LISTEN connection.

let store: TestStore;
let listener: NotificationListener;
const heard: string[] = [];
const orgA = randomUUID();

beforeAll(async () => {
  store = await startTestStore();
  listener = createNotificationListener({
    connectionString: store.database.appUrl,
    applicationName: 'artifact-store-test-listen',
    channels: ['quarry_plan_content_changed'],
    logger: createLogger({ service: 'artifact-store-test', level: 'silent' }),
    onNotification: (_channel, payload) => heard.push(payload),
  });
  await listener.start();
});
afterAll(async () => {
  await listener?.close();
  await store?.close();
});

/** Where the next notification will be, once everything committed so far has been delivered. */
async function mark(): Promise<number> {
  expect(await listener.barrier()).toBe(true);
  return heard.length;
}

/** What was heard from `from` on, once everything committed so far has been delivered. */
async function heardSince(from: number): Promise<string[]> {
  expect(await listener.barrier()).toBe(true);
  return heard.slice(from);
}

const storeOutput = (orgId: string, planId: string) =>
  store.client.call(
    'storeResearchOutput',
    { planId, mediaType: artifactV1.MediaType.MEDIA_TYPE_MARKDOWN, title: 'Report', content: 'Lithium fell.' },
    as(orgId),
  );

describe('quarry_plan_content_changed', () => {
  it('announces a deliverable stored, deleted, and purged with its plan, once per transaction', async () => {
    const planId = randomUUID();
    let from = await mark();
    const { outputId } = await storeOutput(orgA, planId);
    expect(await heardSince(from)).toEqual([`${orgA}:${planId}`]);

    from = await mark();
    await store.client.call('deleteResearchOutput', { outputId }, as(orgA));
    expect(await heardSince(from)).toEqual([`${orgA}:${planId}`]);

    await storeOutput(orgA, planId);
    await storeOutput(orgA, planId);
    from = await mark();
    await store.client.call('purgePlanContent', { planId }, as(orgA));
    expect(await heardSince(from)).toEqual([`${orgA}:${planId}`]);
  });

  it('says nothing of artifacts, which are not deliverables', async () => {
    const from = await mark();
    await storeFinding(store, orgA, { planId: randomUUID() });
    expect(await heardSince(from)).toEqual([]);
  });
});
