import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { McpUiResourceMeta } from '@modelcontextprotocol/ext-apps';
import { toolNames } from '@quarry/contracts';
import { VIEWS_CSS } from '@quarry/views';
import type { ViewEntry } from './view-bundle.js';

/** A view Quarry shows inside the chat, and the tools whose results it renders. */
export interface AppView {
  uri: string;
  name: string;
  title: string;
  description: string;
  entry: ViewEntry;
  tools: readonly string[];
}

export const APP_VIEWS: readonly AppView[] = [
  {
    uri: 'ui://quarry/plan-view',
    name: 'plan-view',
    title: 'Research plan',
    description: "A research plan's steps, progress, results, reviews, artifacts and deliverables, kept live.",
    entry: 'plan-app',
    tools: [toolNames.createResearchPlan, toolNames.getPlanStatus],
  },
  {
    uri: 'ui://quarry/search-results',
    name: 'search-results',
    title: 'Search results',
    description:
      'What a search found: each hit with its snippet, source and how keyword and semantic search ranked it.',
    entry: 'search-app',
    tools: [toolNames.searchSources, toolNames.search],
  },
];

/**
 * What the ui:// resources declare (`_meta.ui`): no csp, so hosts apply the extension's
 * restrictive default (no connections, no other origin: the views call Quarry only through the
 * host), no permissions, no dedicated domain; a border, as a card in the conversation.
 */
export const VIEW_RESOURCE_META: McpUiResourceMeta = { prefersBorder: true };

/** Layout of the document around the view (the view's own styles are @quarry/views'). */
const DOCUMENT_CSS = 'body{margin:0;padding:12px 16px;background:transparent}';

/**
 * The HTML5 document a ui:// resource serves: the views' stylesheet and the bundled App inline
 * (an MCP App is one self-contained document; the host's CSP allows inline script and style and
 * nothing else). `</script` cannot end the script early: it is escaped wherever it occurs.
 */
export function viewDocument(view: AppView, script: string): string {
  const inline = script.replace(/<\/(script)/gi, '<\\/$1');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Quarry: ${view.title}</title>`,
    `<style>${VIEWS_CSS}${DOCUMENT_CSS}</style></head>`,
    '<body><main id="view"></main>',
    `<script type="module">${inline}</script></body>`,
    '</html>',
  ].join('\n');
}

export { RESOURCE_MIME_TYPE };
