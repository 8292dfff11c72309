import { describe, expect, it } from '@jest/globals';
import { looksLikeIdPrefix, matchPlans, queryWordOf } from '../src/mcp/prompts/plan-matching.js';

// Which plan IDs completion offers for what a human typed (most recently updated first in, as
// list_plans returns them).

const plans = [
  {
    planId: 'aaaa1111-0000-4000-8000-000000000001',
    name: 'Battery supply',
    researchQuestion: 'Where does lithium come from?',
  },
  {
    planId: 'bbbb2222-0000-4000-8000-000000000002',
    name: 'Lithium prices 2026',
    researchQuestion: 'How did prices move?',
  },
  {
    planId: 'cccc3333-0000-4000-8000-000000000003',
    name: 'Glacier retreat',
    researchQuestion: 'How fast do glaciers melt?',
  },
];

describe('matchPlans', () => {
  it('offers every plan, most recent first, for nothing typed', () => {
    expect(matchPlans(plans, '')).toEqual(plans.map((p) => p.planId));
  });

  it('matches every word in any order, named plans before plans that only ask about it', () => {
    expect(matchPlans(plans, 'lithium')).toEqual([plans[1]!.planId, plans[0]!.planId]);
    expect(matchPlans(plans, 'PRICES lith')).toEqual([plans[1]!.planId]);
    expect(matchPlans(plans, 'lithium glacier')).toEqual([]);
  });

  it('matches the start of an ID, and offers a plan once however often it was found', () => {
    expect(matchPlans([...plans, ...plans], 'cccc33')).toEqual([plans[2]!.planId]);
  });
});

describe('the list_plans query', () => {
  it('asks for the longest word; the others are checked in matchPlans', () => {
    expect(queryWordOf('  prices lithium ')).toBe('lithium');
    expect(queryWordOf('   ')).toBeUndefined();
  });

  it('tells what could be the start of an ID', () => {
    expect(looksLikeIdPrefix('cafe-12')).toBe(true);
    expect(looksLikeIdPrefix('lithium')).toBe(false);
  });
});
