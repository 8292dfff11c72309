import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { benchCli, SIZES, type Results } from '../src/index.js';

// `npm run bench -- --citations` (ADR 0060): the verify_citations rows only, against the embedded
// system at the smoke sizes.

const dir = mkdtempSync(join(tmpdir(), 'quarry-bench-citations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the --citations phase', () => {
  it("measures only verify_citations: evidence recall, the checks' precision and its latency", async () => {
    const file = join(dir, 'citations.json');
    const io = { out: () => {}, err: () => {} };
    await expect(benchCli(['--citations', '--json', file], io, SIZES.smoke)).resolves.toBe(0);
    const results = JSON.parse(readFileSync(file, 'utf8')) as Results;
    expect(Object.keys(results).every((key) => key.startsWith('citations_'))).toBe(true);
    expect(results.citations_pairs!.value).toBeGreaterThanOrEqual(100);
    expect(results.citations_recall_at3!.value).toBeGreaterThanOrEqual(0.9);
    expect(results.citations_checks_supported_flagged!.value).toBe(0);
    expect(results.citations_verify_p50_ms).toMatchObject({ unit: 'ms' });
    expect(results.citations_verify_p50_ms!.baseline).toBeGreaterThan(0);
  });
});
