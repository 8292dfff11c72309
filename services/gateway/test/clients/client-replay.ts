import { randomBytes, randomUUID } from 'node:crypto';
import { type CryptoKey, SignJWT } from 'jose';
import { createBrowser, pkcePair } from '../oauth-browser.js';
import type { ClientFixture } from './client-fixture.js';

// A client's OAuth sign-in against Quarry, replayed with its recorded requests: the 401 that
// starts it, discovery, registration (or its metadata document), authorize with its redirect and
// PKCE, the sign-in and consent pages (headless), and the token request. Each step throws naming
// the step and what Quarry answered, so a failing case says where the client gets stuck.

type Json = Record<string, unknown>;

/** What the client learned before it registers: the challenge, the resource's and the server's metadata. */
export interface Discovery {
  resourceMetadata: { resource: string; scopes_supported?: string[]; authorization_servers: string[] };
  server: Json & { issuer: string; authorization_endpoint: string; token_endpoint: string };
}

const fail = (step: string, status: number, body: string): never => {
  throw new Error(`${step}: Quarry answered ${status}: ${body.slice(0, 600)}`);
};

/** What a page says, without its markup and styles. */
const textOf = (html: string) =>
  html
    .replace(/<(style|script)[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

async function getJson(step: string, url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  const text = await response.text();
  if (response.status !== 200) fail(step, response.status, text);
  return JSON.parse(text) as Json;
}

/** An initialize without a token, the 401's `resource_metadata`, then both metadata documents. */
export async function discover(mcpUrl: string, client: ClientFixture): Promise<Discovery> {
  const challenge = await fetch(mcpUrl, {
    method: 'POST',
    headers: client.mcp.headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: client.mcp.protocolVersion,
        capabilities: client.mcp.capabilities,
        clientInfo: client.mcp.clientInfo,
      },
    }),
  });
  const header = challenge.headers.get('www-authenticate') ?? '';
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(header)?.[1];
  if (challenge.status !== 401 || !metadataUrl) fail('the unauthenticated initialize', challenge.status, header);
  const resourceMetadata = (await getJson(
    'protected-resource metadata',
    metadataUrl!,
  )) as Discovery['resourceMetadata'];
  const issuer = resourceMetadata.authorization_servers[0]!;
  const server = (await getJson(
    'authorization-server metadata',
    `${new URL(issuer).origin}/.well-known/oauth-authorization-server`,
  )) as Discovery['server'];
  return { resourceMetadata, server };
}

/** The scope the client puts on its registration and authorization request (undefined: none). */
export function scopeOf(client: ClientFixture, found: Discovery): string | undefined {
  const fromServer = (found.server.scopes_supported as string[] | undefined) ?? [];
  const fromResource = found.resourceMetadata.scopes_supported ?? [];
  switch (client.scope) {
    case 'none':
      return undefined;
    case 'authorization-server':
      return fromServer.join(' ');
    case 'protected-resource':
      return fromResource.join(' ');
    case 'protected-resource+offline':
      return [...fromResource, ...(fromServer.includes('offline_access') ? ['offline_access'] : [])].join(' ');
  }
}

const withPort = (value: unknown, port: number): unknown =>
  JSON.parse(JSON.stringify(value).replaceAll('{port}', String(port)));

/** Registers as the client does (its DCR body), or checks Quarry will read its metadata document. */
export async function identify(client: ClientFixture, found: Discovery, scope: string | undefined, port: number) {
  const { registration } = client;
  if (registration.kind === 'cimd') {
    // Clients send their document URL only when the server says it reads them (else they register).
    if (found.server.client_id_metadata_document_supported !== true)
      throw new Error('Client ID Metadata Documents are not advertised: this client would fall back to registering');
    const methods = (found.server.token_endpoint_auth_methods_supported as string[] | undefined) ?? [];
    if (registration.onlyWithNone && !methods.includes('none'))
      throw new Error('"none" is not an advertised token endpoint method: this client would fall back to registering');
    return registration.clientId;
  }
  const endpoint = found.server.registration_endpoint as string | undefined;
  if (!endpoint) throw new Error('no registration_endpoint: this client cannot register');
  const body = {
    ...(withPort(registration.body, port) as Json),
    ...(registration.scopeInBody && scope ? { scope } : {}),
  };
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) fail('dynamic client registration', response.status, text);
  return (JSON.parse(text) as { client_id: string }).client_id;
}

/** The `resource` the client sends on authorize and token. */
const resourceOf = (client: ClientFixture, found: Discovery, mcpUrl: string) =>
  client.resource === 'server-url' ? mcpUrl : found.resourceMetadata.resource;

/** Authorize with the client's redirect and PKCE; a person signs in and allows it (headless browser). */
export async function authorize(
  client: ClientFixture,
  found: Discovery,
  request: { clientId: string; scope?: string; port: number; mcpUrl: string; email: string; password: string },
) {
  const redirectUri = client.redirectUri.replace('{port}', String(request.port));
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(16).toString('base64url');
  const url = new URL(found.server.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    resource: resourceOf(client, found, request.mcpUrl),
    ...(request.scope ? { scope: request.scope } : {}),
  }).toString();
  const browser = createBrowser();
  // Quarry's sign-in page, or a page saying why not (then the person never gets to sign in).
  const first = await browser.follow(url.toString(), redirectUri);
  if (first.page && !new URL(first.url).pathname.startsWith('/oauth/interaction/'))
    fail('authorization request', first.page.status, textOf(first.page.html));
  const callback = await browser.authorize(first.url, {
    email: request.email,
    password: request.password,
    redirectUri,
  });
  const code = callback.searchParams.get('code');
  if (!code || callback.searchParams.get('state') !== state)
    throw new Error(`authorization came back without a code for this state: ${callback.search}`);
  if (callback.searchParams.get('iss') !== found.server.issuer) throw new Error(`no RFC 9207 iss: ${callback.search}`);
  return { code, verifier, redirectUri };
}

/** The key a client signs its private_key_jwt assertions with, and its kid. */
export interface SigningKey {
  key: CryptoKey;
  kid: string;
}

/** Exchanges the code as the client does: public client, or a private_key_jwt assertion. */
export async function exchange(
  client: ClientFixture,
  found: Discovery,
  grant: {
    clientId: string;
    code: string;
    verifier: string;
    redirectUri: string;
    mcpUrl: string;
    signingKey?: SigningKey;
  },
) {
  const advertised = (found.server.token_endpoint_auth_methods_supported as string[] | undefined) ?? [];
  const method = client.tokenAuth.find((m) => advertised.includes(m));
  if (!method) throw new Error(`none of ${client.tokenAuth.join(', ')} is advertised (${advertised.join(', ')})`);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
    resource: resourceOf(client, found, grant.mcpUrl),
    client_id: grant.clientId,
  });
  if (method === 'private_key_jwt') {
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: grant.signingKey!.kid })
      .setIssuer(grant.clientId)
      .setSubject(grant.clientId)
      .setAudience(found.server.token_endpoint)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(grant.signingKey!.key);
    form.set('client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    form.set('client_assertion', assertion);
  }
  const response = await fetch(found.server.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const text = await response.text();
  if (response.status !== 200) fail(`token request (${method})`, response.status, text);
  return JSON.parse(text) as { access_token: string; refresh_token?: string; scope?: string };
}
