import { describe, expect, it } from '@jest/globals';
import { extractHeuristically, scoreFields } from '../src/index.js';
import { ABSTRACT_SCHEMA } from '../src/evaluation/calibration.js';

// The offline extractor on research abstracts: what it finds by a field's meaning, the grade its
// confidence gets from the evidence, and the guesses it leaves out (heuristic/evidence.ts,
// clauses.ts, authors.ts, journal.ts).

const extract = (text: string) => {
  const answer = extractHeuristically(ABSTRACT_SCHEMA, text);
  const scores = scoreFields(answer.data, ABSTRACT_SCHEMA, text, answer.fieldConfidences);
  return { data: answer.data as Record<string, unknown>, confidence: scores.fieldConfidences };
};

describe('offline extractor: header of a paper', () => {
  it('reads the author line up to its sentence boundary and the journal where it is cited', () => {
    const { data, confidence } = extract(
      [
        'Low-dose lithium and cognitive decline in older adults: a randomised trial',
        'Aiko Tanaka, Marcus Feld and Priya Raman. Published in JAMA Psychiatry, March 2021.',
        'We enrolled 1,256 adults aged 60 years or older and followed them for 52 weeks (P = .41).',
      ].join('\n'),
    );
    expect(data.authors).toEqual(['Aiko Tanaka', 'Marcus Feld', 'Priya Raman']);
    expect(data.journal).toBe('JAMA Psychiatry');
    expect(confidence['/authors/0']).toBe(0.8);
    expect(confidence['/journal']).toBe(0.8);
  });

  it('takes a journal from a citation line, keeps "The" when the journal writes it, drops "the" of the sentence', () => {
    expect(
      extract('A title\nEmma Collins and Rashid Qureshi, for the X collaborators. The Lancet, June 2020.\n').data,
    ).toMatchObject({ authors: ['Emma Collins', 'Rashid Qureshi'], journal: 'The Lancet' });
    expect(extract('A title\nN Engl J Med 2019\nText.').data.journal).toBe('N Engl J Med');
    expect(extract('A title\nJo Bloggs. Published in the New England Journal of Medicine in 2021.').data.journal).toBe(
      'New England Journal of Medicine',
    );
  });

  it('does not read a journal line or a sentence as authors', () => {
    expect(extract('A title\nThe Lancet Digital Health, 2020\nWe enrolled 40 adults.').data.authors).toBeUndefined();
    expect(extract('A title\nJournal of the National Cancer Institute, 2020.').data.authors).toBeUndefined();
  });

  it('stops a labelled value at the next label or the year in brackets', () => {
    expect(extract('Title: A trial\nJournal: Hypertension Research (2019)\n').data.journal).toBe(
      'Hypertension Research',
    );
    expect(extract('Title: A trial\nJournal: Annals of Internal Medicine. Year: 2023.\n').data).toMatchObject({
      journal: 'Annals of Internal Medicine',
      year: 2023,
    });
  });
});

describe('offline extractor: numbers by their clause', () => {
  it('grades a count by its enrolment clause and leaves out a count beside a larger one (an arm)', () => {
    expect(extract('T\nWe enrolled 260 children aged 4 to 12 years.').confidence['/sampleSize']).toBe(0.9);
    expect(extract('T\nIn all, 1,380 patients were randomly assigned to apixaban.').data.sampleSize).toBe(1380);
    expect(extract('T\nChildren (n = 245) received dexamethasone.').data.sampleSize).toBe(245);
    const arms = extract('T\nA total of 2,104 patients were assigned to dexamethasone and 4,321 to usual care.');
    expect(arms.data.sampleSize).toBeUndefined();
  });

  it('does not count those screened', () => {
    const { data } = extract(
      'T\nOf 1,046 patients assessed for eligibility, 480 were randomly assigned to wristbands.',
    );
    expect(data.sampleSize).toBe(480);
  });

  it('takes a duration said as one, never a time point, and nothing when several durations compete', () => {
    expect(
      extract('T\nWomen were treated from 12 weeks of gestation until delivery.').data.durationWeeks,
    ).toBeUndefined();
    expect(extract('T\nWomen at 34 to 36 weeks’ gestation were enrolled.').data.durationWeeks).toBeUndefined();
    const cued = extract('T\nWe followed 538 adults for 48 weeks.');
    expect(cued.data.durationWeeks).toBe(48);
    expect(cued.confidence['/durationWeeks']).toBe(0.85);
    const named = extract('T\nPatients were randomised at 6 weeks after surgery to 12 weeks of training.');
    expect(named.data.durationWeeks).toBe(12);
    expect(named.confidence['/durationWeeks']).toBe(0.6);
    expect(
      extract('T\nTraining lasted 8 weeks in one arm and 16 weeks in the other.').data.durationWeeks,
    ).toBeUndefined();
  });

  it('keeps a labelled number whatever else the text holds', () => {
    const { data, confidence } = extract(
      'Title: A trial\nDose: 150 mg\nSample size: 312\nThe control arm took 300 mg.',
    );
    expect(data).toMatchObject({ doseMg: 150, sampleSize: 312 });
    expect(confidence['/doseMg']).toBeGreaterThanOrEqual(0.75);
    expect(confidence['/sampleSize']).toBeGreaterThanOrEqual(0.75);
  });

  it('leaves out a dose per kilogram, and a dose when two drugs have one', () => {
    expect(extract('Ketamine 0.5 mg/kg versus ECT\nA trial.').data.doseMg).toBeUndefined();
    expect(extract('Apixaban 2.5 mg versus aspirin 100 mg\nA trial.').data.doseMg).toBeUndefined();
    expect(extract('Lithium 150 mg daily\nA trial.').confidence['/doseMg']).toBe(0.8);
  });

  it('grades p-values, years and registrations by how many candidates the text holds', () => {
    const one = extract('T\nPublished in BMJ, 2014.\nIt worked (P = .02). Trial registration: ChiCTR1800015482.');
    expect(one.data).toMatchObject({ pValue: 0.02, year: 2014, registration: 'ChiCTR1800015482' });
    expect(one.confidence).toMatchObject({ '/pValue': 0.9, '/year': 0.9, '/registration': 0.95 });
    const several = extract('T\nBetween 2014 and 2017 (P = .02; P = .44). ISRCTN50189673; NCT04381936.');
    expect(several.data).toMatchObject({ pValue: 0.02, registration: 'NCT04381936' });
    expect(several.confidence).toMatchObject({ '/pValue': 0.6, '/year': 0.6, '/registration': 0.5 });
  });
});
