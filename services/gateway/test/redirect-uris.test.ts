import { describe, expect, it } from '@jest/globals';
import { inferApplicationType, redirectTarget, redirectUriProblem } from '../src/oauth/redirect-uris.js';

// The redirect rules of RFC 8252 as Quarry applies them, on the redirect URIs real clients send.

describe('the application_type of a client that sent none', () => {
  it.each([
    [
      'Cursor',
      ['cursor://anysphere.cursor-mcp/oauth/callback', 'https://www.cursor.com/agents/mcp/oauth/callback'],
      'native',
    ],
    ['VS Code', ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'], 'native'],
    ['Claude Code', ['http://localhost:54212/callback'], 'native'],
    ['an IPv6 loopback', ['http://[::1]:8080/'], 'native'],
    ['claude.ai', ['https://claude.ai/api/mcp/auth_callback'], 'web'],
    ['ChatGPT', ['https://chatgpt.com/connector_platform_oauth_redirect'], 'web'],
    ['a local web app on https and http loopback', ['https://localhost:8443/cb', 'http://127.0.0.1:3000/cb'], 'web'],
    ['no redirect at all (a service account)', [], 'web'],
  ])('%s: %s', (_name, uris, type) => {
    expect(inferApplicationType(uris)).toBe(type);
  });
});

describe('a redirect URI', () => {
  it.each([
    ['cursor://anysphere.cursor-mcp/oauth/callback', 'native'],
    ['http://127.0.0.1:33418/', 'native'],
    ['http://localhost/callback', 'web'],
    ['https://vscode.dev/redirect', 'native'],
    ['https://claude.ai/api/mcp/auth_callback', 'web'],
  ] as const)('%s is fine for a %s client', (uri, type) => {
    expect(redirectUriProblem(uri, type)).toBeUndefined();
  });

  it.each([
    ['javascript:alert(1)', 'native', 'uses the javascript: scheme'],
    ['vbscript:msgbox', 'web', 'uses the vbscript: scheme'],
    ['http://127.0.0.1.example.com/cb', 'native', 'uses http to a host that is not this device'],
    ['http://10.0.0.5/cb', 'web', 'uses http to a host that is not this device'],
    ['https://app.example/cb#x', 'web', 'has a fragment'],
    ['not a uri', 'web', 'is not an absolute URI'],
    ['cursor://anysphere.cursor-mcp/oauth/callback', 'web', 'only native clients may register'],
    ['https://127.0.0.1:8443/cb', 'native', 'use http://127.0.0.1:8443/cb'],
  ] as const)('%s is refused for a %s client, named', (uri, type, reason) => {
    const problem = redirectUriProblem(uri, type);
    expect(problem).toContain(reason);
    expect(problem).toContain(JSON.stringify(uri));
    expect(problem?.startsWith('redirect_uris')).toBe(true);
  });
});

describe('where the consent page says the user goes back to', () => {
  it.each([
    ['https://claude.ai/api/mcp/auth_callback', 'claude.ai'],
    ['http://127.0.0.1:54321/', '127.0.0.1:54321'],
    ['cursor://anysphere.cursor-mcp/oauth/callback', 'cursor://anysphere.cursor-mcp'],
  ])('%s: %s', (uri, target) => {
    expect(redirectTarget(uri)).toBe(target);
  });
});
