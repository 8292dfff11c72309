// Browser code: the search-results view's App, bundled into ui://quarry/search-results (../view-bundle.ts).
import { renderSearchView, type SearchResult, type SearchSourcesResult, searchViewFrom } from '@quarry/views';
import { notice, startView } from './view-host.js';

/**
 * The search-results view inside the chat: the hits of the search call it
 * was opened for, with each hit's snippet, source and how each leg of the hybrid search ranked
 * it. It shows the tool's own result; nothing more is read.
 */
void startView('Quarry search results', (host) => {
  host.show(notice('Searching…'));
  host.app.ontoolresult = (result) => {
    const content = result.structuredContent as SearchSourcesResult | SearchResult | undefined;
    if (result.isError || !content || !Array.isArray(content.results)) {
      host.show(notice('The search returned no results to show.'));
      return;
    }
    host.show(renderSearchView(searchViewFrom(content)));
  };
  host.app.ontoolcancelled = () => host.show(notice('The search was cancelled.'));
});
