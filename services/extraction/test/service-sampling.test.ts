import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { extractionV1, mcpV1 } from '@quarry/contracts';
import { status } from '@quarry/grpc';
import { sourceHash, type SamplingContinuation } from '../src/index.js';
import { as, failure, storesNothing } from './support.js';
import {
  anthropicHttp,
  auto,
  org,
  request,
  SCHEMA,
  SOURCE,
  system,
  toolUse,
  useProviderSystem,
  VALID,
} from './service-providers-fixture.js';

// extract_data with the client's own model, through the sampling exchange the gateway drives,
// over gRPC against the real artifact store on real PostgreSQL. Every failure stores nothing.

useProviderSystem();

describe("sampling: the client's own model, through the gateway's round trips", () => {
  const offered = (answer?: mcpV1.SampledMessage, continuation: Buffer = Buffer.alloc(0)): mcpV1.ClientSampling => ({
    available: true,
    continuation,
    ...(answer ? { answer } : {}),
  });
  const answer = (text: string): mcpV1.SampledMessage => ({
    text,
    model: 'claude-client-model',
    stopReason: 'endTurn',
  });
  const continuationOf = (res: extractionV1.ExtractDataResponse) =>
    JSON.parse(res.samplingRequest!.continuation.toString('utf8')) as SamplingContinuation;

  it('round 1 asks the client model and stores nothing; round 2 with a valid answer stores it', async () => {
    let round1!: extractionV1.ExtractDataResponse;
    await storesNothing(system, async () => {
      round1 = await auto.call('extractData', request({ clientSampling: offered() }), as(org));
    });
    expect(anthropicHttp.requests).toHaveLength(0); // sampling first: no server-side model call
    expect(round1).toMatchObject({
      extractionId: '',
      provider: 'sampling',
      model: '',
      fields: [],
      fieldConfidences: {},
      status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_UNSPECIFIED,
    });
    expect(round1.modelUsage).toBeUndefined();
    const asked = round1.samplingRequest!;
    expect(asked).toMatchObject({ maxTokens: 4096, temperature: 0 });
    expect(asked.messages).toHaveLength(1);
    expect(asked.messages[0]!.role).toBe(mcpV1.SamplingRole.SAMPLING_ROLE_USER);
    expect(asked.messages[0]!.text).toContain(JSON.stringify(SCHEMA));
    expect(asked.messages[0]!.text).toContain(SOURCE);
    expect(continuationOf(round1)).toMatchObject({ v: 1, attempt: 1, sourceHash: sourceHash(SOURCE) });

    const done = await auto.call(
      'extractData',
      request({ clientSampling: offered(answer(`\`\`\`json\n${JSON.stringify(VALID)}\n\`\`\``), asked.continuation) }),
      as(org),
    );
    expect(done).toMatchObject({
      data: VALID,
      provider: 'sampling',
      model: 'claude-client-model',
      status: extractionV1.ExtractionStatus.EXTRACTION_STATUS_COMPLETED,
      modelUsage: { provider: 'sampling', model: 'claude-client-model', inputTokens: 0, outputTokens: 0 },
    });
    expect(done.samplingRequest).toBeUndefined();
    expect(await system.row(done.extractionId)).toMatchObject({
      provider: 'sampling',
      model: 'claude-client-model',
      input_tokens: null,
      output_tokens: null,
      source_text: SOURCE,
    });
    expect(await system.events(done.extractionId)).toHaveLength(1);
  });

  it('an invalid answer gets a repair request; invalid again is EXTRACTION_INVALID; nothing is stored on the way', async () => {
    await storesNothing(system, async () => {
      const round1 = await auto.call('extractData', request({ clientSampling: offered() }), as(org));
      const round2 = await auto.call(
        'extractData',
        request({ clientSampling: offered(answer('{"title": "Moby-Dick"}'), round1.samplingRequest!.continuation) }),
        as(org),
      );
      const repair = round2.samplingRequest!;
      expect(round2.extractionId).toBe('');
      expect(continuationOf(round2)).toEqual({ ...continuationOf(round1), attempt: 2 });
      expect(repair.messages.map((m) => m.role)).toEqual([
        mcpV1.SamplingRole.SAMPLING_ROLE_USER,
        mcpV1.SamplingRole.SAMPLING_ROLE_ASSISTANT,
        mcpV1.SamplingRole.SAMPLING_ROLE_USER,
      ]);
      expect(repair.messages[2]!.text).toContain("- (root) must have required property 'year'");

      const error = await failure(
        auto.call(
          'extractData',
          request({ clientSampling: offered(answer('{"title": "Moby-Dick", "year": "1851"}'), repair.continuation) }),
          as(org),
        ),
      );
      expect([error.code, error.status]).toEqual(['EXTRACTION_INVALID', status.FAILED_PRECONDITION]);
      expect(error.message).toBe(
        'The extracted data does not match the schema after one repair round: /year must be integer.',
      );
      expect(error.details).toMatchObject({
        modelUsage: { provider: 'sampling', model: 'claude-client-model', inputTokens: 0, outputTokens: 0 },
      });
    });
  });

  it('an answer without JSON after the repair request is SAMPLING_FAILED', async () => {
    await storesNothing(system, async () => {
      const round1 = await auto.call('extractData', request({ clientSampling: offered() }), as(org));
      const round2 = await auto.call(
        'extractData',
        request({
          clientSampling: offered(answer('Sorry, I cannot help with that.'), round1.samplingRequest!.continuation),
        }),
        as(org),
      );
      const error = await failure(
        auto.call(
          'extractData',
          request({ clientSampling: offered(answer(''), round2.samplingRequest!.continuation) }),
          as(org),
        ),
      );
      expect([error.code, error.status, error.message]).toEqual([
        'SAMPLING_FAILED',
        status.FAILED_PRECONDITION,
        "The client's model gave no usable answer, also after a repair request: the answer is empty.",
      ]);
    });
  });

  it('an answer for another source text is refused', async () => {
    await storesNothing(system, async () => {
      const round1 = await auto.call('extractData', request({ clientSampling: offered() }), as(org));
      const other = request({
        source: { $case: 'sourceText', sourceText: 'Another book, 1900.' },
        clientSampling: offered(answer(JSON.stringify(VALID)), round1.samplingRequest!.continuation),
      });
      const error = await failure(auto.call('extractData', other, as(org)));
      expect([error.code, error.message]).toEqual([
        'INVALID_ARGUMENT',
        '`clientSampling.continuation` is not valid: the sampling continuation does not belong to this call.',
      ]);
    });
  });

  it('works from a stored artifact too, storing the artifact as the source', async () => {
    const artifactId = await system.storeArtifact(org, SOURCE);
    const source = { $case: 'sourceArtifactId' as const, sourceArtifactId: artifactId };
    const round1 = await auto.call('extractData', request({ source, clientSampling: offered() }), as(org));
    const done = await auto.call(
      'extractData',
      request({ source, clientSampling: offered(answer(JSON.stringify(VALID)), round1.samplingRequest!.continuation) }),
      as(org),
    );
    expect(await system.row(done.extractionId)).toMatchObject({
      provider: 'sampling',
      source_artifact_id: artifactId,
      source_text: null,
    });
  });

  it('an unknown plan or step is refused before the client is asked to sample', async () => {
    const mine = await system.createPlan(org);
    const theirs = await system.createPlan(randomUUID());
    for (const [target, code] of [
      [{ planId: randomUUID() }, 'PLAN_NOT_FOUND'],
      [{ planId: theirs.planId, stepId: theirs.stepId }, 'PLAN_NOT_FOUND'],
      [{ planId: mine.planId, stepId: randomUUID() }, 'STEP_NOT_FOUND'],
    ] as const) {
      await storesNothing(system, async () => {
        expect(
          (await failure(auto.call('extractData', request({ clientSampling: offered(), ...target }), as(org)))).code,
        ).toBe(code);
      });
    }
    const asked = await auto.call(
      'extractData',
      request({ clientSampling: offered(), planId: mine.planId, stepId: mine.stepId }),
      as(org),
    );
    expect(asked.samplingRequest).toBeDefined();
  });

  it('a client that cannot sample gets the configured API provider instead', async () => {
    anthropicHttp.reply('/v1/messages', { status: 200, body: toolUse(VALID, { input_tokens: 10, output_tokens: 5 }) });
    const res = await auto.call(
      'extractData',
      request({ clientSampling: { available: false, continuation: Buffer.alloc(0) } }),
      as(org),
    );
    expect(res.provider).toBe('anthropic');
  });
});
