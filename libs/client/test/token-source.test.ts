import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, expect, it } from '@jest/globals';
import { createQuarryClient, TokenRequestError } from '../src/index.js';

// The token request @quarry/client makes, against a local HTTP endpoint that records it: client
// credentials in HTTP Basic, the gRPC resource and the scopes; one token reused; a refusal
// surfaced with the authorization server's error. (Calls to the real services are tested above
// this lib, where the whole system runs.)

const requests: { authorization?: string; body: URLSearchParams }[] = [];
let answer: { status: number; body: object } = { status: 200, body: {} };
const server = createServer((req: IncomingMessage, res) => {
  let raw = '';
  req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  req.on('end', () => {
    requests.push({ authorization: req.headers.authorization, body: new URLSearchParams(raw) });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
});
let issuer = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  requests.length = 0;
});

// No service listens at this address: a call fails after the token was fetched, which is all
// this test needs to see the token request.
const client = () =>
  createQuarryClient({
    issuer,
    clientId: 'qsa_1',
    clientSecret: 'qss_secret',
    scopes: ['quarry:read', 'quarry:write'],
    addresses: { plan: '127.0.0.1:1' },
  });

it('asks for a client-credentials token for the gRPC resource, and reuses it', async () => {
  answer = { status: 200, body: { access_token: 'token-1', expires_in: 300, token_type: 'Bearer' } };
  const quarry = client();
  for (let i = 0; i < 2; i++) {
    await expect(quarry.plan.listActivePlans({}, { deadlineMs: 500 })).rejects.toMatchObject({
      name: 'QuarryError',
    });
  }
  quarry.close();
  expect(requests).toHaveLength(1);
  expect(requests[0]!.authorization).toBe(`Basic ${Buffer.from('qsa_1:qss_secret').toString('base64')}`);
  expect(Object.fromEntries(requests[0]!.body)).toEqual({
    grant_type: 'client_credentials',
    resource: 'urn:quarry:grpc',
    scope: 'quarry:read quarry:write',
  });
});

it('rejects with the authorization server error when the account is refused', async () => {
  answer = { status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } };
  const quarry = client();
  const error = await quarry.plan.listActivePlans({}).catch((e: unknown) => e);
  quarry.close();
  expect(error).toBeInstanceOf(TokenRequestError);
  expect(error).toMatchObject({ status: 401, error: 'invalid_client' });
  expect((error as Error).message).toContain('client authentication failed');
});

it('names a service whose address was not given', () => {
  const quarry = client();
  expect(() => quarry.search).toThrow('No address given for the search service');
  quarry.close();
});
