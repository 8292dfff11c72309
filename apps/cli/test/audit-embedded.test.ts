import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runCli, startAll } from '@quarry/cli';

// The embedded setup signs its audit checkpoints with a key pair `quarry start` makes once in its
// data directory, and `quarry audit verify` checks them with that public key unasked.

const dataDir = mkdtempSync(join(tmpdir(), 'quarry-audit-embedded-'));
const env = { QUARRY_DATA_DIR: dataDir, PORT: '0', QUARRY_AUDIT_CHECKPOINT_INTERVAL: '200ms' };

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function createPlan(url: string, token: string) {
  const client = new Client(
    { name: 'audit-test', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }));
  try {
    const result = await client.callTool({
      name: 'create_research_plan',
      arguments: {
        name: 'Audited',
        researchQuestion: 'Signed?',
        steps: [{ stepType: 'search', instructions: 'Look.' }],
      },
    });
    expect(result.isError).toBeFalsy();
  } finally {
    await client.close();
  }
}

async function verify() {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['audit', 'verify'], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: { QUARRY_DATA_DIR: dataDir },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('the audit log of quarry start', () => {
  it('is checkpointed with a key pair of the data directory, and verified with it', async () => {
    const system = await startAll({ env, out: () => {}, logLevel: 'silent' });
    try {
      expect(statSync(join(dataDir, 'audit-signing-key.pem')).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dataDir, 'audit-public-key.pem'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
      const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
      await createPlan(system.url, token);
      let result = await verify();
      for (let waited = 0; !/1 checkpoint\(s\)/.test(result.out) && waited < 10_000; waited += 250) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        result = await verify();
      }
      expect(result.code).toBe(0);
      expect(result.out).toMatch(/: ok, 1 entries \(1 rows, 0 tombstones, 0 purged\), 1 checkpoint\(s\)/);
      // The signatures were checked: with the data directory's public key, unasked.
      expect(result.err).toBe('');
    } finally {
      await system.close();
    }
    // A second start keeps the key pair.
    const before = readFileSync(join(dataDir, 'audit-public-key.pem'), 'utf8');
    const again = await startAll({ env, out: () => {}, logLevel: 'silent' });
    await again.close();
    expect(readFileSync(join(dataDir, 'audit-public-key.pem'), 'utf8')).toBe(before);
    expect(existsSync(join(dataDir, 'audit-signing-key.pem'))).toBe(true);
  }, 120_000);
});
