import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { openImportState } from '../src/import-state.js';

// The import state file: what one org stored never counts for another, and a line cut short by a
// crash neither breaks the file nor swallows the next record.

const dir = mkdtempSync(join(tmpdir(), 'quarry-import-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openImportState', () => {
  it('remembers per org: another org starts from nothing', () => {
    const file = join(dir, 'orgs.jsonl');
    const acme = openImportState(file, 'acme');
    acme.record('k1', 'id-1');
    acme.record('k2', 'id-2');
    expect(openImportState(file, 'acme')).toMatchObject({ known: 2 });
    expect(openImportState(file, 'acme').has('k1')).toBe(true);
    const beta = openImportState(file, 'beta');
    expect(beta.known).toBe(0);
    expect(beta.has('k1')).toBe(false);
  });

  it('survives a last line cut short: that item is sent again, later records are read', () => {
    const file = join(dir, 'cut.jsonl');
    openImportState(file, 'acme').record('whole', 'id-1');
    appendFileSync(file, '{"org":"acme","key":"cut');
    const reopened = openImportState(file, 'acme');
    expect(reopened.known).toBe(1);
    expect(reopened.has('cut')).toBe(false);
    reopened.record('after', 'id-3');
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(openImportState(file, 'acme')).toMatchObject({ known: 2 });
    expect(openImportState(file, 'acme').has('after')).toBe(true);
  });

  it('ignores lines that are not records', () => {
    const file = join(dir, 'junk.jsonl');
    writeFileSync(file, 'not json\n{"org":"acme"}\n[1,2]\n{"org":"acme","key":"ok","id":"x"}\n');
    expect(openImportState(file, 'acme')).toMatchObject({ known: 1 });
  });
});
