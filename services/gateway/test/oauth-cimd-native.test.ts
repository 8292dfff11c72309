import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startCimdDocuments } from './cimd-documents.js';
import { oauthRequests, startOAuthGateway } from './oauth-requests.js';

// Native clients identified by a Client ID Metadata Document rather than registered: the same
// redirect rules as Dynamic Client Registration (private-use schemes, loopback on any port, an
// inferred application_type), and a document listing an unusable redirect URI is refused with
// Quarry's page naming it, never a redirect.

let documents: Awaited<ReturnType<typeof startCimdDocuments>>;
let gateway: Awaited<ReturnType<typeof startOAuthGateway>>;
let oauth: ReturnType<typeof oauthRequests>;

beforeAll(async () => {
  documents = await startCimdDocuments();
  gateway = await startOAuthGateway({ oauthFetch: documents.fetch });
  oauth = oauthRequests(gateway);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await documents?.close();
});

/** A native client's document, as a desktop app publishes it: no application_type. */
const nativeDocument = (path: string, redirectUris: string[]) =>
  documents.serve(path, {
    client_name: 'Desktop app',
    redirect_uris: redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });

describe('a native client with a metadata document', () => {
  it('signs in at a loopback port other than the one its document lists, and gets tokens', async () => {
    const clientId = nativeDocument('/native/loopback.json', [
      'http://127.0.0.1:33418/',
      'https://app.example/redirect',
    ]);
    const perRun = 'http://127.0.0.1:40123/';
    const { code, verifier, callback } = await oauth.codeFor(clientId, perRun);
    expect(callback.port).toBe('40123');
    const tokens = await oauth.token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: perRun,
      client_id: clientId,
      resource: gateway.url,
    });
    expect(tokens.status).toBe(200);
    expect((await oauth.ping(tokens.body.access_token as string)).status).toBe(200);
  });

  it('signs in at its private-use scheme', async () => {
    const redirect = 'com.example.desktop:/oauth/callback';
    const clientId = nativeDocument('/native/scheme.json', [redirect]);
    const { code, verifier, callback } = await oauth.codeFor(clientId, redirect);
    expect(callback.protocol).toBe('com.example.desktop:');
    const tokens = await oauth.token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: redirect,
      client_id: clientId,
      resource: gateway.url,
    });
    expect(tokens.status).toBe(200);
  });
});

describe('a metadata document with an unusable redirect URI', () => {
  it.each([
    ['javascript:', 'javascript:alert(document.cookie)', 'uses the javascript: scheme'],
    ['data:', 'data:text/html,<script>alert(1)</script>', 'uses the data: scheme'],
    ['file:', 'file:///etc/passwd', 'uses the file: scheme'],
    ['http to another host', 'http://app.example/callback', 'uses http to a host that is not this device'],
    ['a fragment', 'https://app.example/callback#done', 'has a fragment'],
  ])('is refused for %s with a page naming it', async (name, bad, reason) => {
    const path = `/refused/${encodeURIComponent(name)}.json`;
    const clientId = nativeDocument(path, ['http://127.0.0.1:33418/', bad]);
    const answer = await oauth
      .browser()
      .request(oauth.authorizeUrl({ client_id: clientId, redirect_uri: 'http://127.0.0.1:33418/' }));
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
    expect(answer.html).toContain('This app&#39;s registration is not valid');
    expect(answer.html).toContain(reason);
    // Named, escaped: the page quotes the URI and never carries markup from it.
    expect(answer.html).toContain(
      JSON.stringify(bad).replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
    );
    expect(answer.html).not.toContain('<script>alert');
    expect(answer.html).not.toContain('oops! something went wrong');
  });
});
