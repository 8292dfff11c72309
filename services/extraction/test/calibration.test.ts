import { describe, expect, it } from '@jest/globals';
import { calibrateGrounding, calibrateOffline, loadAbstracts, plant, scoreFields } from '../src/index.js';
import { fieldFit, MISFIT } from '../src/core/field-fit.js';
import { extractHeuristically } from '../src/heuristic/extractor.js';
import { ABSTRACT_SCHEMA } from '../src/evaluation/calibration.js';

// Whether confidence can be acted on, on the research abstracts written for Quarry
// (corpus/abstracts.json): the offline extractor's precision, recall and separation of right from
// wrong values, and grounding alone on labelled answers with planted errors. The floors are the
// figures measured when the evidence grades landed (README, ADR 0028), rounded down.

const ISSUE_ABSTRACT = [
  'Low-dose lithium and cognitive decline in older adults: a randomised trial',
  'Aiko Tanaka, Marcus Feld and Priya Raman. Published in JAMA Psychiatry, March 2021.',
  'We enrolled 1,256 adults aged 60 years or older and followed them for 52 weeks.',
  'The primary outcome did not differ between groups (P = .41). Registration: NCT03185208.',
].join('\n');

describe('field meaning', () => {
  const at = (needle: string) => ({
    start: ISSUE_ABSTRACT.indexOf(needle),
    end: ISSUE_ABSTRACT.indexOf(needle) + needle.length,
  });
  it('fits a number to the field its clause names, and a year or identifier by shape', () => {
    expect(fieldFit(1256, { labels: ['sampleSize'] }, ISSUE_ABSTRACT, at('1,256'))).toBe(1);
    expect(fieldFit(52, { labels: ['sampleSize'] }, ISSUE_ABSTRACT, at('52'))).toBe(MISFIT);
    expect(fieldFit(52, { labels: ['durationWeeks'] }, ISSUE_ABSTRACT, at('52'))).toBe(1);
    expect(fieldFit(60, { labels: ['year'] }, ISSUE_ABSTRACT, at('60'))).toBe(MISFIT);
    expect(fieldFit(2021, { labels: ['year'] }, ISSUE_ABSTRACT, at('2021'))).toBe(1);
    expect(fieldFit(0.41, { labels: ['pValue'] }, ISSUE_ABSTRACT, at('.41'))).toBe(1);
    expect(fieldFit(52, { labels: ['pValue'] }, ISSUE_ABSTRACT, at('52'))).toBe(MISFIT);
    expect(fieldFit('NCT03185208', { labels: ['doi'] }, ISSUE_ABSTRACT, at('NCT03185208'))).toBe(MISFIT);
    expect(fieldFit('NCT03185208', { labels: ['registration'] }, ISSUE_ABSTRACT, at('NCT03185208'))).toBe(1);
  });

  it('tells a journal from a title by where it is named, and a count from a bare year', () => {
    const title = 'Low-dose lithium and cognitive decline in older adults: a randomised trial';
    expect(fieldFit('JAMA Psychiatry', { labels: ['journal'] }, ISSUE_ABSTRACT, at('JAMA Psychiatry'))).toBe(1);
    expect(fieldFit(title, { labels: ['journal'] }, ISSUE_ABSTRACT, at(title))).toBe(MISFIT);
    expect(fieldFit(title, { labels: ['title'] }, ISSUE_ABSTRACT, at(title))).toBe(1);
    expect(fieldFit('JAMA Psychiatry', { labels: ['title'] }, ISSUE_ABSTRACT, at('JAMA Psychiatry'))).toBe(MISFIT);
    expect(fieldFit(2021, { labels: ['sampleSize'] }, ISSUE_ABSTRACT, at('2021'))).toBe(MISFIT);
    const dose = 'Ketamine 0.5 mg/kg versus electroconvulsive therapy';
    expect(fieldFit(0.5, { labels: ['doseMg'] }, dose, { start: 9, end: 12 })).toBe(MISFIT);
    const registries = 'ChiCTR1800015482; DRKS00017552; CTRI/2015/03/005612; ACTRN12614000732651';
    for (const id of registries.split('; '))
      expect(fieldFit(id, { labels: ['registration'] }, registries, undefined)).toBe(1);
  });

  it('the offline extractor reads the issue’s abstract by meaning: no year 60, the sample size and p-value from their clauses', () => {
    const answer = extractHeuristically(ABSTRACT_SCHEMA, ISSUE_ABSTRACT);
    expect(answer.data).toMatchObject({
      year: 2021,
      sampleSize: 1256,
      durationWeeks: 52,
      pValue: 0.41,
      registration: 'NCT03185208',
    });
    const scores = scoreFields(answer.data, ABSTRACT_SCHEMA, ISSUE_ABSTRACT, answer.fieldConfidences);
    expect(scores.fieldConfidences['/sampleSize']).toBeGreaterThanOrEqual(0.8);
  });
});

describe('calibration on the abstracts', () => {
  it('has at least 30 abstracts, 20 of them held out', async () => {
    const documents = await loadAbstracts();
    expect(documents.length).toBeGreaterThanOrEqual(30);
    expect(documents.filter((d) => d.heldOut).length).toBeGreaterThanOrEqual(20);
  });

  it('offline extractor: precision and recall above their floors, per field type too', async () => {
    const report = calibrateOffline(await loadAbstracts());
    expect(report.all.precision).toBeGreaterThanOrEqual(0.98);
    expect(report.all.recall).toBeGreaterThanOrEqual(0.9);
    expect(report.heldOut.precision).toBeGreaterThanOrEqual(0.97);
    expect(report.heldOut.recall).toBeGreaterThanOrEqual(0.9);
    for (const kind of Object.values(report.byKind)) expect(kind.precision).toBeGreaterThanOrEqual(0.97);
    expect(report.byKind['name list']!.recall).toBeGreaterThanOrEqual(0.95);
    // The few values it still gets wrong: what the text shows as strong evidence (see ADR 0028).
    expect(report.all.wrong).toBeLessThanOrEqual(4);
  });

  it('grounding alone separates planted errors from right values (AUROC ≥ 0.8), held out too, swaps included', async () => {
    const report = calibrateGrounding(await loadAbstracts());
    expect(report.all.auroc).toBeGreaterThanOrEqual(0.99);
    expect(report.heldOut.auroc).toBeGreaterThanOrEqual(0.99);
    expect(report.all.meanWrongConfidence).toBeLessThanOrEqual(0.3);
    expect(report.byError.invented).toBeGreaterThanOrEqual(0.99);
    expect(report.byError.altered).toBeGreaterThanOrEqual(0.98);
    expect(report.byError.swapped).toBeGreaterThanOrEqual(0.99);
  });

  it('plants each kind of error where it fits', () => {
    const labels = { sampleSize: 842, durationWeeks: 2, title: 'A trial' };
    expect(plant(labels, 'swapped', 0)).toEqual({
      data: { ...labels, sampleSize: 2, durationWeeks: 842 },
      planted: ['sampleSize', 'durationWeeks'],
    });
    expect(plant(labels, 'altered', 0)!.data.sampleSize).not.toBe(842);
    expect(plant({ authors: ['A'] }, 'swapped', 0)).toBeUndefined();
  });
});
