import { describe, expect, it } from '@jest/globals';
import { createPermalinks } from '../src/library/permalinks.js';

// A url to a page of a source document (search's `quarry://artifacts/{id}#page=N`) keeps its page
// as a permalink, and the permalink reads back as the same page's address.

const id = '0b6d1c9e-6f1a-4f5e-9a51-2f8e0a4b7c10';

describe('permalinks of a page', () => {
  const permalinks = createPermalinks('https://quarry.example/research/');

  it('carry #page=N both ways', () => {
    const link = permalinks.of(`quarry://artifacts/${id}#page=37`);
    expect(link).toBe(`https://quarry.example/research/library/artifact/${id}#page=37`);
    expect(permalinks.addressOf(link!)).toBe(`quarry://artifacts/${id}#page=37`);
    expect(permalinks.of(`quarry://artifacts/${id}`)).toBe(`https://quarry.example/research/library/artifact/${id}`);
  });

  it('name nothing for another fragment', () => {
    expect(permalinks.addressOf(`https://quarry.example/research/library/artifact/${id}#top`)).toBeUndefined();
  });
});
