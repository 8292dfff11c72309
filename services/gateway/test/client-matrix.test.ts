import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import { exportJWK, generateKeyPair } from 'jose';
import type { Kysely } from 'kysely';
import { CLIENTS } from './clients/all-clients.js';
import type { ClientFixture } from './clients/client-fixture.js';
import { authorize, discover, exchange, identify, scopeOf, type SigningKey } from './clients/client-replay.js';
import { clientSession } from './clients/client-session.js';
import { checkTools, doWork, type ListedTool } from './clients/client-work.js';
import { recordedWeb } from './clients/recorded-web.js';
import { freePort } from './free-port.js';
import { startTestGateway } from './harness.js';

// The compatibility matrix, tested: every client of the README's table replays the requests it
// really sends (recorded in test/clients/, each value with its source) against the whole system
// on real PostgreSQL — the 401, discovery, its registration or metadata document, authorize with
// its redirect and PKCE, sign-in and consent, the token, initialize with its protocol version and
// headers, tools/list, and one write and one read. A case that needs work of another branch says
// so in its name, and fails until that work is in.

const EMAIL = 'ada@acme.test';
const PASSWORD = 'correct horse battery staple';
const CHATGPT_KEYS = 'https://chatgpt.com/oauth/jwks.json';

let system: Awaited<ReturnType<typeof startTestGateway>>;
let signingKey: SigningKey;

beforeAll(async () => {
  // ChatGPT signs its private_key_jwt assertions with keys it publishes; these stand in for them.
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  signingKey = { key: privateKey, kid: 'chatgpt-matrix' };
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: signingKey.kid, alg: 'RS256', use: 'sig' }] };
  const port = await freePort();
  system = await startTestGateway(
    { PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` },
    { oauthFetch: recordedWeb(CLIENTS, { [CHATGPT_KEYS]: jwks }) },
  );
  await createOAuthAdmin(system.database.admin as Kysely<IdentityDatabase>).setPassword(EMAIL, PASSWORD);
}, 180_000);
afterAll(async () => {
  await system?.close();
});

const waiting = (client: ClientFixture) =>
  client.waitsFor.length > 0 ? ` [fails until ${client.waitsFor.join(' and ')} is merged]` : '';

describe.each(CLIENTS.map((client) => [client.name, client] as const))('%s', (_name, client) => {
  it(`signs in as it does, lists the tools and does a write and a read${waiting(client)}`, async () => {
    const port = await freePort();
    const found = await discover(system.url, client);
    const scope = scopeOf(client, found);
    const clientId = await identify(client, found, scope, port);
    const request = { clientId, scope, port, mcpUrl: system.url, email: EMAIL, password: PASSWORD };
    const { code, verifier, redirectUri } = await authorize(client, found, request);
    const tokens = await exchange(client, found, {
      clientId,
      code,
      verifier,
      redirectUri,
      mcpUrl: system.url,
      signingKey,
    });
    expect(tokens.access_token).toMatch(/^ey/);

    const session = clientSession(system.url, tokens.access_token, client);
    const init = await session.initialize();
    expect(init.protocolVersion).toBe(client.mcp.protocolVersion);
    expect(init.serverInfo).toMatchObject({ name: 'quarry' });
    expect(init.capabilities).toHaveProperty('tools');

    const { tools } = (await session.request('tools/list')) as { tools: ListedTool[] };
    checkTools(client.work, tools);
    await doWork(session, client, system.base);
  }, 60_000);
});

describe('the README', () => {
  it('has a row of the compatibility matrix for every client replayed here, and no other', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Clients'), readme.indexOf('### Resources'));
    const rows = [...section.matchAll(/^\| \*\*([^*]+)\*\*\s*\|/gm)].map((m) => m[1]);
    expect(rows).toEqual(CLIENTS.map((c) => c.name));
  });
});
