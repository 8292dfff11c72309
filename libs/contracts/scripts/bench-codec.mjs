// Quick measurement of the tool codec, quoted in docs/adr/0002-proto-first-tool-catalogue.md.
// Usage (from libs/contracts): npm run build && node scripts/bench-codec.mjs
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDescriptorSet } from '../dist/catalogue/buf.js';
import { deriveCatalogue } from '../dist/catalogue/derive.js';
import { createToolCodec, descriptorSet, identityV1, planV1, toolCatalogue } from '../dist/index.js';

function perCall(fn, iterations) {
  for (let i = 0; i < Math.min(iterations, 20_000); i++) fn(); // warm up
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / iterations / 1000; // µs
}

function report(label, codec, args, responseBytes) {
  const requestBytes = codec.encodeRequest(args);
  const encode = perCall(() => codec.encodeRequest(args), 100_000);
  const decode = perCall(() => codec.decodeResponse(responseBytes), 100_000);
  console.log(
    `${label}: encodeRequest ${encode.toFixed(2)} µs, decodeResponse ${decode.toFixed(2)} µs (request ${requestBytes.length} B, response ${responseBytes.length} B)`,
  );
}

// ping, from the embedded catalogue.
const ping = toolCatalogue.find((tool) => tool.name === 'ping');
let started = performance.now();
const pingCodec = createToolCodec(ping);
console.log(`ping codec built (registry + Ajv compile) in ${(performance.now() - started).toFixed(1)} ms`);
const pingReply = identityV1.PingResponse.encode({
  message: 'Connected to Quarry as Ada Lovelace (ada@example.org).',
  orgSlug: 'default',
  userEmail: 'ada@example.org',
  userName: 'Ada Lovelace',
}).finish();
report('ping', pingCodec, {}, pingReply);
console.log(`embedded descriptor set: ${descriptorSet.length} B`);

// put_thing, from the test fixture: a 42-field message with every kind of field.
const dir = mkdtempSync(join(tmpdir(), 'quarry-bench-'));
cpSync(new URL('../test/fixtures/proto', import.meta.url), dir, { recursive: true });
cpSync(
  new URL('../../../proto/quarry/mcp/v1/options.proto', import.meta.url),
  join(dir, 'quarry/mcp/v1/options.proto'),
);
started = performance.now();
const fixtureSet = buildDescriptorSet(dir);
const tools = deriveCatalogue(fixtureSet);
console.log(`fixture: buf build + derive ${tools.length} tools in ${(performance.now() - started).toFixed(0)} ms`);
rmSync(dir, { recursive: true, force: true });
const putThing = tools.find((tool) => tool.name === 'put_thing');
const thing = {
  text: 'hello world',
  id: '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60',
  email: 'ada@example.org',
  url: 'https://example.org/a',
  when: '2024-05-01T12:00:00Z',
  flag: true,
  i32: 7,
  s32: -5,
  sf32: -6,
  u32: 42,
  f32: 4000000000,
  i64: -9007199254740991,
  s64: -3,
  sf64: 9007199254740991,
  u64: 9007199254740991,
  f64: 1,
  ratio: 0.5,
  score: -1.25,
  blob: 'aGVsbG8=',
  kind: 'deep_dive',
  note: 'a note',
  maybeKind: 'search',
  tags: ['ab', 'cd'],
  kinds: ['search', 'deep_dive'],
  counts: { a: 1, b: -2 },
  kindById: { 42: 'search', '-7': 'deep_dive' },
  tree: { name: 'root', kind: 'search', children: [{ name: 'leaf', kind: 'deep_dive', children: [] }] },
  inner: { value: 'v' },
  planId: 'p1',
  byIndex: 3,
  attributes: { nested: { list: [1, 'two', null, true] }, n: 1.5 },
  payload: ['any', { json: 1 }],
  items: [1, 'x'],
  at: '2024-05-01T12:00:00.123Z',
  timeout: '90s',
  label: 'label',
  big: 123456789012,
  legacy: 'old',
  customJSON: 'c',
};
started = performance.now();
const putCodec = createToolCodec(putThing, fixtureSet);
console.log(`put_thing codec built (registry + Ajv compile) in ${(performance.now() - started).toFixed(1)} ms`);
report('put_thing', putCodec, thing, putCodec.encodeRequest(thing));

// get_plan_status of a 20-step plan half done (what the system benchmark reads; ADR 0022).
const statusCodec = createToolCodec(toolCatalogue.find((tool) => tool.name === 'get_plan_status'));
const at = (second) => new Date(Date.parse('2026-11-22T10:00:00.123Z') + second * 1000);
const step = (i, done) => ({
  stepId: randomUUID(),
  stepOrder: i + 1,
  stepType: 1 + (i % 2),
  status: done ? 3 : 1,
  instructions: `Step ${i + 1}: do the work and report sources.`,
  confidence: done ? 0.9 : undefined,
  startedAt: done ? at(i) : undefined,
  completedAt: done ? at(i + 1) : undefined,
});
const statusReply = planV1.GetPlanStatusResponse.encode({
  planId: randomUUID(),
  name: 'Benchmark plan',
  status: 2,
  derivedStatus: 2,
  stalled: false,
  progress: 50,
  totalSteps: 20,
  completedSteps: Array.from({ length: 10 }, (_, i) => step(i, true)),
  pendingSteps: Array.from({ length: 10 }, (_, i) => step(i + 10, false)),
}).finish();
const decode = perCall(() => statusCodec.decodeResponse(statusReply), 50_000);
console.log(`get_plan_status result (${statusReply.length} B): decodeResponse ${decode.toFixed(1)} µs`);
