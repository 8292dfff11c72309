import { describe, expect, it } from '@jest/globals';
import {
  createHeuristicProvider,
  extractHeuristically,
  guardSchema,
  HEURISTIC_MODEL,
  scoreFields,
  type JsonSchemaObject,
} from '../src/index.js';

const obj = (properties: Record<string, unknown>, required: string[] = []): JsonSchemaObject => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
});

const extract = (schema: JsonSchemaObject, text: string) => extractHeuristically(schema, text);

describe('heuristic extractor: labelled lines', () => {
  it('matches labels to field names by words, synonyms and abbreviations, and reads each type', () => {
    const text = [
      'Invoice No.: INV-7',
      'Bill To: Globex Corporation',
      'Issued: 5 March 2024',
      'Contact: ap@globex.example',
      'Website: https://globex.example/billing.',
      'Qty: 1,200 units',
      'Weight: 12.5 kg',
      'Discount: 45%',
      'Paid: no',
      'Priority: High',
      'Tags: red, green and blue',
    ].join('\n');
    const schema = obj({
      invoiceNumber: { type: 'string' },
      customer: { type: 'string' },
      issueDate: { type: 'string', format: 'date' },
      contactEmail: { type: 'string', format: 'email' },
      url: { type: 'string', format: 'uri' },
      quantity: { type: 'integer' },
      weightKg: { type: 'number' },
      discountPercent: { type: 'number' },
      paid: { type: 'boolean' },
      priority: { type: 'string', enum: ['low', 'high'] },
      tags: { type: 'array', items: { type: 'string' } },
    });
    expect(extract(schema, text).data).toEqual({
      invoiceNumber: 'INV-7',
      customer: 'Globex Corporation',
      issueDate: '2024-03-05',
      contactEmail: 'ap@globex.example',
      url: 'https://globex.example/billing',
      quantity: 1200,
      weightKg: 12.5,
      discountPercent: 45,
      paid: false,
      priority: 'high',
      tags: ['red', 'green', 'blue'],
    });
  });

  it('gives each line to one field, best label first; range ends and different kinds may share a line', () => {
    const text = [
      'Total: $1,242.00',
      'Tax (8%): $92.00',
      'Salary: €75,000 – €90,000',
      'From: Daniel Brooks <daniel@contoso.example>',
      'Date: 2024-04-08',
    ].join('\n');
    const schema = obj({
      taxAmount: { type: 'number' },
      total: { type: 'number' },
      salaryMin: { type: 'number' },
      salaryMax: { type: 'number' },
      senderName: { type: 'string' },
      senderEmail: { type: 'string', format: 'email' },
      sentDate: { type: 'string', format: 'date' },
      eventDate: { type: 'string', format: 'date' },
    });
    expect(extract(schema, text).data).toEqual({
      taxAmount: 92,
      total: 1242,
      salaryMin: 75000,
      salaryMax: 90000,
      senderName: 'Daniel Brooks',
      senderEmail: 'daniel@contoso.example',
      sentDate: '2024-04-08', // the one "Date" line goes to the first date field; the other is not guessed
    });
  });

  it('reads several pairs on one line, two-column tables, bullets under a label or a heading', () => {
    const text = [
      'High: 4 °C, low: -3 °C',
      '',
      '| Feature | Value |',
      '|---|---|',
      '| Memory (RAM) | 16 GB |',
      '',
      'Requirements:',
      '- Go',
      '- PostgreSQL',
      '',
      'Decisions',
      '- Ship it',
      '- Adopt tracing',
    ].join('\n');
    const schema = obj({
      highC: { type: 'number' },
      lowC: { type: 'number' },
      ramGb: { type: 'integer' },
      requirements: { type: 'array', items: { type: 'string' } },
      decisions: { type: 'array', items: { type: 'string' } },
    });
    expect(extract(schema, text).data).toEqual({
      highC: 4,
      lowC: -3,
      ramGb: 16,
      requirements: ['Go', 'PostgreSQL'],
      decisions: ['Ship it', 'Adopt tracing'],
    });
  });

  it('reads numeric dates month first when the document shows that convention', () => {
    const schema = obj({ orderDate: { type: 'string', format: 'date' }, shipBy: { type: 'string', format: 'date' } });
    expect(extract(schema, 'Order date: 03/25/2024\nShip by: 04/02/2024').data).toEqual({
      orderDate: '2024-03-25',
      shipBy: '2024-04-02',
    });
    expect(extract(schema, 'Order date: 25/03/2024\nShip by: 04/02/2024').data).toEqual({
      orderDate: '2024-03-25',
      shipBy: '2024-02-04',
    });
  });

  it('fills a nested object from its section, or from labels naming both', () => {
    const schema = obj({
      provider: {
        type: 'object',
        properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } },
      },
      client: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string', format: 'email' } } },
      shipping: { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
    });
    const text = [
      'Provider',
      'Name: Stellar Cleaning',
      'Email: a@stellar.example',
      '',
      'Client',
      'Name: Riverside Dental',
      'Email: b@riverside.example',
      '',
      'Shipping email: c@ship.example',
    ].join('\n');
    expect(extract(schema, text).data).toEqual({
      provider: { name: 'Stellar Cleaning', email: 'a@stellar.example' },
      client: { name: 'Riverside Dental', email: 'b@riverside.example' },
      shipping: { email: 'c@ship.example' },
    });
  });

  it('fills a list of objects from the table whose headers name its fields', () => {
    const schema = obj({
      items: {
        type: 'array',
        items: {
          type: 'object',
          properties: { description: { type: 'string' }, quantity: { type: 'integer' }, unitPrice: { type: 'number' } },
        },
      },
    });
    const text = ['| Item | Qty | Unit price |', '|---|---|---|', '| Beans | 4 | 18,50 |', '| Milk | 2 | 21,00 |'].join(
      '\n',
    );
    const answer = extract(schema, text);
    expect(answer.data).toEqual({
      items: [
        { description: 'Beans', quantity: 4, unitPrice: 18.5 },
        { description: 'Milk', quantity: 2, unitPrice: 21 },
      ],
    });
    expect(answer.fieldConfidences?.['/items/1/unitPrice']).toBe(0.8);
  });
});

describe('heuristic extractor: prose', () => {
  it('takes a date, number, email or URL whose clause names the field', () => {
    const text =
      'The committee approved a budget of $250,000 for Q3. The next review is scheduled for July 1, 2024. The company, founded in 2019, employs 120 people. Code is available at https://github.com/example/x.';
    const schema = obj({
      approvedBudget: { type: 'number' },
      nextReview: { type: 'string', format: 'date' },
      foundedYear: { type: 'integer' },
      employees: { type: 'integer' },
      codeUrl: { type: 'string', format: 'uri' },
      meetingDate: { type: 'string', format: 'date' },
    });
    const answer = extract(schema, text);
    expect(answer.data).toEqual({
      approvedBudget: 250000,
      nextReview: '2024-07-01',
      foundedYear: 2019,
      employees: 120,
      codeUrl: 'https://github.com/example/x',
    });
    expect(answer.fieldConfidences?.['/nextReview']).toBe(0.7);
  });

  it('takes the only date/email of the document for the only field of that kind, with lower confidence', () => {
    const schema = obj({ date: { type: 'string', format: 'date' }, contactEmail: { type: 'string', format: 'email' } });
    const answer = extract(schema, 'Join us on Thursday, May 23, 2024 in the library. Questions: events@example.org');
    expect(answer.data).toEqual({ date: '2024-05-23', contactEmail: 'events@example.org' });
    expect(answer.fieldConfidences).toEqual({ '/date': 0.5, '/contactEmail': 0.5 });
    // Two candidates: no guess.
    expect(extract(schema, 'Either May 23, 2024 or May 30, 2024. Write to a@x.example or b@x.example').data).toEqual(
      {},
    );
  });

  it('reads booleans from the words next to the field name, enums from the only value named', () => {
    const schema = obj({
      free: { type: 'boolean' },
      registrationRequired: { type: 'boolean' },
      remote: { type: 'boolean' },
      parking: { type: 'boolean' },
      employmentType: { type: 'string', enum: ['full_time', 'part_time'] },
      currency: { type: 'string', enum: ['USD', 'EUR'] },
    });
    const text =
      'Entry is free and no registration is required. This part-time role is fully remote and pays €28 per hour.';
    expect(extract(schema, text).data).toEqual({
      free: true,
      registrationRequired: false,
      remote: true,
      employmentType: 'part_time',
      currency: 'EUR',
    });
  });

  it('finds titles, salutations, codes after a label and proper names after a label', () => {
    const schema = obj({
      title: { type: 'string' },
      guestName: { type: 'string' },
      ticketId: { type: 'string' },
      speaker: { type: 'string' },
      agency: { type: 'string' },
    });
    const text = [
      '# Green Roofs Meetup',
      '',
      'Dear Mr. Tanaka,',
      'Re: ticket #48213.',
      'Our speaker is Dr. Helen Okoye, urban ecologist, says the agency AEMET. Authorities agree.',
    ].join('\n');
    expect(extract(schema, text).data).toEqual({
      title: 'Green Roofs Meetup',
      guestName: 'Mr. Tanaka',
      ticketId: '48213',
      speaker: 'Dr. Helen Okoye',
      agency: 'AEMET',
    });
  });
});

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
