import { describe, expect, it } from '@jest/globals';
import { parseClaims } from '../src/citations/claim-parsing.js';
import { checkClaim } from '../src/citations/claim-checks.js';
import { sourcePassages } from '../src/citations/source-passages.js';
import { checkVerdicts, tally } from '../src/citations/verdicts.js';

const A = '0b0e7d0c-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
const O = '1b0e7d0c-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

describe('parseClaims', () => {
  it('finds Quarry links, permalinks, numbered references, DOIs and web addresses', () => {
    const text = [
      `Vitamin D did not reduce fractures (quarry://artifacts/${A}). The diet lowered events [1].`,
      `Digital CBT-I works at scale, see https://quarry.example/app/outputs/${O}.`,
      'Fibres were most common (doi:10.1038/s41586-020-2649-2). Home working raised performance https://example.org/wfh.',
      'This sentence cites nothing.',
      '',
      '## References',
      `[1] Estruch et al. https://quarry.example/app/artifacts/${A}`,
      '[2] Unused entry 10.1000/xyz',
    ].join('\n');
    const claims = parseClaims(text);
    expect(claims.map((c) => [c.text, c.targets])).toEqual([
      ['Vitamin D did not reduce fractures.', [{ kind: 'artifact', id: A }]],
      ['The diet lowered events.', [{ kind: 'artifact', id: A }]],
      ['Digital CBT-I works at scale, see.', [{ kind: 'output', id: O }]],
      ['Fibres were most common.', [{ kind: 'doi', doi: '10.1038/s41586-020-2649-2' }]],
      ['Home working raised performance.', [{ kind: 'url', url: 'example.org/wfh' }]],
    ]);
    expect(text.slice(claims[0]!.start, claims[0]!.end)).toBe(
      `Vitamin D did not reduce fractures (quarry://artifacts/${A}).`,
    );
  });

  it('keeps a markdown link text, expands reference ranges, and reports numbers the list lacks', () => {
    const text = `Statins helped [older diabetics](quarry://artifacts/${A}) in Catalonia [1-2, 4].\n\nReferences\n1. quarry://outputs/${O}\n2. 10.5555/abc`;
    const [claim] = parseClaims(text);
    expect(claim!.text).toBe('Statins helped older diabetics in Catalonia.');
    expect(claim!.targets).toEqual([
      { kind: 'output', id: O },
      { kind: 'doi', doi: '10.5555/abc' },
      { kind: 'artifact', id: A },
    ]);
    expect(claim!.unresolvedReferences).toEqual([4]);
  });
});

describe('checkClaim', () => {
  const source =
    'We enrolled 1,256 adults in Oslo. Mortality fell to 12.5% (P = .41). "Benefits were modest" said the authors.';
  it('flags numbers, names and quotations the source does not have', () => {
    expect(checkClaim('Mortality fell to 15% in 1256 adults in Bergen, "a dramatic benefit for all".', source)).toEqual(
      [
        { kind: 'quote_not_in_source', value: 'a dramatic benefit for all' },
        { kind: 'number_not_in_source', value: '15%' },
        { kind: 'name_not_in_source', value: 'Bergen' },
      ],
    );
  });
  it('accepts the same numbers, names and quotations written differently', () => {
    expect(
      checkClaim('In Oslo, 1256 adults were enrolled; mortality was 0.125 and "benefits were modest."', source),
    ).toEqual([]);
  });
});

describe('sourcePassages', () => {
  it('cuts sentences with spans and pages, joining very short ones', () => {
    const text =
      'Methods. We randomised 200 adults to drug or placebo. Results were null.\n\nThe drug was safe in all groups.';
    const passages = sourcePassages('s', text, [
      { number: 1, start: 0, end: 73 },
      { number: 2, start: 73, end: text.length },
    ]);
    expect(passages.map((p) => [p.text, p.page])).toEqual([
      ['Methods. We randomised 200 adults to drug or placebo.', 1],
      ['Results were null.\n\nThe drug was safe in all groups.', 1],
    ]);
    for (const p of passages) expect(text.slice(p.start, p.end)).toBe(p.text);
  });
});

describe('checkVerdicts and tally', () => {
  const offered = [
    { claimNo: 1, passageIds: ['p1', 'p2'] },
    { claimNo: 2, passageIds: ['p3'] },
    { claimNo: 3, passageIds: [] },
  ];
  it('accepts one answer per offered claim on an offered passage', () => {
    expect(
      checkVerdicts(offered, [
        { claimNo: 1, verdict: 'supported', passageId: 'p2' },
        { claimNo: 2, verdict: 'not_enough_information' },
      ]),
    ).toEqual([]);
  });
  it('names every problem', () => {
    expect(
      checkVerdicts(offered, [
        { claimNo: 1, verdict: 'supported', passageId: 'p3' },
        { claimNo: 1, verdict: 'contradicted', passageId: 'p1' },
        { claimNo: 3, verdict: 'supported', passageId: 'p1' },
        { claimNo: 9, verdict: 'supported', passageId: 'p1' },
      ]),
    ).toEqual([
      { claimNo: 1, rule: 'passage_not_offered', passageId: 'p3' },
      { claimNo: 1, rule: 'answered_twice' },
      { claimNo: 3, rule: 'not_offered_passages' },
      { claimNo: 9, rule: 'unknown_claim' },
      { claimNo: 2, rule: 'unanswered' },
    ]);
    expect(
      checkVerdicts(offered, [
        { claimNo: 1, verdict: 'contradicted' },
        { claimNo: 2, verdict: 'supported', passageId: 'p3' },
      ]),
    ).toEqual([{ claimNo: 1, rule: 'passage_required' }]);
  });
  it('counts half for partial support and the missing sources as unsupported', () => {
    expect(tally(['supported', 'partially_supported', 'contradicted'], 1)).toEqual({
      supported: 1,
      partiallySupported: 1,
      contradicted: 1,
      notEnoughInformation: 0,
      sourceMissing: 1,
      supportRatio: 0.375,
    });
    expect(tally([], 0).supportRatio).toBe(1);
  });
});
