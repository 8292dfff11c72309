// Cost of the identity hop, run with `npm run bench` (not part of `npm test`: timings vary).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createGrpcClient, createIdentitySigner, createIdentityVerifier, type GrpcClient } from '../../src/index.js';
import {
  alice,
  EchoServiceClient,
  EchoServiceService,
  gatewaySigner,
  KEY,
  startEcho,
  type EchoFixture,
} from '../fixtures/echo.js';

const N = 20_000;
const results: string[] = [];

async function perCall(label: string, n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(n, 2_000); i++) await fn(i); // warm up
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i);
  const micros = Number(process.hrtime.bigint() - start) / n / 1_000;
  results.push(`${label.padEnd(44)} ${micros.toFixed(1).padStart(8)} µs/call`);
  return micros;
}

afterAll(() => {
  process.stdout.write(`\n${results.join('\n')}\n`);
});

it('a cached signature is far cheaper than signing', async () => {
  const signer = createIdentitySigner({ key: KEY, issuer: 'gateway' });
  const signed = await perCall('sign (new principal every call)', N, (i) =>
    signer.sign({ ...alice, tokenId: `t${i}` }),
  );
  const cached = await perCall('sign (cached, same principal)', N, () => signer.sign(alice));
  expect(cached * 5).toBeLessThan(signed);
});

it('a repeated token is far cheaper to verify than a new one', async () => {
  const signer = createIdentitySigner({ key: KEY, issuer: 'gateway' });
  const tokens = await Promise.all(
    Array.from({ length: N + 2_000 }, (_, i) => signer.sign({ ...alice, tokenId: `v${i}` })),
  );
  const verifier = createIdentityVerifier({ key: KEY });
  const fresh = await perCall('verify (new token every call)', N, (i) => verifier.verify(tokens[i]!));
  const again = await perCall('verify (token seen before)', N, (i) => verifier.verify(tokens[i % 100]!));
  expect(again * 5).toBeLessThan(fresh);
});

describe('a unary call over loopback', () => {
  let echo: EchoFixture;
  let client: GrpcClient<typeof EchoServiceService>;

  beforeAll(async () => {
    echo = await startEcho();
    client = createGrpcClient(EchoServiceClient, echo.address, { signer: gatewaySigner() });
  });

  afterAll(async () => {
    client.close();
    await echo.close();
  });

  it('costs well under a millisecond', async () => {
    const samples: number[] = [];
    const timed = async () => {
      const start = process.hrtime.bigint();
      await client.call('echo', { text: 'x' }, { identity: alice });
      samples.push(Number(process.hrtime.bigint() - start) / 1_000);
    };
    await perCall('echo call, sequential (mean)', 5_000, timed);
    samples.sort((a, b) => a - b);
    const at = (q: number) => samples[Math.floor(q * (samples.length - 1))]!.toFixed(0);
    results.push(`echo call p50 / p99 (last 5000)                ${at(0.5)} / ${at(0.99)} µs`);
    echo.calls.length = 0;
    expect(Number(at(0.5))).toBeLessThan(1_000);
  });
});
