import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { benchCli, SIZES, type Results } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'quarry-bench-topology-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run bench -- --topology-cpu (smoke sizes)', () => {
  it('measures the Kubernetes topology and the monolith, each in processes of their own, and nothing else', async () => {
    const file = join(dir, 'topology.json');
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
    const profiles = join(dir, 'profiles');
    await expect(benchCli(['--topology-cpu', '--json', file, '--profile', profiles], io, SIZES.smoke)).resolves.toBe(0);
    // --profile: a V8 CPU profile of the phase, with samples and the bench's own functions in it.
    const profile = JSON.parse(readFileSync(join(profiles, 'topology-cpu.cpuprofile'), 'utf8')) as {
      nodes: { callFrame: { functionName: string; url: string } }[];
      samples: number[];
    };
    expect(profile.samples.length).toBeGreaterThan(0);
    expect(profile.nodes.some((n) => n.callFrame.url.includes('apps/bench/src/'))).toBe(true);

    const results = JSON.parse(readFileSync(file, 'utf8')) as Results;
    expect(Object.keys(results).sort()).toEqual([
      'p2_cpu_per_read_call_gateway_us',
      'p2_cpu_per_read_call_plan_engine_us',
      'p2_cpu_per_read_call_ratio',
      'p2_cpu_per_read_call_us',
    ]);
    const { value, baseline, ratio, unit } = results.p2_cpu_per_read_call_us!;
    expect({ unit, positive: value > 0 && baseline! > 0 }).toEqual({ unit: 'µs', positive: true });
    expect(ratio).toBeCloseTo(value / baseline!, 9);
    // Both processes of the topology did work for the calls; the monolith ran in one.
    expect(results.p2_cpu_per_read_call_gateway_us!.value).toBeGreaterThan(0);
    expect(results.p2_cpu_per_read_call_plan_engine_us!.value).toBeGreaterThan(0);
    expect(
      err.filter((line) => /round 1\/1 kubernetes: \d+ µs CPU\/call \(gateway \d+ \+ plan_engine \d+;/.test(line)),
    ).toHaveLength(1);
    expect(err.filter((line) => /round 1\/1 monolith: \d+ µs CPU\/call \(monolith \d+;/.test(line))).toHaveLength(1);
    expect(out.join('\n')).toMatch(/^p2_cpu_per_read_call_ratio +\d/m);
  });
});
