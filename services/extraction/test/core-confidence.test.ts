import { describe, expect, it } from '@jest/globals';
import {
  groundValue,
  labelPolarity,
  passageSimilarity,
  scoreFields,
  wordSimilarity,
  type JsonSchemaObject,
} from '../src/index.js';

const text = [
  'INVOICE INV-0042',
  'Issued: March 5, 2024',
  'Vendor: Acmé Corporation Ltd.',
  'Contact: billing@acme.example',
  'Total due: $1,200.00',
  'Discount: 45%',
  'Remote: yes',
  'Notes: Payment by bank transfer within thirty days of issue.',
  'This is a travel-friendly role.',
].join('\n');

const slice = (span?: { start: number; end: number }) => (span ? text.slice(span.start, span.end) : undefined);

describe('groundValue', () => {
  it('exact: the value as written, on word boundaries', () => {
    const g = groundValue('INV-0042', text);
    expect(g).toMatchObject({ kind: 'exact', weight: 1 });
    expect(slice(g.span)).toBe('INV-0042');
    expect(groundValue('INV-004', text).kind).not.toBe('exact'); // not inside a longer code
  });

  it('normalised: case, punctuation and diacritics ignored, span mapped back to the original', () => {
    const g = groundValue('acme corporation ltd', text);
    expect(g).toMatchObject({ kind: 'normalised', weight: 0.9 });
    expect(slice(g.span)).toBe('Acmé Corporation Ltd');
  });

  it('numeric: the same number written differently; percent as a fraction; exact when written the same', () => {
    const total = groundValue(1200, text);
    expect(total).toMatchObject({ kind: 'numeric', weight: 0.9 });
    expect(slice(total.span)).toBe('1,200.00');
    expect(groundValue('1200.00 USD', text)).toMatchObject({ kind: 'numeric', weight: 0.9 });
    expect(groundValue(45, text)).toMatchObject({ kind: 'exact', weight: 1 });
    expect(groundValue(0.45, text)).toMatchObject({ kind: 'numeric', weight: 0.9 });
    expect(groundValue(12, text).kind).toBe('none');
  });

  it('date: the same day in another format; an ambiguous dd/mm value grounds at a lower weight', () => {
    const g = groundValue('2024-03-05', text);
    expect(g).toMatchObject({ kind: 'date', weight: 0.9 });
    expect(slice(g.span)).toBe('March 5, 2024');
    expect(groundValue('05/03/2024', text)).toMatchObject({ kind: 'date', weight: 0.7 });
    expect(groundValue('2024-05-03', text).kind).toBe('none');
    // The text's date is the ambiguous one: either reading grounds, at the lower weight.
    expect(groundValue('2024-03-05', 'Due 05/03/2024.')).toMatchObject({ kind: 'date', weight: 0.7 });
    expect(groundValue('2024-05-03', 'Due 05/03/2024.')).toMatchObject({ kind: 'date', weight: 0.7 });
    expect(groundValue('2024-03-25', 'Due 03/25/2024.')).toMatchObject({ kind: 'date', weight: 0.9 });
  });

  it('fuzzy: a similar passage, weight 0.4–0.7 by similarity', () => {
    const corp = groundValue('Acme Corp', text);
    // acme = acme (1), corp abbreviates corporation (0.8): (1 + 0.8) / 2 = 0.9 → 0.4 + 0.3 × 0.15 / 0.25
    expect(corp.kind).toBe('fuzzy');
    expect(corp.similarity).toBeCloseTo(0.9, 10);
    expect(corp.weight).toBeCloseTo(0.58, 10);
    expect(slice(corp.span)).toBe('Acmé Corporation');
    const notes = groundValue('Payment by bank transfer within 30 days', text);
    // 6 of 7 words equal, "30" vs "thirty" nothing: 6/7
    expect(notes.similarity).toBeCloseTo(6 / 7, 10);
    expect(notes.weight).toBeCloseTo(0.4 + (0.3 * (6 / 7 - 0.75)) / 0.25, 10);
    expect(slice(notes.span)).toBe('Payment by bank transfer within thirty days');
  });

  it('none: nothing similar enough', () => {
    expect(groundValue('Globex', text)).toEqual({ kind: 'none', weight: 0.1 });
    expect(groundValue('', text)).toEqual({ kind: 'none', weight: 0.1 });
  });

  it('booleans: grounded by the sentence that mentions the label', () => {
    const yes = groundValue(true, text, { labels: ['isRemote'] });
    expect(yes).toMatchObject({ kind: 'normalised', weight: 0.9 });
    expect(slice(yes.span)).toBe('Remote: yes');
    expect(groundValue(false, text, { labels: ['remote'] }).kind).toBe('none');
    expect(groundValue(true, text, { labels: ['travel'] })).toMatchObject({ kind: 'fuzzy', weight: 0.5 });
    expect(groundValue(false, 'Travel: not required.', { labels: ['travel'] })).toMatchObject({
      kind: 'normalised',
      weight: 0.9,
    });
    expect(groundValue(true, text, { labels: ['parking'] }).kind).toBe('none');
    expect(groundValue(true, text).kind).toBe('none');
  });

  it('reads a boolean from the words next to the label, within its clause', () => {
    const sentence = 'Entry is free and no registration is required.';
    expect(labelPolarity(sentence, ['free']).map((e) => e.polarity)).toEqual(['mention']);
    expect(labelPolarity(sentence, ['registration']).map((e) => e.polarity)).toEqual(['false']);
    expect(
      labelPolarity('Pets allowed: No\nFurnished: Yes', ['petsAllowed', 'furnished']).map((e) => e.polarity),
    ).toEqual(['false', 'true']);
    expect(groundValue(false, sentence, { labels: ['registrationRequired'] }).kind).toBe('none'); // the phrase "registration required" is not in the text
  });

  it('enum values are also looked for as words', () => {
    expect(groundValue('full_time', 'Employment: Full-time', { enum: ['full_time', 'part_time'] })).toMatchObject({
      kind: 'normalised',
      weight: 0.9,
    });
  });
});

describe('word and passage similarity', () => {
  it('scores typos, abbreviations and missing words', () => {
    expect(wordSimilarity('john', 'jonh')).toBe(0.75);
    expect(wordSimilarity('corp', 'corporation')).toBe(0.8);
    expect(wordSimilarity('cat', 'dog')).toBe(0);
    expect(passageSimilarity(['john', 'smith'], ['jonh', 'smith'])).toBe(0.875);
    expect(passageSimilarity(['john', 'smith'], ['john', 'a', 'smith'])).toBeCloseTo(2 / 3, 10);
  });
});

const schema: JsonSchemaObject = {
  type: 'object',
  properties: {
    invoiceNumber: { type: 'string' },
    issueDate: { type: 'string', format: 'date' },
    vendor: { $ref: '#/$defs/party' },
    customer: { $ref: '#/$defs/party' },
    total: { type: 'number' },
    tags: { type: 'array', items: { type: 'string' } },
    remote: { type: 'boolean' },
    po: { type: ['string', 'null'] },
    notes: { type: ['string', 'null'] },
  },
  required: ['invoiceNumber', 'issueDate', 'total', 'customer'],
  $defs: {
    party: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' } }, required: ['name'] },
  },
};

const data = {
  invoiceNumber: 'INV-0042', // exact 1.0
  issueDate: '2024-03-05', // date 0.9
  vendor: { name: 'Acme Corp', email: 'billing@acme.example' }, // fuzzy 0.58, exact 1.0 → 0.79
  total: 1200, // numeric 0.9
  tags: ['bank transfer', 'wire'], // exact 1.0, none 0.1 → 0.55
  remote: true, // normalised 0.9
  po: null, // "po" is not mentioned → 0.5
  notes: null, // "notes" is mentioned → 0.2
};

describe('scoreFields', () => {
  it('scores every leaf by grounding, aggregates arrays and objects, and the required fields overall', () => {
    const scores = scoreFields(data, schema, text);
    expect(scores.fieldConfidences).toEqual({
      '/invoiceNumber': 1,
      '/issueDate': 0.9,
      '/vendor/name': 0.58,
      '/vendor/email': 1,
      '/vendor': 0.79,
      '/total': 0.9,
      '/tags/0': 1,
      '/tags/1': 0.1,
      '/tags': 0.55,
      '/remote': 0.9,
      '/po': 0.5,
      '/notes': 0.2,
      '/customer': 0,
    });
    // Required: invoiceNumber 1, issueDate 0.9, total 0.9, customer missing 0 → 2.8 / 4
    expect(scores.overallConfidence).toBe(0.7);
    expect(slice(scores.spans['/issueDate'])).toBe('March 5, 2024');
    expect(slice(scores.spans['/vendor/name'])).toBe('Acmé Corporation');
    expect(scores.spans['/tags/1']).toBeUndefined();
    expect(scores.fields.map((f) => [f.path, f.grounding])).toEqual([
      ['/invoiceNumber', 'exact'],
      ['/issueDate', 'date'],
      ['/vendor/name', 'fuzzy'],
      ['/vendor/email', 'exact'],
      ['/total', 'numeric'],
      ['/tags/0', 'exact'],
      ['/tags/1', 'none'],
      ['/remote', 'normalised'],
      ['/po', 'none'],
      ['/notes', 'none'],
    ]);
  });

  it("takes the provider's confidence as a cap (min), from the field or its nearest ancestor", () => {
    const scores = scoreFields(data, schema, text, { '/total': 0.6, '/vendor': 0.5, '/tags/1': 1 });
    expect(scores.fieldConfidences['/total']).toBe(0.6);
    expect(scores.fieldConfidences['/vendor/name']).toBe(0.5);
    expect(scores.fieldConfidences['/vendor/email']).toBe(0.5);
    expect(scores.fieldConfidences['/vendor']).toBe(0.5);
    // An ungrounded value stays at 0.1 however sure the provider is.
    expect(scores.fieldConfidences['/tags/1']).toBe(0.1);
    expect(scores.overallConfidence).toBe(0.625); // (1 + 0.9 + 0.6 + 0) / 4
  });

  it('zeroes fields the validator rejected', () => {
    const scores = scoreFields(data, schema, text, {}, ['/issueDate', '/tags']);
    expect(scores.fieldConfidences['/issueDate']).toBe(0);
    expect(scores.fieldConfidences['/tags']).toBe(0);
    expect(scores.overallConfidence).toBe(0.475); // (1 + 0 + 0.9 + 0) / 4
  });

  it('averages the present fields when the schema requires none, and is 0 for nothing', () => {
    const open: JsonSchemaObject = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' }, c: { type: 'string' } },
    };
    expect(scoreFields({ a: 'INV-0042', b: 12 }, open, text).overallConfidence).toBe(0.55); // (1 + 0.1) / 2
    expect(scoreFields({}, open, text).overallConfidence).toBe(0);
    expect(scoreFields('not an object', open, text).overallConfidence).toBe(0);
  });

  it('treats "", [], {} like null: an absence claim, 0.5 or 0.2 when the text names the field', () => {
    const s: JsonSchemaObject = {
      type: 'object',
      properties: { notes: { type: 'string' }, tags: { type: 'array' }, extra: { type: 'object' } },
    };
    expect(scoreFields({ notes: '', tags: [], extra: {} }, s, text).fieldConfidences).toEqual({
      '/notes': 0.2,
      '/tags': 0.5,
      '/extra': 0.5,
    });
  });

  it('uses the matching anyOf branch and the title for hints', () => {
    const s: JsonSchemaObject = {
      type: 'object',
      properties: { flag: { anyOf: [{ type: 'null' }, { type: 'boolean', title: 'Remote' }] } },
    };
    expect(scoreFields({ flag: true }, s, text).fieldConfidences['/flag']).toBe(0.9);
  });
});
