import { createHash, createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { failure, storeFinding } from './extraction-support.js';
import { as, IDENTITY_KEY, startTestStore, type TestStore } from './support.js';

// The cursors of the read and list rpcs, sealed by @quarry/cursors: a cursor of the codec this
// service had before (sealed under the old key derivation) is INVALID_CURSOR, never a crash or a
// query error, and a list cursor is bound to its org as well as its filters.

const BUDGET = 4096;
let store: TestStore;

beforeAll(async () => {
  store = await startTestStore({ readBudgetBytes: BUDGET });
});
afterAll(async () => {
  await store?.close();
});

/** A cursor as the artifact store's own codec sealed it before @quarry/cursors (key, layout and scopes). */
function oldCursor(scope: string, position: string | number): string {
  const key = createHmac('sha256', IDENTITY_KEY).update('quarry.artifact-store.read-cursor.v1').digest();
  const body = Buffer.from(JSON.stringify({ s: scope, p: position })).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest().subarray(0, 16).toString('base64url')}`;
}
/** The old list scope: the rpc and a digest of its filters. */
const oldListScope = (rpc: string, filters: unknown[]) =>
  `${rpc}:${createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 22)}`;

const createdAtText = async (table: string, id: string) =>
  (
    await sql<{ at: string }>`select created_at::text as at from ${sql.table(table)} where id = ${id}::uuid`.execute(
      store.database.admin,
    )
  ).rows[0]!.at;

describe('cursors of the old codec', () => {
  it('are refused by the read tools, which page on with their own cursors', async () => {
    const org = randomUUID();
    const { id } = await storeFinding(store, org, { contentText: 'x'.repeat(BUDGET * 3) });
    const first = (await store.client.call('getArtifact', { id }, as(org))).page!;
    const second = (await store.client.call('getArtifact', { id, cursor: first.nextCursor }, as(org))).page!;
    expect(second.offset).toBe(first.returnedBytes);

    for (const [rpc, request] of [
      ['getArtifact', { id, cursor: oldCursor(`get_artifact:${id}`, BUDGET) }],
      ['fetch', { id, cursor: oldCursor(`fetch:${id}`, BUDGET) }],
    ] as const)
      expect((await failure(store.client.call(rpc, request, as(org)))).code).toBe('INVALID_CURSOR');
  });

  it('are refused by the list rpcs', async () => {
    const org = randomUUID();
    const planId = randomUUID();
    const { id } = await storeFinding(store, org);
    await storeFinding(store, org);
    const old = oldCursor(
      oldListScope('list_artifacts', [null, null, [], null]),
      JSON.stringify([await createdAtText('artifact.research_artifacts', id), id]),
    );
    expect((await failure(store.client.call('listArtifacts', { tags: [], cursor: old }, as(org)))).code).toBe(
      'INVALID_CURSOR',
    );

    const output = await store.client.call(
      'storeResearchOutput',
      { planId, mediaType: artifactV1.MediaType.MEDIA_TYPE_MARKDOWN, title: 'R', content: '# R' },
      as(org),
    );
    const oldOutputs = oldCursor(
      oldListScope('list_research_outputs', [null]),
      JSON.stringify([await createdAtText('artifact.research_outputs', output.outputId), output.outputId]),
    );
    expect((await failure(store.client.call('listResearchOutputs', { cursor: oldOutputs }, as(org)))).code).toBe(
      'INVALID_CURSOR',
    );
  });
});

describe('a list cursor', () => {
  it('is refused in another org, however alike the call', async () => {
    const orgA = randomUUID();
    const orgB = randomUUID();
    for (const org of [orgA, orgA, orgB, orgB]) await storeFinding(store, org, { tags: ['t'] });
    const ofA = await store.client.call('listArtifacts', { tags: ['t'], limit: 1 }, as(orgA));
    expect(
      (await store.client.call('listArtifacts', { tags: ['t'], cursor: ofA.nextCursor }, as(orgA))).artifacts,
    ).toHaveLength(1);
    expect(
      (await failure(store.client.call('listArtifacts', { tags: ['t'], cursor: ofA.nextCursor }, as(orgB)))).code,
    ).toBe('INVALID_CURSOR');
  });
});
