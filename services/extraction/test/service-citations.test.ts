import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { extractionV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import type { Identity } from '@quarry/grpc';
import { failure, startTestSystem, type ExtractionClient, type TestSystem } from './support.js';

// verify_citations and submit_citation_verdicts against the real artifact store and PostgreSQL:
// what a text cites is opened under the caller's org (another org's source is missing, exactly
// like one that never existed), the model-free findings and the passages come back with a
// handle, and the verdicts are checked against what was offered before the report is stored as
// an artifact of the plan.

const { CitationVerdict, CitationScope, HandleStatus } = extractionV1;
const VITAMIN_D = [
  'We randomised 25,871 adults aged 70 years or older to vitamin D or placebo.',
  'Total fractures occurred in 769 participants in the vitamin D group and 791 in the placebo group.',
  'Daily vitamin D supplementation did not reduce fractures in generally healthy older adults.',
].join(' ');
const DIET =
  'In this trial in Spain, 7447 participants were assigned to a Mediterranean diet or a control diet. Major cardiovascular events were less frequent with the Mediterranean diet.';
const FOREIGN = 'A foreign source says vitamin D halves fractures.';

let system: TestSystem;
let client: ExtractionClient;
const orgA = randomUUID();
const orgB = randomUUID();
const ada = { kind: 'user', orgId: orgA, userId: randomUUID(), tokenId: randomUUID() } as const;
const eve = { kind: 'user', orgId: orgB, userId: randomUUID(), tokenId: randomUUID() } as const;
const call = (who: Omit<Identity, 'requestId'>) => ({ identity: { ...who, requestId: randomUUID() } });
let planId: string;
let vitaminD: string;
let diet: string;
let foreign: string;

beforeAll(async () => {
  system = await startTestSystem();
  client = await system.extraction();
  ({ planId } = await system.createPlan(orgA));
  vitaminD = await system.storeArtifact(orgA, VITAMIN_D, { planId });
  diet = await system.storeArtifact(orgA, DIET, { planId, content: { doi: '10.1056/NEJMoa1800389' } });
  foreign = await system.storeArtifact(orgB, FOREIGN);
});
afterAll(async () => {
  await system?.close();
});

const text = () =>
  [
    `Daily vitamin D did not lower fractures in healthy older adults (quarry://artifacts/${vitaminD}).`,
    'It cut fractures by 18% in 25,871 adults [1].',
    'A Mediterranean diet lowered cardiovascular events (doi:10.1056/nejmoa1800389).',
    `Vitamin D halves fractures (quarry://artifacts/${foreign}), and more (quarry://artifacts/${randomUUID()}).`,
    '',
    'References',
    `[1] https://quarry.example/app/artifacts/${vitaminD}`,
  ].join('\n');

const verify = (req: Partial<extractionV1.VerifyCitationsRequest>, who: Omit<Identity, 'requestId'> = ada) =>
  client.call('verifyCitations', { subject: { $case: 'text', text: text() }, ...req }, call(who));

describe('verify_citations', () => {
  it('finds the citing claims, opens their sources in the org, flags what needs no model and offers passages', async () => {
    const answer = await verify({ planId });
    expect(answer.handle).toMatch(/^qv1\./);
    expect(answer.planId).toBe(planId);
    expect(answer.claims.map((c) => [c.claimNo, c.sourceIds, c.settled])).toEqual([
      [1, [vitaminD], CitationVerdict.CITATION_VERDICT_UNSPECIFIED],
      [2, [vitaminD], CitationVerdict.CITATION_VERDICT_UNSPECIFIED],
      [3, [diet], CitationVerdict.CITATION_VERDICT_UNSPECIFIED],
      [4, [], CitationVerdict.CITATION_VERDICT_SOURCE_MISSING],
    ]);
    // Another org's artifact is missing exactly like one that never existed.
    expect(answer.claims[3]!.findings.map((f) => f.kind)).toEqual(['source_missing', 'source_missing']);
    expect(answer.claims[3]!.passageIds).toEqual([]);
    expect(answer.claims[1]!.findings).toEqual([{ kind: 'number_not_in_source', value: '18%' }]);
    const passage = (id: string) => answer.passages.find((p) => p.id === id)!;
    const best = passage(answer.claims[0]!.passageIds[0]!);
    expect(best.text).toBe(
      'Daily vitamin D supplementation did not reduce fractures in generally healthy older adults.',
    );
    expect(VITAMIN_D.slice(best.start, best.end)).toBe(best.text);
    expect(passage(answer.claims[2]!.passageIds[0]!).sourceId).toBe(diet);
    expect(JSON.stringify(answer)).not.toContain('foreign source');
  });

  it("with scope plan also offers passages from the plan's other sources", async () => {
    const claim = `Vitamin D did not reduce fractures or cardiovascular events (quarry://artifacts/${vitaminD}).`;
    const answer = await verify({
      subject: { $case: 'text', text: claim },
      planId,
      scope: CitationScope.CITATION_SCOPE_PLAN,
    });
    const sources = answer.claims[0]!.passageIds.map((id) => answer.passages.find((p) => p.id === id)!.sourceId);
    expect(sources).toContain(vitaminD);
    expect(new Set(sources).size).toBeGreaterThan(1);
  });

  it("reads a deliverable of the org (its plan by default); another org's deliverable or plan is not found", async () => {
    const outputId = await system.storeOutput(orgA, planId, text());
    const answer = await verify({ subject: { $case: 'outputId', outputId } });
    expect(answer.planId).toBe(planId);
    expect(answer.claims).toHaveLength(4);
    expect((await failure(verify({ subject: { $case: 'outputId', outputId } }, eve))).code).toBe('OUTPUT_NOT_FOUND');
    expect((await failure(verify({ subject: { $case: 'outputId', outputId: randomUUID() } }))).code).toBe(
      'OUTPUT_NOT_FOUND',
    );
    expect((await failure(verify({ planId }, eve))).code).toBe('PLAN_NOT_FOUND');
    expect((await failure(verify({ planId: randomUUID() }))).code).toBe('PLAN_NOT_FOUND');
  });
});

describe('submit_citation_verdicts', () => {
  it('checks the verdicts against what was offered, stores the report in the plan once, and answers the ratio', async () => {
    const answer = await verify({ planId });
    const [c1, c2, c3] = answer.claims;
    const reports = async () =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from artifact.research_artifacts where 'citation-verification' = any(tags)`.execute(
          system.database.admin,
        )
      ).rows[0]!.n;
    const before = await reports();

    const wrong = await failure(
      client.call(
        'submitCitationVerdicts',
        {
          handle: answer.handle,
          verdicts: [
            { claimNo: 1, verdict: CitationVerdict.CITATION_VERDICT_SUPPORTED, passageId: c3!.passageIds[0]! },
            { claimNo: 4, verdict: CitationVerdict.CITATION_VERDICT_SUPPORTED, passageId: c1!.passageIds[0]! },
          ],
        },
        call(ada),
      ),
    );
    expect(wrong.code).toBe('VERDICTS_INVALID');
    expect(wrong.message).toContain('claim 1: passage not offered');
    expect(wrong.message).toContain('claim 4: not offered passages');
    expect(wrong.message).toContain('claim 2: unanswered');
    expect(await reports()).toBe(before);

    const verdicts = [
      { claimNo: 1, verdict: CitationVerdict.CITATION_VERDICT_SUPPORTED, passageId: c1!.passageIds[0]! },
      { claimNo: 2, verdict: CitationVerdict.CITATION_VERDICT_CONTRADICTED, passageId: c2!.passageIds[0]! },
      { claimNo: 3, verdict: CitationVerdict.CITATION_VERDICT_PARTIALLY_SUPPORTED, passageId: c3!.passageIds[0]! },
    ];
    const stored = await client.call('submitCitationVerdicts', { handle: answer.handle, verdicts }, call(ada));
    expect(stored).toMatchObject({
      supportRatio: 0.375,
      supported: 1,
      partiallySupported: 1,
      contradicted: 1,
      notEnoughInformation: 0,
      sourceMissing: 1,
      handleStatus: HandleStatus.HANDLE_STATUS_ACCEPTED,
    });
    const report = await system.readArtifact(orgA, stored.reportId);
    expect(report).toMatchObject({ planId, tags: ['citation-verification'] });
    expect(report.contentText).toContain('CONTRADICTED: It cut fractures by 18% in 25,871 adults.');
    expect(report.contentText).toContain('number not in source: 18%');
    expect(await reports()).toBe(before + 1);
    // Searchable: its content.created event is in the outbox with it.
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from events.outbox where payload->>'sourceId' = ${stored.reportId}`.execute(
      system.database.admin,
    );
    expect(rows[0]!.n).toBe(1);
    // The verification keeps its verdicts and report: the audit record.
    const { rows: kept } = await sql<{ report_artifact_id: string; support_ratio: number }>`
      select report_artifact_id::text, support_ratio from extraction.citation_verifications where report_artifact_id = ${stored.reportId}::uuid`.execute(
      system.database.admin,
    );
    expect(kept).toEqual([{ report_artifact_id: stored.reportId, support_ratio: 0.375 }]);

    const again = await client.call('submitCitationVerdicts', { handle: answer.handle, verdicts }, call(ada));
    expect(again).toEqual({ ...stored, handleStatus: HandleStatus.HANDLE_STATUS_ALREADY_ACCEPTED });
    const other = await failure(
      client.call(
        'submitCitationVerdicts',
        {
          handle: answer.handle,
          verdicts: verdicts.map((v) => ({ ...v, verdict: CitationVerdict.CITATION_VERDICT_SUPPORTED })),
        },
        call(ada),
      ),
    );
    expect(other.code).toBe('VERDICTS_ALREADY_SUBMITTED');
    expect(await reports()).toBe(before + 1);
  });

  it('refuses a handle to anyone but its principal, and a tampered one, as not found', async () => {
    const answer = await verify({});
    const verdicts = [{ claimNo: 1, verdict: CitationVerdict.CITATION_VERDICT_NOT_ENOUGH_INFORMATION }];
    const otherToken = { ...ada, tokenId: randomUUID() };
    for (const [who, handle] of [
      [eve, answer.handle],
      [otherToken, answer.handle],
      [ada, `${answer.handle}x`],
      [ada, 'qv1.e30.AAAA'],
    ] as const)
      expect((await failure(client.call('submitCitationVerdicts', { handle, verdicts }, call(who)))).code).toBe(
        'VERIFICATION_NOT_FOUND',
      );
  });
});
