import { describe, expect, it } from '@jest/globals';
import { ANTHROPIC_DEFAULT_MODEL, HEURISTIC_MODEL, loadExtractionConfig, providersFromConfig } from '../src/index.js';
import { mockHttp } from './providers-http.js';

// The service's environment: defaults, fail-fast for an explicit provider that cannot work, and
// the providers a configuration builds.

const base = {
  QUARRY_IDENTITY_KEY: 'k'.repeat(32),
  ARTIFACT_STORE_ADDRESS: '127.0.0.1:50052',
  DATABASE_URL: 'postgres://quarry_app:secret@127.0.0.1:5432/quarry',
};

describe('loadExtractionConfig', () => {
  it('has defaults for everything but the identity key and the artifact store', () => {
    const config = loadExtractionConfig(base);
    expect(config).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 50054,
      EXTRACTION_PROVIDER: 'auto',
      ANTHROPIC_MODEL: ANTHROPIC_DEFAULT_MODEL,
      EXTRACTION_TIMEOUT: 60_000,
      EXTRACTION_MAX_TOKENS: 4096,
      EXTRACTION_SAMPLING: true,
      LOG_LEVEL: 'info',
    });
    expect(config.ANTHROPIC_API_KEY).toBeUndefined();
    expect(config.OPENAI_MODEL).toBeUndefined();
    expect(() => loadExtractionConfig({})).toThrow(/QUARRY_IDENTITY_KEY[\s\S]*ARTIFACT_STORE_ADDRESS/);
  });

  it('reads durations, booleans and numbers', () => {
    const config = loadExtractionConfig({
      ...base,
      EXTRACTION_TIMEOUT: '90s',
      EXTRACTION_SAMPLING: 'false',
      EXTRACTION_MAX_TOKENS: '2048',
      PORT: '7000',
    });
    expect([config.EXTRACTION_TIMEOUT, config.EXTRACTION_SAMPLING, config.EXTRACTION_MAX_TOKENS, config.PORT]).toEqual([
      90_000,
      false,
      2048,
      7000,
    ]);
    expect(() => loadExtractionConfig({ ...base, EXTRACTION_TIMEOUT: 'soon' })).toThrow(/EXTRACTION_TIMEOUT/);
    expect(() => loadExtractionConfig({ ...base, EXTRACTION_TIMEOUT: '0s' })).toThrow(/EXTRACTION_TIMEOUT/);
    expect(() => loadExtractionConfig({ ...base, EXTRACTION_MAX_TOKENS: '0' })).toThrow(/EXTRACTION_MAX_TOKENS/);
    expect(() => loadExtractionConfig({ ...base, EXTRACTION_PROVIDER: 'gemini' })).toThrow(/EXTRACTION_PROVIDER/);
    expect(() => loadExtractionConfig({ ...base, OPENAI_BASE_URL: 'localhost:11434' })).toThrow(/OPENAI_BASE_URL/);
  });

  it('fails fast, naming the variable, when an explicit provider cannot work', () => {
    expect(() => loadExtractionConfig({ ...base, EXTRACTION_PROVIDER: 'anthropic' })).toThrow(
      /ANTHROPIC_API_KEY: is required when EXTRACTION_PROVIDER=anthropic/,
    );
    expect(() => loadExtractionConfig({ ...base, EXTRACTION_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-x' })).toThrow(
      /OPENAI_MODEL: is required when EXTRACTION_PROVIDER=openai/,
    );
    expect(() =>
      loadExtractionConfig({ ...base, EXTRACTION_PROVIDER: 'sampling', EXTRACTION_SAMPLING: 'false' }),
    ).toThrow(/EXTRACTION_SAMPLING/);
    expect(
      loadExtractionConfig({ ...base, EXTRACTION_PROVIDER: 'openai', OPENAI_MODEL: 'qwen3:8b' }).OPENAI_MODEL,
    ).toBe('qwen3:8b');
  });

  it('never quotes a secret in its errors', () => {
    expect(() => loadExtractionConfig({ ...base, QUARRY_IDENTITY_KEY: 'short-secret-value' })).toThrow(
      /QUARRY_IDENTITY_KEY/,
    );
    expect(() => loadExtractionConfig({ ...base, QUARRY_IDENTITY_KEY: 'short-secret-value' })).not.toThrow(
      /short-secret-value/,
    );
  });
});

describe('providersFromConfig', () => {
  it('always has the heuristic; in auto, Anthropic with a key and OpenAI-compatible with a model', async () => {
    const none = providersFromConfig(loadExtractionConfig(base));
    expect(Object.keys(none)).toEqual(['heuristic']);
    expect(
      (
        await none.heuristic.extract({
          schema: { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
          sourceText: 'Email: a@b.io',
        })
      ).model,
    ).toBe(HEURISTIC_MODEL);

    const keyOnly = providersFromConfig(loadExtractionConfig({ ...base, OPENAI_API_KEY: 'sk-unrelated' }));
    expect(Object.keys(keyOnly)).toEqual(['heuristic']);

    const both = providersFromConfig(
      loadExtractionConfig({ ...base, ANTHROPIC_API_KEY: 'sk-ant-x', OPENAI_MODEL: 'gpt-5.1' }),
    );
    expect(Object.keys(both).sort()).toEqual(['anthropic', 'heuristic', 'openai']);
    expect(both.anthropic?.name).toBe('anthropic');
    expect(both.openai?.name).toBe('openai');
  });

  it('builds only the named provider when one is explicit', () => {
    const env = { ...base, ANTHROPIC_API_KEY: 'sk-ant-x', OPENAI_MODEL: 'gpt-5.1' };
    expect(
      Object.keys(providersFromConfig(loadExtractionConfig({ ...env, EXTRACTION_PROVIDER: 'openai' }))).sort(),
    ).toEqual(['heuristic', 'openai']);
    expect(
      Object.keys(providersFromConfig(loadExtractionConfig({ ...env, EXTRACTION_PROVIDER: 'heuristic' }))),
    ).toEqual(['heuristic']);
  });

  it('passes model, base URL, key and max tokens to the provider', async () => {
    const http = mockHttp('http://llm.internal:8000');
    try {
      http.reply('/v1/chat/completions', {
        status: 200,
        body: {
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model: 'qwen3:8b',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: '{"email":"a@b.io"}' } }],
        },
      });
      const config = loadExtractionConfig({
        ...base,
        EXTRACTION_PROVIDER: 'openai',
        OPENAI_MODEL: 'qwen3:8b',
        OPENAI_BASE_URL: 'http://llm.internal:8000/v1',
        OPENAI_API_KEY: 'local-key-123',
        EXTRACTION_MAX_TOKENS: '321',
      });
      const answer = await providersFromConfig(config, { fetch: http.fetch }).openai!.extract({
        schema: { type: 'object', properties: { email: { type: 'string' } } },
        sourceText: 'Email: a@b.io',
      });
      expect(answer.data).toEqual({ email: 'a@b.io' });
      const sent = http.requests[0]!;
      expect(sent.headers['authorization']).toBe('Bearer local-key-123');
      expect(sent.body).toMatchObject({ model: 'qwen3:8b', max_tokens: 321 });
    } finally {
      await http.close();
    }
  });
});
