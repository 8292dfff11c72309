import { describe, expect, it } from '@jest/globals';
import { displayName, normaliseName, prefixPattern } from '../src/core/entity-names.js';
import { neighbourhoodPage, relationsOfPage } from '../src/core/entity-neighbourhood.js';

// The entity graph's pure parts: how names compare, and how a neighbourhood is cut and paged.

describe('entity names', () => {
  it('compare by NFKC, case folding and collapsed whitespace', () => {
    expect(normaliseName('  The\u00a0ＩＰＣＣ\tReport ')).toBe('the ipcc report');
    expect(normaliseName('Straße')).toBe(normaliseName('STRASSE'));
    expect(normaliseName('ΟΔΟΣ')).toBe(normaliseName('οδος'.replace(/σ$/u, 'ς')));
    expect(normaliseName('ﬁre')).toBe('fire');
    expect(displayName('  Rio   de Janeiro ')).toBe('Rio de Janeiro');
  });

  it('take LIKE wildcards in a prefix literally', () => {
    expect(prefixPattern('50%_a\\b')).toBe('50\\%\\_a\\\\b%');
  });
});

describe('a neighbourhood', () => {
  it('pages by distance then id, and puts each relation on the page of its later end', () => {
    const reached = new Map([
      ['s', 0],
      ['b', 1],
      ['a', 1],
      ['c', 2],
    ]);
    const first = neighbourhoodPage(reached, undefined, 2);
    expect(first.page.map((r) => r.id)).toEqual(['s', 'a']);
    expect(first.more).toBe(true);
    const second = neighbourhoodPage(reached, first.page.at(-1), 2);
    expect(second.page.map((r) => r.id)).toEqual(['b', 'c']);
    expect(second.more).toBe(false);
    const relations = [
      { fromId: 's', toId: 'a' },
      { fromId: 'c', toId: 's' },
      { fromId: 'b', toId: 'a' },
      { fromId: 'a', toId: 'outside' },
    ];
    expect(relationsOfPage(relations, first.all, first.page)).toEqual([{ fromId: 's', toId: 'a' }]);
    expect(relationsOfPage(relations, second.all, second.page)).toEqual([
      { fromId: 'c', toId: 's' },
      { fromId: 'b', toId: 'a' },
    ]);
  });
});
