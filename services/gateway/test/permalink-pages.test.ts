import { describe, expect, it } from '@jest/globals';
import { createPermalinks } from '../src/web/permalinks.js';

// A url to a page of a source document (search's `quarry://artifacts/{id}#page=N`) keeps its page
// as a permalink, and the permalink reads back as the same page's address.

const id = '0b6d1c9e-6f1a-4f5e-9a51-2f8e0a4b7c10';

describe('permalinks of a page', () => {
  const permalinks = createPermalinks('https://quarry.example/research/');

  it('carry #page=N both ways, on the app page and on the library page it replaced', () => {
    const link = permalinks.of(`quarry://artifacts/${id}#page=37`);
    expect(link).toBe(`https://quarry.example/research/app/artifacts/${id}#page=37`);
    expect(permalinks.addressOf(link!)).toBe(`quarry://artifacts/${id}#page=37`);
    expect(permalinks.of(`quarry://artifacts/${id}`)).toBe(`https://quarry.example/research/app/artifacts/${id}`);
    expect(permalinks.addressOf(`https://quarry.example/research/library/artifact/${id}#page=3`)).toBe(
      `quarry://artifacts/${id}#page=3`,
    );
  });

  it('name nothing for another fragment, or a page of a plan', () => {
    expect(permalinks.addressOf(`https://quarry.example/research/app/artifacts/${id}#top`)).toBeUndefined();
    expect(permalinks.addressOf(`https://quarry.example/research/app/plans/${id}#page=2`)).toBeUndefined();
  });
});
