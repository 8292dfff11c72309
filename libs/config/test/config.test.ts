import { describe, expect, it } from '@jest/globals';
import { ConfigError, env, loadConfig, parseDuration, z } from '@quarry/config';

const schema = z.object({
  PORT: env.port(8080),
  DATABASE_URL: env.url().optional(),
  LOG_LEVEL: env.logLevel(),
  STALL_AFTER: env.duration('30m'),
  FEATURE: env.bool(false),
});

describe('loadConfig', () => {
  it('applies defaults and coerces types', () => {
    const config = loadConfig(schema, {});
    expect(config).toEqual({ PORT: 8080, LOG_LEVEL: 'info', STALL_AFTER: 1_800_000, FEATURE: false });
  });

  it('returns a deeply frozen object', () => {
    const config = loadConfig(
      z.object({
        LIST: z
          .string()
          .default('a')
          .transform((s) => ({ items: [s] })),
      }),
      {},
    );
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.LIST)).toBe(true);
    expect(Object.isFrozen(config.LIST.items)).toBe(true);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(schema, { PORT: '' }).PORT).toBe(8080);
  });

  it('fails fast naming every bad variable without echoing its value', () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: 'eighty', DATABASE_URL: 'not a url secret-password', STALL_AFTER: 'soon' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/PORT:/);
    expect(message).toMatch(/DATABASE_URL:/);
    expect(message).toMatch(/STALL_AFTER: "soon" is not a duration/);
    expect(message).not.toMatch(/secret-password/);
    expect((error as ConfigError).issues).toHaveLength(3);
  });

  it('reads only the keys the schema declares', () => {
    const config = loadConfig(z.object({ A: z.string().optional() }), { A: 'x', B: 'y' });
    expect(config).toEqual({ A: 'x' });
  });
});

describe('parseDuration', () => {
  it.each([
    ['250', 250],
    ['250ms', 250],
    ['30s', 30_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['30d', 2_592_000_000],
    ['1.5s', 1500],
  ])('%s → %d ms', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 'soon', '-1s', '5 w', '1e3'])('rejects %p', (text) => expect(parseDuration(text)).toBeUndefined());
});
