import type { ClientFixture } from './client-fixture.js';

/**
 * The web as Quarry's authorization server sees it in these tests: each client's published Client
 * ID Metadata Document (and ChatGPT's signing keys), answered at its real https URL exactly as
 * recorded. Passed to the authorization server as its `fetch`; anything else is a 404.
 */
export function recordedWeb(clients: readonly ClientFixture[], more: Record<string, unknown> = {}) {
  const served = new Map<string, unknown>(Object.entries(more));
  for (const client of clients)
    if (client.registration.kind === 'cimd') served.set(client.registration.clientId, client.registration.document);
  const fetchRecorded: typeof fetch = async (input) => {
    const url = input instanceof Request ? input.url : String(input);
    const body = served.get(url);
    return body === undefined
      ? new Response('not found', { status: 404 })
      : new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return fetchRecorded;
}
