import { describe, expect, it } from '@jest/globals';
import { extract, obj } from './heuristic-schema.js';

// The offline extractor on semi-structured documents: "label: value" lines, tables, bullet lists
// and sections.

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
