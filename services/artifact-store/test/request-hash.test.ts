import { describe, expect, it } from '@jest/globals';
import { requestHash } from '../src/core/idempotency.js';

// What "the same content" means for an idempotency key (core/idempotency.ts): the tool and the
// request's fields but the key, with JSON object keys in any order.

describe('requestHash', () => {
  const req = { title: 't', content: { a: 1, b: { c: [1, 2] } }, tags: ['x', 'y'], idempotencyKey: 'k1' };

  it('is a hex SHA-256 that ignores the key and the order of object keys', () => {
    const hash = requestHash('store_research', req);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(requestHash('store_research', { ...req, idempotencyKey: 'k2' })).toBe(hash);
    expect(requestHash('store_research', { tags: ['x', 'y'], content: { b: { c: [1, 2] }, a: 1 }, title: 't' })).toBe(
      hash,
    );
  });

  it('changes with a value, an array order, an added field or the tool', () => {
    const hash = requestHash('store_research', req);
    for (const other of [
      { ...req, title: 'u' },
      { ...req, tags: ['y', 'x'] },
      { ...req, content: { a: 1, b: { c: [1, 2] }, d: null } },
      { ...req, confidence: 0.5 },
    ])
      expect(requestHash('store_research', other)).not.toBe(hash);
    expect(requestHash('submit_subagent_report', req)).not.toBe(hash);
  });
});
