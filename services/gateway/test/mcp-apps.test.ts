import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { toolNames } from '@quarry/contracts';
import type { FastifyInstance } from 'fastify';
import { APP_VIEWS, viewDocument } from '../src/mcp/apps/app-views.js';
import { injectPost, LEGACY_INIT, MODERN_ENVELOPE } from './mcp-requests.js';
import { bearer, buildStubServer, stubTools, ADA_TOKEN } from './stub-deps.js';

// MCP Apps (ADR 0049) on the endpoint, over inject() against stub services: a 2026-07-28 client
// that declares the extension with the MCP App MIME type sees the plan and search tools name
// their ui:// view and reads the views' documents; every other client (2025-era, 2026 without
// the extension, with another extension, with the extension but not the MIME type) gets the
// very bytes a gateway without MCP Apps answers.

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const PLAN = '3b0e5f4c-1d2a-4c3b-8e9f-0a1b2c3d4e5f';

let withApps: FastifyInstance;
let without: FastifyInstance;

beforeAll(async () => {
  const server = async (mcpApps: boolean) => {
    const tools = stubTools();
    tools.stub.reply('get_plan_status', (request) => ({
      planId: request.planId as string,
      name: 'Apps',
      status: 'PLAN_STATUS_EXECUTING',
      derivedStatus: 'PLAN_STATUS_EXECUTING',
      stalled: false,
      progress: 50,
      totalSteps: 2,
      completedSteps: [
        { stepId: PLAN, stepOrder: 1, instructions: '<script>x</script>', status: 'STEP_STATUS_COMPLETED' },
      ],
      pendingSteps: [],
    }));
    tools.stub.reply('search_sources', (request) => ({
      query: request.query as string,
      queryType: 'QUERY_TYPE_KEYWORD',
      mode: 'SEARCH_MODE_HYBRID',
      resultCount: 0,
      keywordResults: 0,
      semanticResults: 0,
      results: [],
    }));
    return (await buildStubServer({ tools, mcpApps })).app;
  };
  [withApps, without] = [await server(true), await server(false)];
});
afterAll(async () => {
  await withApps?.close();
  await without?.close();
});

type Capabilities = Record<string, unknown>;
const APPS: Capabilities = { extensions: { [UI]: { mimeTypes: [MIME] } } };

/** A 2026-07-28 request with these client capabilities, as (headers, body). */
function modern(method: string, params: Record<string, unknown>, capabilities: Capabilities = {}) {
  const named = params.name ?? params.uri;
  const meta = { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': capabilities };
  return {
    headers: {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof named === 'string' ? { 'mcp-name': named } : {}),
      ...bearer(ADA_TOKEN),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta: meta } }),
  };
}
function legacy(method: string, params: Record<string, unknown>) {
  return {
    headers: { 'mcp-protocol-version': '2025-11-25', ...bearer(ADA_TOKEN) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  };
}
const ask = (app: FastifyInstance, request: { headers: Record<string, string>; body: string }) =>
  injectPost(app, request.body, request.headers);

const REQUESTS = [
  ['tools/list', {}],
  ['tools/call', { name: toolNames.getPlanStatus, arguments: { planId: PLAN } }],
  ['tools/call', { name: toolNames.searchSources, arguments: { query: 'q' } }],
  ['resources/read', { uri: 'ui://quarry/plan-view' }],
  ['resources/read', { uri: 'ui://quarry/search-results' }],
] as const;

describe('clients that do not negotiate MCP Apps', () => {
  const modernClients: Array<[string, Capabilities]> = [
    ['no extension', {}],
    ['another extension', { extensions: { 'io.modelcontextprotocol/tasks': {} } }],
    ['the extension without the MCP App MIME type', { extensions: { [UI]: { mimeTypes: ['text/html'] } } }],
    ['the extension with no settings', { extensions: { [UI]: {} } }],
  ];

  it.each(modernClients)('get the same bytes as without MCP Apps (2026-07-28, %s)', async (_name, capabilities) => {
    for (const [method, params] of REQUESTS) {
      const request = modern(method, params, capabilities);
      const [a, b] = [await ask(withApps, request), await ask(without, request)];
      expect(a.status).toBe(b.status);
      expect(a.text).toBe(b.text);
      expect(a.text).not.toMatch(/resourceUri|profile=mcp-app/);
    }
  });

  it('get the same bytes as without MCP Apps (2025-era, even declaring the extension at initialize)', async () => {
    const init = JSON.parse(LEGACY_INIT) as { params: { capabilities: Capabilities } };
    init.params.capabilities = APPS;
    const initialize = { headers: bearer(ADA_TOKEN), body: JSON.stringify(init) };
    const [a, b] = [await ask(withApps, initialize), await ask(without, initialize)];
    expect(a.text).toBe(b.text);
    for (const [method, params] of REQUESTS) {
      const request = legacy(method, params);
      const [c, d] = [await ask(withApps, request), await ask(without, request)];
      expect(c.status).toBe(d.status);
      expect(c.text).toBe(d.text);
      expect(c.text).not.toMatch(/resourceUri|profile=mcp-app/);
    }
  });
});

describe('a 2026-07-28 client that negotiates MCP Apps', () => {
  it('sees the plan and search tools name their view, and nothing else changed', async () => {
    const [a, b] = [
      await ask(withApps, modern('tools/list', {}, APPS)),
      await ask(without, modern('tools/list', {}, APPS)),
    ];
    const apps = a.json.result.tools as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const plain = b.json.result.tools as Array<Record<string, unknown>>;
    const declared = Object.fromEntries(apps.filter((t) => t._meta).map((t) => [t.name, t._meta]));
    expect(declared).toEqual({
      [toolNames.createResearchPlan]: {
        ui: { resourceUri: 'ui://quarry/plan-view' },
        'ui/resourceUri': 'ui://quarry/plan-view',
      },
      [toolNames.getPlanStatus]: {
        ui: { resourceUri: 'ui://quarry/plan-view' },
        'ui/resourceUri': 'ui://quarry/plan-view',
      },
      [toolNames.search]: {
        ui: { resourceUri: 'ui://quarry/search-results' },
        'ui/resourceUri': 'ui://quarry/search-results',
      },
      [toolNames.searchSources]: {
        ui: { resourceUri: 'ui://quarry/search-results' },
        'ui/resourceUri': 'ui://quarry/search-results',
      },
    });
    // The model-facing parts (name, title, description, schemas) are the same: no token more in the catalogue.
    expect(apps.map(({ _meta, ...tool }) => tool)).toEqual(plain);
  });

  it('gets the same tool results as any client', async () => {
    for (const [method, params] of REQUESTS.filter(([m]) => m === 'tools/call')) {
      const [a, b] = [
        await ask(withApps, modern(method, params, APPS)),
        await ask(without, modern(method, params, APPS)),
      ];
      expect(a.text).toBe(b.text);
    }
  });

  it.each([
    ['ui://quarry/plan-view', 'Research plan'],
    ['ui://quarry/search-results', 'Search results'],
  ])(
    'reads %s as a self-contained HTML document with the extension MIME type',
    async (uri, title) => {
      const { status, json } = await ask(withApps, modern('resources/read', { uri }, APPS));
      expect(status).toBe(200);
      expect(json.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
      const [content] = json.result.contents;
      expect(content).toMatchObject({ uri, mimeType: MIME, _meta: { ui: { prefersBorder: true } } });
      const html = content.text as string;
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).toContain(`<title>Quarry: ${title}</title>`);
      // One inline module script, which nothing inside it can end early; nothing loaded from elsewhere.
      expect(html.match(/<script\b/g)).toHaveLength(1);
      expect(html.match(/<\/script/gi)).toHaveLength(1);
      expect(html).toMatch(/<script type="module">[^]+<\/script><\/body>\n<\/html>$/);
      expect(html).not.toMatch(/<script[^>]+src=|<link\b|@import|<iframe/i);
      // No `<!--` either, which could make the parser read past the script's end.
      expect(html).not.toContain('<!--');
      // The tools the view calls are put in by name from the catalogue when it is bundled.
      expect(html).not.toContain('QUARRY_VIEW_TOOLS');
    },
    60_000,
  );

  it('reads only the views it was told of: another ui:// uri is not found, as before', async () => {
    const request = modern('resources/read', { uri: 'ui://quarry/nothing' }, APPS);
    const [a, b] = [await ask(withApps, request), await ask(without, request)];
    expect(a.json.error).toBeDefined();
    expect(a.text).toBe(b.text);
  });
});

describe("a view's document", () => {
  it('keeps a bundle holding </script (in a string) inside its one script', () => {
    const html = viewDocument(APP_VIEWS[0]!, 'const s = "</script><script>alert(1)</SCRIPT>";');
    expect(html.match(/<\/script/gi)).toHaveLength(1);
    expect(html).toContain('const s = "<\\/script><script>alert(1)<\\/SCRIPT>";');
  });
});
