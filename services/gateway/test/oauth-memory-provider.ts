import type { OAuthClientProvider } from '@modelcontextprotocol/client';

/**
 * An MCP client's OAuth provider as an app would keep it, everything in memory (the discovery
 * state too, so the SDK binds the callback to the authorization server): it registers itself
 * dynamically under `clientName` with one redirect URI, and keeps the authorization URL
 * it is asked to open (`state.authorizationUrl`) for the test to open in its browser.
 */
export function memoryProvider(clientName: string, redirect: string) {
  const state: {
    client?: Awaited<ReturnType<NonNullable<OAuthClientProvider['clientInformation']>>>;
    tokens?: Awaited<ReturnType<OAuthClientProvider['tokens']>>;
    verifier?: string;
    discovery?: Awaited<ReturnType<NonNullable<OAuthClientProvider['discoveryState']>>>;
    authorizationUrl?: URL;
  } = {};
  const provider: OAuthClientProvider = {
    redirectUrl: redirect,
    clientMetadata: {
      client_name: clientName,
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    clientInformation: () => state.client,
    saveClientInformation: (info) => {
      state.client = info;
    },
    tokens: () => state.tokens,
    saveTokens: (tokens) => {
      state.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      state.authorizationUrl = url;
    },
    saveCodeVerifier: (verifier) => {
      state.verifier = verifier;
    },
    codeVerifier: () => state.verifier!,
    // Kept with the verifier, so the SDK checks the code comes back from the server it asked.
    saveDiscoveryState: (discovery) => {
      state.discovery = discovery;
    },
    discoveryState: () => state.discovery,
  };
  return { provider, state };
}
