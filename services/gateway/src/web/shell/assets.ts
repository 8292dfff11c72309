import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

const TYPES: Readonly<Record<string, string>> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Where the app's stylesheet and scripts live: src/web/assets, copied beside the compiled code by the build. */
const ASSETS_DIR = new URL('../assets/', import.meta.url);

/**
 * GET /app/assets/:name — the app's stylesheet and ES modules, read once when the server is
 * built (a handful of small files), and `generated` ones (by name: text made from code, such as
 * the views' stylesheet), served with their type, nosniff and a short cache. Only the
 * files of the folder by exact name; anything else is the app's 404.
 */
export function registerAssets(scope: FastifyInstance, generated: Readonly<Record<string, string>> = {}): void {
  const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf('.'))];
  const files = new Map<string, { body: Buffer; type: string }>();
  for (const name of readdirSync(ASSETS_DIR)) {
    const type = typeOf(name);
    if (type) files.set(name, { body: readFileSync(new URL(name, ASSETS_DIR)), type });
  }
  for (const [name, text] of Object.entries(generated)) {
    const type = typeOf(name);
    if (type) files.set(name, { body: Buffer.from(text, 'utf8'), type });
  }
  scope.get<{ Params: { name: string } }>('/assets/:name', { config: { anonymous: true } }, async (request, reply) => {
    const file = files.get(request.params.name);
    if (!file) return reply.callNotFound();
    return reply
      .headers({
        'content-type': file.type,
        'cache-control': 'public, max-age=300',
        'x-content-type-options': 'nosniff',
        'cross-origin-resource-policy': 'same-origin',
      })
      .send(file.body);
  });
}
