import { describe, expect, it } from '@jest/globals';
import { extract, obj } from './heuristic-schema.js';

// The offline extractor on prose: values whose sentence names the field, the only value of its
// kind, booleans and enums from the words around them, titles, salutations, codes and names.

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
