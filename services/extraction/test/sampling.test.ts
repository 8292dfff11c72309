import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mcpV1 } from '@quarry/contracts';
import { QuarryError } from '@quarry/grpc';
import {
  buildSystemPrompt,
  CLIENT_MODEL_FALLBACK,
  decodeContinuation,
  encodeContinuation,
  ExtractionInvalidError,
  firstJsonObject,
  guardSchema,
  readAnswer,
  samplingRound,
  sourceHash,
  stopCompileProbe,
  type GuardedSchema,
  type SamplingContinuation,
  type SamplingRoundInput,
  type SamplingStep,
} from '../src/index.js';

// The sampling exchange, pure: what the service asks the client's model, how the continuation
// ties an answer to its call, how an answer's JSON is found, and the repair round.

const schema = {
  type: 'object',
  properties: { title: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
  additionalProperties: false,
};
const sourceText = 'Moby-Dick; or, The Whale. Published 1851.';
const NONCE = 'nonce0123456789abcdef';
let guarded: GuardedSchema;

beforeAll(async () => {
  guarded = await guardSchema(schema);
});
afterAll(async () => {
  await stopCompileProbe();
});

const noSampling = (): mcpV1.ClientSampling => ({ available: true, continuation: Buffer.alloc(0) });
const answered = (
  text: string,
  continuation: Buffer,
  model = 'claude-client',
  stopReason = 'endTurn',
): mcpV1.ClientSampling => ({
  available: true,
  answer: { text, model, stopReason },
  continuation,
});

function round(clientSampling: mcpV1.ClientSampling, over: Partial<SamplingRoundInput> = {}): SamplingStep {
  return samplingRound({
    request: { schema, sourceText },
    schemaHash: guarded.hash,
    validate: guarded.validate,
    clientSampling,
    maxTokens: 4096,
    newNonce: () => NONCE,
    ...over,
  });
}

function asked(step: SamplingStep) {
  if (step.kind !== 'ask') throw new Error(`expected a sampling request, got ${step.kind}`);
  const request = step.samplingRequest;
  return { request, continuation: JSON.parse(request.continuation.toString('utf8')) as SamplingContinuation };
}

const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

describe('round 1: the request for the client model', () => {
  it('is the shared extraction prompt with the schema stated, temperature 0, and a continuation for attempt 1', () => {
    const { request, continuation } = asked(round(noSampling()));
    expect(request.systemPrompt).toBe(buildSystemPrompt(NONCE));
    expect(request.messages).toHaveLength(1);
    expect(request.messages[0]!.role).toBe(mcpV1.SamplingRole.SAMPLING_ROLE_USER);
    expect(request.messages[0]!.text).toContain(`JSON Schema of the answer:\n${JSON.stringify(schema)}`);
    expect(request.messages[0]!.text).toContain(`<source_document id="${NONCE}">\n${sourceText}\n</source_document>`);
    expect([request.maxTokens, request.temperature]).toEqual([4096, 0]);
    expect(continuation).toEqual({
      v: 1,
      attempt: 1,
      nonce: NONCE,
      schemaHash: guarded.hash,
      sourceHash: sourceHash(sourceText),
    });
  });

  it('uses a fresh random nonce for every new exchange', () => {
    const a = asked(
      samplingRound({
        request: { schema, sourceText },
        schemaHash: guarded.hash,
        validate: guarded.validate,
        clientSampling: noSampling(),
        maxTokens: 10,
      }),
    );
    const b = asked(
      samplingRound({
        request: { schema, sourceText },
        schemaHash: guarded.hash,
        validate: guarded.validate,
        clientSampling: noSampling(),
        maxTokens: 10,
      }),
    );
    expect(a.continuation.nonce).toMatch(/^[0-9a-f]{24}$/);
    expect(a.continuation.nonce).not.toBe(b.continuation.nonce);
  });
});

describe('round 2: the answer', () => {
  const first = () => asked(round(noSampling())).request.continuation;

  it('a valid answer is the data, with the model the client named', () => {
    expect(round(answered('{"title": "Moby-Dick", "year": 1851}', first()))).toEqual({
      kind: 'answered',
      data: { title: 'Moby-Dick', year: 1851 },
      model: 'claude-client',
      attempts: 1,
    });
    expect(round(answered('{"title": "Moby-Dick", "year": 1851}', first(), '  '))).toMatchObject({
      model: CLIENT_MODEL_FALLBACK,
    });
    expect(round(answered('{"title": "Moby-Dick", "year": 1851}', first(), 'm'.repeat(300)))).toMatchObject({
      model: 'm'.repeat(200),
    });
  });

  it('an invalid answer gets the repair conversation, same nonce, attempt 2', () => {
    const { request, continuation } = asked(
      round(answered('```json\n{"title": "Moby-Dick", "year": "1851"}\n```', first())),
    );
    expect(continuation).toEqual({
      v: 1,
      attempt: 2,
      nonce: NONCE,
      schemaHash: guarded.hash,
      sourceHash: sourceHash(sourceText),
    });
    expect(request.messages.map((m) => m.role)).toEqual([
      mcpV1.SamplingRole.SAMPLING_ROLE_USER,
      mcpV1.SamplingRole.SAMPLING_ROLE_ASSISTANT,
      mcpV1.SamplingRole.SAMPLING_ROLE_USER,
    ]);
    expect(request.messages[1]!.text).toBe('{"title":"Moby-Dick","year":"1851"}');
    expect(request.messages[2]!.text).toContain('- /year must be integer');
    expect(request.systemPrompt).toBe(buildSystemPrompt(NONCE));
  });

  it('an answer without JSON gets the repair conversation too, quoting what it said', () => {
    const { request, continuation } = asked(round(answered('I could not find a year in this text.', first())));
    expect(continuation.attempt).toBe(2);
    expect(request.messages[1]!.text).toBe('"I could not find a year in this text."');
    expect(request.messages[2]!.text).toContain('the answer contains no complete JSON object');
    const cut = asked(round(answered('{"title": "Moby', first(), 'm', 'maxTokens'))).request;
    expect(cut.messages[2]!.text).toContain('it stopped at the token limit');
  });

  it('the answer to the repair request: valid → data; invalid → EXTRACTION_INVALID; no JSON → SAMPLING_FAILED', () => {
    const second = asked(round(answered('{"title": "Moby-Dick"}', first()))).request.continuation;
    expect(round(answered('Here you go: {"title": "Moby-Dick", "year": 1851} Hope it helps.', second))).toMatchObject({
      kind: 'answered',
      attempts: 2,
    });

    const invalid = thrown(() => round(answered('{"title": "Moby-Dick"}', second)));
    expect(invalid).toBeInstanceOf(ExtractionInvalidError);
    expect((invalid as ExtractionInvalidError).message).toBe(
      "The extracted data does not match the schema after one repair round: (root) must have required property 'year'.",
    );

    const empty = thrown(() => round(answered('   ', second)));
    expect(empty).toBeInstanceOf(QuarryError);
    expect([(empty as QuarryError).code, (empty as QuarryError).message]).toEqual([
      'SAMPLING_FAILED',
      "The client's model gave no usable answer, also after a repair request: the answer is empty.",
    ]);
  });
});

describe('the continuation', () => {
  const good = (): SamplingContinuation => ({
    v: 1,
    attempt: 1,
    nonce: NONCE,
    schemaHash: guarded.hash,
    sourceHash: sourceHash(sourceText),
  });
  const expected = () => ({ schemaHash: guarded.hash, sourceHash: sourceHash(sourceText) });

  it('round-trips', () => {
    const c = good();
    expect(decodeContinuation(encodeContinuation(c), expected())).toEqual(c);
  });

  it.each([
    ['empty', Buffer.alloc(0)],
    ['not JSON', Buffer.from('not json')],
    ['JSON but not an object', Buffer.from('42')],
    ['another version', () => encodeContinuation({ ...good(), v: 2 as 1 })],
    ['attempt 3', () => encodeContinuation({ ...good(), attempt: 3 as 1 })],
    ['a bad nonce', () => encodeContinuation({ ...good(), nonce: '<x>' })],
    ['another schema', () => encodeContinuation({ ...good(), schemaHash: 'f'.repeat(64) })],
    ['another source', () => encodeContinuation({ ...good(), sourceHash: sourceHash('other text') })],
    ['too long', Buffer.alloc(5000, 32)],
  ])('%s → INVALID_ARGUMENT', (_what, bytes) => {
    const error = thrown(() =>
      decodeContinuation(typeof bytes === 'function' ? bytes() : bytes, expected()),
    ) as QuarryError;
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('the sampling continuation does not belong to this call');
  });

  it('an answer for another source is refused before it is read', () => {
    const continuation = asked(round(noSampling(), { request: { schema, sourceText: 'Another text.' } })).request
      .continuation;
    expect(
      (thrown(() => round(answered('{"title": "Moby-Dick", "year": 1851}', continuation))) as QuarryError).code,
    ).toBe('INVALID_ARGUMENT');
    expect(
      (thrown(() => round(answered('{"title": "Moby-Dick", "year": 1851}', Buffer.alloc(0)))) as QuarryError).code,
    ).toBe('INVALID_ARGUMENT');
  });
});

describe('finding the JSON in an answer', () => {
  it.each([
    ['{"a": 1}', { a: 1 }],
    ['```json\n{"a": 1}\n```', { a: 1 }],
    ['Sure! Here is the data:\n\n{"a": {"b": [1, 2, {"c": "}"}]}}\n\nLet me know.', { a: { b: [1, 2, { c: '}' }] } }],
    ['The {placeholder} is not JSON, this is: {"a": "x \\" { y"}', { a: 'x " { y' }],
    ['{"a": 1} and then {"b": 2}', { a: 1 }],
  ])('%j', (text, data) => {
    expect(firstJsonObject(text)).toEqual(data);
  });

  it.each([['no braces at all'], ['{"a": 1'], ['[1, 2, 3]'], ['{not json}'], ['']])('%j has none', (text) => {
    expect(firstJsonObject(text)).toBeUndefined();
  });

  it('reads an answer, or says why it cannot', () => {
    expect(readAnswer({ text: '{"a": 1}', model: '', stopReason: '' })).toEqual({ ok: true, data: { a: 1 } });
    expect(readAnswer({ text: '', model: '', stopReason: 'maxTokens' })).toEqual({
      ok: false,
      error: 'the answer is empty (it stopped at the token limit: answer more briefly)',
    });
    expect(readAnswer({ text: `{"a": "${'x'.repeat(600_000)}"}`, model: '', stopReason: '' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('longer than'),
    });
  });

  it('stays fast on hostile text (many unbalanced braces)', () => {
    const started = performance.now();
    expect(firstJsonObject('{'.repeat(200_000))).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
