import { z } from 'zod';

/** Common field types, so every service spells env parsing the same way. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  host: (fallback: string) => z.string().min(1).default(fallback),
  url: () => z.url(),
  bool: (fallback: boolean) =>
    z
      .enum(['1', '0', 'true', 'false', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === '1' || v === 'true' || v === 'yes'),
  duration: (fallback: string) =>
    z
      .string()
      .default(fallback)
      .transform((v, ctx) => {
        const ms = parseDuration(v);
        if (ms === undefined) {
          ctx.addIssue({ code: 'custom', message: `"${v}" is not a duration like 500ms, 30s, 15m, 2h or 30d` });
          return z.NEVER;
        }
        return ms;
      }),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parse `500ms`, `30s`, `15m`, `2h`, `30d` (or a bare number of milliseconds). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!);
}
