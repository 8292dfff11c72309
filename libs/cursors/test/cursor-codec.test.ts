import { describe, expect, it } from '@jest/globals';
import { createCursorCodec, cursorScope, type KeysetPosition, readKeyset } from '@quarry/cursors';
import fc from 'fast-check';

// Sealed cursors: a position opens under the scope it was sealed for, with the same identity key
// and purpose, and nothing else opens at all.

const KEY = 'k'.repeat(48);
const codec = createCursorCodec(KEY, 'test-service');
const offset = (value: unknown) => (typeof value === 'number' ? value : undefined);
const anything = (value: unknown) => value;

describe('a sealed cursor', () => {
  it('opens under its own scope, on every replica and after a restart (same key and purpose)', () => {
    const scope = cursorScope('get_artifact', 'org-1', 'item-1');
    const cursor = codec.seal(scope, 4096);
    expect(codec.open(cursor, scope, offset)).toBe(4096);
    expect(createCursorCodec(KEY, 'test-service').open(cursor, scope, offset)).toBe(4096);
  });

  it('is refused under another name, org, filter set or item', () => {
    const cursor = codec.seal(cursorScope('list_plans', 'org-1', { status: 'executing' }), 7);
    for (const other of [
      cursorScope('list_active_plans', 'org-1', { status: 'executing' }),
      cursorScope('list_plans', 'org-2', { status: 'executing' }),
      cursorScope('list_plans', 'org-1', { status: 'planning' }),
      cursorScope('list_plans', 'org-1', {}),
      cursorScope('list_plans', 'org-1'),
    ])
      expect(codec.open(cursor, other, offset)).toBeUndefined();
  });

  it('is refused by another purpose or under another identity key', () => {
    const scope = cursorScope('list');
    const cursor = codec.seal(scope, 1);
    expect(createCursorCodec(KEY, 'other-service').open(cursor, scope, offset)).toBeUndefined();
    expect(createCursorCodec('x'.repeat(48), 'test-service').open(cursor, scope, offset)).toBeUndefined();
  });

  it('refuses an edited body or tag, extra parts, garbage and oversized input', () => {
    const scope = cursorScope('s');
    const cursor = codec.seal(scope, 1);
    const [body, tag] = cursor.split('.') as [string, string];
    const edited = Buffer.from(JSON.stringify(2)).toString('base64url');
    for (const bad of [
      `${edited}.${tag}`,
      `${body}.${tag.slice(1)}`,
      `${body}.${tag}=`,
      `${body}.${tag}.x`,
      `${body}.`,
      `.${tag}`,
      body,
      '',
      '.',
      'a.b',
      `${'a'.repeat(5000)}.${tag}`,
    ])
      expect(codec.open(bad, scope, offset)).toBeUndefined();
  });

  it('is refused when the reader does not recognise its position', () => {
    const scope = cursorScope('s');
    expect(codec.open(codec.seal(scope, 12), scope, readKeyset)).toBeUndefined();
    expect(codec.open(codec.seal(scope, { at: '2026-01-01' }), scope, readKeyset)).toBeUndefined();
    expect(codec.open(codec.seal(scope, { at: 'x', id: 'y' }), scope, offset)).toBeUndefined();
  });

  it('round-trips any JSON position, and refuses any single edit of the cursor', () => {
    const scope = cursorScope('property', 'org');
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.integer({ min: 1, max: 63 }), (position, at, shift) => {
        const cursor = codec.seal(scope, position);
        expect(codec.open(cursor, scope, anything)).toEqual(JSON.parse(JSON.stringify(position)));
        const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
        const i = at % cursor.length;
        const char = cursor[i]!;
        const replaced = char === '.' ? 'A' : alphabet[(alphabet.indexOf(char) + shift) % alphabet.length]!;
        const edited = `${cursor.slice(0, i)}${replaced}${cursor.slice(i + 1)}`;
        expect(codec.open(edited, scope, anything)).toBeUndefined();
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 300) },
    );
  });
});

describe('keyset positions', () => {
  it('seal a row’s timestamp at full precision and its id, and read back exactly', () => {
    const scope = cursorScope('list_artifacts', 'org-1', [null, null, [], null]);
    const last: KeysetPosition = { at: '2026-11-28 10:57:01.123456+00', id: '0b0e2f6c-6a43-4d1f-9a55-0f6f4c1e2d3b' };
    expect(codec.open(codec.seal(scope, last), scope, readKeyset)).toEqual(last);
  });

  it('reads nothing but a timestamp and an id', () => {
    for (const value of [null, 'x', ['t', 'id'], { at: 't' }, { id: 'i' }, { at: '', id: 'i' }, { at: 1, id: 'i' }])
      expect(readKeyset(value)).toBeUndefined();
  });
});

describe('cursorScope', () => {
  it('binds the name and each bound value in order, compared as JSON', () => {
    expect(cursorScope('a', 'b')).not.toBe(cursorScope('b', 'a'));
    expect(cursorScope('a', ['b', 'c'])).not.toBe(cursorScope('a', 'b', 'c'));
    expect(cursorScope('a', { x: undefined, y: 1 })).toBe(cursorScope('a', { y: 1 }));
    expect(cursorScope('a', undefined)).toBe(cursorScope('a', null));
    expect(cursorScope('a', new Date('2026-01-01T00:00:00Z'))).toBe(cursorScope('a', '2026-01-01T00:00:00.000Z'));
  });
});

describe('a merged cursor (several lists, as resources/list holds them)', () => {
  it('carries each source’s inner cursor and place unchanged', () => {
    type Position = { cursor?: string; skip: number } | null;
    const positions = (value: unknown): Position[] | undefined =>
      Array.isArray(value) ? (value as Position[]) : undefined;
    const scope = cursorScope('resources/list', 'org-1');
    const inner = createCursorCodec(KEY, 'plan-engine').seal(cursorScope('list_plans', 'org-1', {}), {
      at: 't',
      id: 'i',
    });
    const merged: Position[] = [{ cursor: inner, skip: 3 }, null];
    const cursor = createCursorCodec(KEY, 'gateway').seal(scope, merged);
    expect(createCursorCodec(KEY, 'gateway').open(cursor, scope, positions)).toEqual(merged);
    expect(createCursorCodec(KEY, 'gateway').open(cursor, cursorScope('resources/list', 'org-2'), positions)).toBe(
      undefined,
    );
  });
});
