import { it } from '@jest/globals';
import { contentPipelinePhase, formatTable, runBench, SIZES } from '../src/index.js';

it('scratch: content phase', async () => {
  const profile = (process.env.PROFILE ?? 'smoke') as keyof typeof SIZES;
  const t0 = Date.now();
  const lines: string[] = [];
  const results = await runBench({ sizes: { ...SIZES[profile] }, phases: [contentPipelinePhase], progress: (l) => { lines.push(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${l}`); process.stderr.write(`${lines.at(-1)}\n`); } });
  process.stderr.write(`${formatTable(results)}\n`);
}, 3_600_000);
