import { describe, expect, it } from '@jest/globals';
import { generateToken, hashToken, isWellFormedToken, TOKEN_PREFIX } from '@quarry/gateway';

describe('personal access tokens', () => {
  it('are qry_ followed by 43 base62 characters (32 random bytes)', () => {
    const { token } = generateToken();
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(token).toMatch(/^qry_[0-9A-Za-z]{43}$/);
    expect(isWellFormedToken(token)).toBe(true);
  });

  it('are unique and only their SHA-256 is kept', () => {
    const tokens = Array.from({ length: 200 }, () => generateToken());
    expect(new Set(tokens.map((t) => t.token)).size).toBe(200);
    for (const { token, hash } of tokens.slice(0, 5)) {
      expect(hash).toEqual(hashToken(token));
      expect(hash).toHaveLength(32);
    }
  });

  it('carry a display hint that is not enough to use them', () => {
    const { token, hint } = generateToken();
    expect(hint.startsWith(token.slice(0, 8))).toBe(true);
    expect(hint.endsWith(token.slice(-4))).toBe(true);
    expect(hint.length).toBeLessThan(16);
  });

  it.each([
    '',
    'qry_',
    'qry_short',
    `qry_${'a'.repeat(42)}`,
    `qry_${'a'.repeat(44)}`,
    `QRY_${'a'.repeat(43)}`,
    `qry_${'a'.repeat(42)}-`,
    `xyz_${'a'.repeat(43)}`,
  ])('rejects the malformed %p', (token) => expect(isWellFormedToken(token)).toBe(false));
});
