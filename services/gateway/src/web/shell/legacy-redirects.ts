import type { FastifyInstance } from 'fastify';

const KINDS: Readonly<Record<string, string>> = { artifact: 'artifacts', output: 'outputs', extraction: 'extractions' };

/**
 * The library's pages before the app (`/library/<kind>/<id>`, `/library/sign-in`) answer a
 * permanent redirect to theirs under /app, query included, so every link already given out
 * (citations, tool results) keeps opening its item.
 */
export function registerLegacyRedirects(app: FastifyInstance): void {
  app.get<{ Params: { kind: string; id: string } }>('/library/:kind/:id', async (request, reply) => {
    const kind = KINDS[request.params.kind];
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    return reply.redirect(
      kind ? `/app/${kind}/${encodeURIComponent(request.params.id)}${query}` : '/app/not-found',
      301,
    );
  });
  app.get('/library/sign-in', async (request, reply) => {
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    return reply.redirect(
      `/app/sign-in${query.replace(/next=%2Flibrary%2F(artifact|output|extraction)%2F/, (_m, kind: string) => `next=%2Fapp%2F${KINDS[kind]}%2F`)}`,
      301,
    );
  });
}
