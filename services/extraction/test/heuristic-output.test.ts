import { describe, expect, it } from '@jest/globals';
import { createHeuristicProvider, guardSchema, HEURISTIC_MODEL, scoreFields } from '../src/index.js';
import { extract, obj } from './heuristic-schema.js';

// What the offline extractor answers: nothing guessed, output the schema accepts, the same answer
// every time, confidences through the scorer, and a source text at the size limit in time.

describe('heuristic extractor: no guessing, valid output', () => {
  it('leaves out what it cannot find, and sets required nullable fields to null', () => {
    const schema = obj(
      {
        title: { type: 'string' },
        budget: { type: 'number' },
        owner: { type: ['string', 'null'] },
        notes: { type: ['string', 'null'] },
      },
      ['owner'],
    );
    const answer = extract(schema, 'Nothing of the kind is said here, in a sentence that ends.');
    expect(answer.data).toEqual({ owner: null });
  });

  it('drops values the schema rejects, keeping the rest', async () => {
    const schema = obj({
      code: { type: 'string', pattern: '^[A-Z]{3}-\\d{3}$' },
      count: { type: 'integer', maximum: 10 },
      cardLastFour: { type: 'string', pattern: '^\\d{4}$' },
      tags: { type: 'array', items: { type: 'string', maxLength: 5 } },
    });
    const answer = extract(schema, 'Code: abc\nCount: 12\nCard: Visa ending 4421\nTags: short, muchtoolong, ok');
    expect(answer.data).toEqual({ cardLastFour: '4421', tags: ['short', 'ok'] });
    const { validate } = await guardSchema(schema);
    expect(validate(answer.data)).toEqual({ valid: true });
  });

  it('is deterministic', () => {
    const schema = obj({ a: { type: 'string', format: 'date' }, b: { type: 'number' } });
    const text = 'A: 2024-01-02\nB: 3';
    expect(extract(schema, text)).toEqual(extract(schema, text));
  });

  it('is an ExtractionProvider named heuristic, model heuristic-v1, that honours an aborted signal', async () => {
    const provider = createHeuristicProvider();
    expect(provider.name).toBe('heuristic');
    const answer = await provider.extract({ schema: obj({ total: { type: 'number' } }), sourceText: 'Total: 12' });
    expect(answer).toEqual({ data: { total: 12 }, model: HEURISTIC_MODEL, fieldConfidences: { '/total': 0.9 } });
    expect(HEURISTIC_MODEL).toBe('heuristic-v1');
    await expect(
      provider.extract(
        { schema: obj({ total: { type: 'number' } }), sourceText: 'Total: 12' },
        { signal: AbortSignal.abort() },
      ),
    ).rejects.toThrow();
  });

  it('reports low confidence for what it found but cannot ground well, through the scorer', () => {
    const schema = obj(
      { date: { type: 'string', format: 'date' }, total: { type: 'number' }, speaker: { type: 'string' } },
      ['date', 'total'],
    );
    const text = 'See you on 05/03/2024.\nTotal: 12\nOur speaker is Dr. Helen Okoye.';
    const answer = extract(schema, text);
    expect(answer.data).toEqual({ date: '2024-03-05', total: 12, speaker: 'Dr. Helen Okoye' });
    const scores = scoreFields(answer.data, schema, text, answer.fieldConfidences);
    expect(scores.fieldConfidences).toEqual({
      '/date': 0.5, // grounded through an ambiguous dd/mm date (0.7); the only date in the text (0.5): min
      '/total': 0.9, // labelled line, label matched exactly
      '/speaker': 0.5, // proper name after the label in prose
    });
    expect(scores.overallConfidence).toBe(0.7);
  });
});

describe('heuristic extractor: large input', () => {
  it('handles a source text at the size limit within a few seconds', () => {
    const filler = 'The committee discussed the quarterly figures and the renovation of the east wing at length. ';
    const text = `${'Invoice No.: INV-1\nTotal: $1,200.00\n'}${filler.repeat(2150)}\nThe next review is scheduled for July 1, 2024.`;
    expect(text.length).toBeGreaterThan(200_000);
    const schema = obj({
      invoiceNumber: { type: 'string' },
      total: { type: 'number' },
      nextReview: { type: 'string', format: 'date' },
      speaker: { type: 'string' },
      remote: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
    });
    const started = performance.now();
    const answer = extract(schema, text);
    const scores = scoreFields(answer.data, schema, text, answer.fieldConfidences);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(answer.data).toEqual({ invoiceNumber: 'INV-1', total: 1200, nextReview: '2024-07-01' });
    expect(scores.overallConfidence).toBeGreaterThan(0.6);
  });
});
