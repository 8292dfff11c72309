import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';

/** The accounts of the upstream identity provider: id → email and whether it verified it. */
export type UpstreamAccounts = Record<string, { email: string; email_verified: boolean }>;

/**
 * A second, real oidc-provider standing in for Google or Okta in the single sign-on tests: one
 * confidential client (Quarry), and sign-in pages replaced by a handler that signs in whichever
 * account the test names and grants `openid email`.
 */
export async function startUpstreamIdp(opts: {
  host: string;
  port: number;
  accounts: UpstreamAccounts;
  redirectUri: string;
  clientId: string;
  clientSecret: string;
}) {
  const issuer = `http://${opts.host}:${opts.port}`;
  let account = Object.keys(opts.accounts)[0]!;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id, ...opts.accounts[id] }) }),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['upstream-test-cookie-key'] },
    jwks: {
      keys: [
        {
          ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
          kid: 'upstream',
        },
      ],
    },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    features: { devInteractions: { enabled: false } },
  });
  const callback = provider.callback();
  const server: Server = createServer((req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: account } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      const grant = new provider.Grant({
        accountId: details.session!.accountId,
        clientId: String(details.params.client_id),
      });
      grant.addOIDCScope('openid email');
      await provider.interactionFinished(
        req,
        res,
        { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true },
      );
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port, opts.host, resolve));
  return {
    issuer,
    /** Who the next sign-in at the upstream provider is. */
    signInAs(id: string) {
      account = id;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
