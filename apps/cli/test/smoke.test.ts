import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serviceTransportEnv } from '@quarry/testing';
import { runCli, startAll } from '../src/index.js';

const dataDir = mkdtempSync(join(tmpdir(), 'quarry-smoke-'));
const env = { QUARRY_DATA_DIR: dataDir, PORT: '0', ...serviceTransportEnv() };
let system: Awaited<ReturnType<typeof startAll>>;

beforeAll(async () => {
  system = await startAll({ env, out: () => {}, logLevel: 'silent' });
}, 60_000);
afterAll(async () => {
  await system?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function quarry(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('quarry smoke', () => {
  it('runs one research session against the running system with the first-start token', async () => {
    const ran = await quarry('smoke', '--url', system.url);
    expect(ran.err).toBe('');
    expect(ran).toMatchObject({ code: 0 });
    expect(ran.out).toMatch(/^created plan [0-9a-f-]{36}$/m);
    expect(ran.out).toContain('search_sources found it');
    expect(ran.out).toMatch(/^extracted \(client, status completed\)$/m);
    expect(ran.out).toContain('plan completed: the research session passed');
  }, 60_000);

  it('fails with the answer that was wrong: here the token is refused', async () => {
    const file = join(dataDir, 'wrong-token');
    const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
    rmSync(file, { force: true });
    writeFileSync(file, `${token.slice(0, -4)}AAAA\n`);
    const ran = await quarry('smoke', '--url', system.url, '--token-file', file);
    expect(ran.code).toBe(1);
    expect(ran.err).toMatch(/^error: .*(401|nauthori[sz]ed|invalid)/im);
  }, 30_000);

  it('says where a token can come from when there is none', async () => {
    const err: string[] = [];
    const code = await runCli(['smoke', '--url', system.url], {
      out: () => {},
      err: (l) => err.push(l),
      env: { QUARRY_DATA_DIR: join(dataDir, 'nowhere') },
    });
    expect({ code, err }).toEqual({
      code: 1,
      err: [expect.stringMatching(/^error: No token: pass --token-file, set QUARRY_TOKEN, or start Quarry once/)],
    });
  });
});
