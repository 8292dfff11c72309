import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import type { Kysely } from 'kysely';
import { startCimdDocuments } from './cimd-documents.js';
import { createBrowser, pkcePair } from './oauth-browser.js';
import { freePort } from './free-port.js';
import { startGatewayOnly } from './gateway-only.js';

// Client ID Metadata Documents: the client's id is the https URL of a JSON document describing
// it, which the authorization server fetches instead of any registration. The documents are
// served over TLS with a self-signed certificate that only this test's fetch trusts (passed to
// oidc-provider through its `fetch` option, which also replaces its refusal of loopback hosts).

type Gateway = Awaited<ReturnType<typeof startGatewayOnly>>;
let gateway: Gateway;
let documents: Awaited<ReturnType<typeof startCimdDocuments>>;
let documentsBase = '';
const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'http://127.0.0.1:9/callback';

const document = (path: string, fields: Record<string, unknown> = {}) =>
  documents.serve(path, {
    client_name: 'CIMD test client',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...fields,
  });

beforeAll(async () => {
  documents = await startCimdDocuments();
  documentsBase = documents.base;
  const port = await freePort();
  gateway = await startGatewayOnly(
    { PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` },
    { oauthFetch: documents.fetch },
  );
  await createOAuthAdmin(gateway.database.admin as Kysely<IdentityDatabase>).setPassword('ada@acme.test', PASSWORD);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await documents?.close();
});

/** An OAuth client provider whose identity is a metadata document URL: it never registers. */
function cimdProvider(clientMetadataUrl: string) {
  const state: { tokens?: Awaited<ReturnType<OAuthClientProvider['tokens']>>; verifier?: string; url?: URL } = {};
  let client: Awaited<ReturnType<NonNullable<OAuthClientProvider['clientInformation']>>>;
  const provider: OAuthClientProvider = {
    clientMetadataUrl,
    get redirectUrl() {
      return REDIRECT;
    },
    get clientMetadata() {
      return { client_name: 'CIMD test client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
    },
    clientInformation: () => client,
    saveClientInformation: (info) => {
      client = info;
    },
    tokens: () => state.tokens,
    saveTokens: (tokens) => {
      state.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      state.url = url;
    },
    saveCodeVerifier: (verifier) => {
      state.verifier = verifier;
    },
    codeVerifier: () => state.verifier!,
  };
  return { provider, state };
}

/** The authorization endpoint's answer to a client id and redirect, fetched without following it. */
async function authorize(clientId: string, redirectUri = REDIRECT) {
  const { challenge } = pkcePair();
  const url = new URL(`${gateway.base}/oauth/authorize`);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'quarry:read',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: gateway.url,
    state: 'xyz',
  }).toString();
  return fetch(url, { redirect: 'manual' });
}

describe('a client identified by its metadata document URL', () => {
  it('is advertised by the authorization-server metadata', async () => {
    const metadata = await (await fetch(`${gateway.base}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({ client_id_metadata_document_supported: true });
  });

  it('signs in, consents and calls tools without registering', async () => {
    const clientId = document('/clients/cimd.json');
    const { provider, state } = cimdProvider(clientId);
    const first = new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: provider });
    await expect(new Client({ name: 'cimd-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(state.url?.searchParams.get('client_id')).toBe(clientId);
    expect(state.url?.searchParams.get('code_challenge_method')).toBe('S256');

    const callback = await createBrowser().authorize(state.url!.toString(), {
      email: 'ada@acme.test',
      password: PASSWORD,
      redirectUri: REDIRECT,
    });
    expect(callback.searchParams.get('iss')).toBe(gateway.base);
    await first.finishAuth(callback.searchParams);
    expect(state.tokens?.access_token).toMatch(/^ey/);

    const client = new Client({ name: 'cimd-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: provider }));
    const ping = await client.callTool({ name: 'ping', arguments: {} });
    expect(ping.isError).toBeFalsy();
    expect(ping.structuredContent).toMatchObject({ orgSlug: 'acme', userEmail: 'ada@acme.test' });
    await client.close();
  }, 60_000);

  it('is refused when its document names another client_id', async () => {
    const url = `${documentsBase}/clients/impostor.json`;
    document('/clients/impostor.json', { client_id: `${documentsBase}/clients/someone-else.json` });
    const response = await authorize(url);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    const body = await response.text();
    expect(body).toContain('invalid_client_metadata');
    expect(body).toMatch(/client_id metadata document client_id does not match/);
  });

  it('is refused when its document cannot be fetched', async () => {
    const response = await authorize(`${documentsBase}/clients/missing.json`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('invalid_client');
  });

  it('is refused when its document does not list the redirect URI', async () => {
    const url = document('/clients/other-redirect.json', { redirect_uris: ['https://app.example/callback'] });
    const response = await authorize(url);
    // Never redirected there (no open redirect): an error page here instead.
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    const body = await response.text();
    expect(body).toContain('invalid_redirect_uri');
  });
});
