import { parsePermalinkPath, sourceUrl, toolNames } from '@quarry/contracts';
import type { FastifyInstance } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { IdentityDatabase, Principal } from '../identity/schema.js';
import { readThroughTool } from '../mcp/resources/tool-read.js';
import type { Tools } from '../mcp/tools/call.js';
import type { BrowserSession, BrowserSessions } from './browser-session.js';
import { itemPage, messagePage, notFoundPage, sendPage } from './pages.js';

class NotInOrg extends Error {}

/**
 * GET /library/:kind/:id — a stored item's permalink page, a plain text view of what fetch reads
 * (docs/adr/0042-chatgpt-search-and-fetch.md). A person signed in in this browser sees it when it
 * belongs to one of their organizations; anyone else is sent to sign in and back. A missing item,
 * another organization's and a malformed address answer the same 404 page. Each read is a fetch
 * call with the person's principal in the organization tried (row-level security as for any
 * call), recorded in the tool-call log under the browser session's id.
 */
export function registerItemPage(
  app: FastifyInstance,
  options: { tools: Tools; db: Kysely<IdentityDatabase>; sessions: BrowserSessions },
): void {
  app.get<{ Params: { kind: string; id: string }; Querystring: { cursor?: string } }>(
    '/library/:kind/:id',
    async (request, reply) => {
      const path = `/library/${request.params.kind}/${request.params.id}`;
      const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : undefined;
      const pageOf = (at: string | undefined) => (at ? `${path}?cursor=${encodeURIComponent(at)}` : path);
      const session = await options.sessions.current(request, reply);
      if (!session) return reply.redirect(`/library/sign-in?next=${encodeURIComponent(pageOf(cursor))}`, 303);
      const item = parsePermalinkPath(path);
      if (!item) return sendPage(reply, 404, notFoundPage());
      const address = sourceUrl(item.sourceTable, item.id);
      for (const principal of await principalsOf(options.db, session)) {
        try {
          const { structuredContent } = await readThroughTool(
            options.tools,
            toolNames.fetch,
            { id: address, ...(cursor ? { cursor } : {}) },
            { principal, requestId: String(request.id) },
            () => new NotInOrg(),
          );
          const read = structuredContent as { title: string; text: string; metadata: Record<string, string> };
          const next = read.metadata.next_cursor;
          return sendPage(reply, 200, itemPage({ ...read, nextPage: next ? pageOf(next) : undefined }));
        } catch (error) {
          if (!(error instanceof NotInOrg)) {
            request.log.error({ err: error }, 'the library page could not read an item');
            return sendPage(
              reply,
              503,
              messagePage('Not available', 'Quarry cannot read this right now. Try again shortly.'),
            );
          }
        }
      }
      return sendPage(reply, 404, notFoundPage());
    },
  );
}

/**
 * The person as a reader in each of their organizations (a browser session is no token: it may
 * read, with every tool its scope allows, and its session id stands for the token).
 */
async function principalsOf(db: Kysely<IdentityDatabase>, session: BrowserSession): Promise<Principal[]> {
  const rows = await db.transaction().execute(async (trx) => {
    await sql`select set_config('app.user_id', ${session.userId}, true)`.execute(trx);
    return trx
      .selectFrom('identity.memberships as m')
      .innerJoin('identity.organizations as o', 'o.id', 'm.org_id')
      .innerJoin('identity.users as u', 'u.id', 'm.user_id')
      .select(['o.id as orgId', 'o.slug as orgSlug', 'u.email', 'u.name'])
      .where('m.user_id', '=', session.userId)
      .orderBy('o.slug')
      .execute();
  });
  return rows.map((row) => ({
    tokenId: session.sessionId,
    orgId: row.orgId,
    orgSlug: row.orgSlug,
    userId: session.userId,
    email: row.email,
    name: row.name,
    expiresAt: null,
    scopes: ['quarry:read'],
    tools: null,
  }));
}
