// Cost of a unary call by transport, run with `npm run bench` (not part of `npm test`: timings
// vary): the raw client (the gateway's) to the echo server over grpc-js and in process, client
// and server in this one process, so the CPU figure is the whole call's; and what the generated
// codec costs of a plan read (the reason the in-process transport keeps encoding, ADR 0053).
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { planV1 } from '@quarry/contracts';
import { createRawClient, type RawClient } from '../../src/index.js';
import { alice, gatewaySigner, startEcho, type EchoFixture } from '../fixtures/echo.js';
import { echoMethod } from '../raw-client-support.js';

const N = 5_000;
const CONCURRENCY = 16;
const results: string[] = [];
let echo: EchoFixture;

beforeAll(async () => {
  echo = await startEcho();
});

afterAll(async () => {
  await echo.close();
  process.stdout.write(`\n${results.join('\n')}\n`);
});

/** Wall and CPU time per call of `n` calls, `concurrency` at a time, after a warm-up. */
async function perCall(label: string, concurrency: number, fn: () => Promise<unknown>) {
  const run = async (n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < n) await fn();
      }),
    );
  };
  await run(1_000);
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await run(N);
  const wall = Number(process.hrtime.bigint() - start) / N / 1_000;
  const used = process.cpuUsage(cpu);
  const cpuMicros = (used.user + used.system) / N;
  results.push(
    `${label.padEnd(44)} ${wall.toFixed(1).padStart(7)} µs/call  ${cpuMicros.toFixed(1).padStart(7)} µs CPU/call`,
  );
  return { wall, cpu: cpuMicros };
}

/** CPU per call over grpc-js, 16 at a time: what the codec's cost is held against. */
let grpcJsCpu = Infinity;
const request = echoMethod.requestSerialize({ text: 'a plan read is about this big '.repeat(8) });

it('a call in process costs a fraction of one over loopback HTTP/2', async () => {
  const clients: Record<string, RawClient> = {
    'grpc-js': createRawClient(echo.address, { signer: gatewaySigner() }),
    'in-process': createRawClient(echo.grpc.inProcess, { signer: gatewaySigner() }),
  };
  const cost: Record<string, { wall: number; cpu: number }> = {};
  for (const concurrency of [1, CONCURRENCY]) {
    for (const [name, client] of Object.entries(clients)) {
      cost[`${name}/${concurrency}`] = await perCall(`${name}, ${concurrency} at a time`, concurrency, () =>
        client.unary(echoMethod.path, request, { identity: alice }),
      );
    }
  }
  for (const client of Object.values(clients)) client.close();
  grpcJsCpu = cost[`grpc-js/${CONCURRENCY}`]!.cpu;
  expect(cost[`in-process/${CONCURRENCY}`]!.cpu * 2).toBeLessThan(cost[`grpc-js/${CONCURRENCY}`]!.cpu);
});

it('the codec of a plan read costs a small part of the hop the in-process transport saves', () => {
  const response = planV1.GetPlanStatusResponse.fromPartial({
    planId: '0b6f4d3e-8a55-4b8e-9a53-4a1f2bde9c11',
    name: 'Benchmark plan',
    status: planV1.PlanStatus.PLAN_STATUS_EXECUTING,
    derivedStatus: planV1.PlanStatus.PLAN_STATUS_EXECUTING,
    progress: 50,
    totalSteps: 20,
    currentStep: {
      stepId: '7c1e2f7a-3b9d-4e2a-8f61-0d3c5b7a9e42',
      instructions: 'Step 11: do the work and report sources.',
    },
  });
  const { getPlanStatus } = planV1.PlanServiceService;
  const req = { planId: response.planId };
  const roundTrip = () => {
    getPlanStatus.requestDeserialize(getPlanStatus.requestSerialize(req));
    getPlanStatus.responseDeserialize(getPlanStatus.responseSerialize(response));
  };
  for (let i = 0; i < 2_000; i++) roundTrip();
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) roundTrip();
  const wall = Number(process.hrtime.bigint() - start) / N / 1_000;
  const used = process.cpuUsage(cpu);
  const cpuMicros = (used.user + used.system) / N;
  results.push(
    `${'codec: GetPlanStatus request + response'.padEnd(44)} ${wall.toFixed(1).padStart(7)} µs/call  ${cpuMicros.toFixed(1).padStart(7)} µs CPU/call`,
  );
  // Encoding both ways in process costs a small part of what the HTTP/2 hop it replaces did.
  expect(Number.isFinite(grpcJsCpu)).toBe(true);
  expect(cpuMicros * 10).toBeLessThan(grpcJsCpu);
});
