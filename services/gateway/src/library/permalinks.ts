import { legacyPermalinkPath, parsePermalinkPath, parseSourceUrl, permalinkPath, sourceUrl } from '@quarry/contracts';

/**
 * A stored item's permalink: the page under the gateway's public URL that opens it for a
 * signed-in person (`<public url>/app/<artifacts|outputs|extractions>/<id>`), which a client can
 * cite where it cannot open Quarry's own `quarry://` address (docs/adr/0042-chatgpt-search-and-fetch.md).
 */
export interface Permalinks {
  /** The permalink of an item's address (quarry://artifacts/{id}, …); undefined for anything else, or without a public URL. */
  of(address: string): string | undefined;
  /** The address (quarry://…) a permalink of this gateway names; undefined for anything else. */
  addressOf(url: string): string | undefined;
}

/** Permalinks under `publicUrl` (QUARRY_PUBLIC_URL); without one every address stays as it is. */
export function createPermalinks(publicUrl: string | undefined): Permalinks {
  const base = publicUrl?.replace(/\/+$/, '');
  return {
    of(address) {
      const item = base === undefined ? undefined : parseSourceUrl(address);
      return item && `${base}${permalinkPath(item.sourceTable, item.id)}`;
    },
    addressOf(url) {
      if (base === undefined || !url.startsWith(`${base}/`)) return undefined;
      const path = url.slice(base.length);
      const item = parsePermalinkPath(path);
      // Only the exact path (the app's, or the library's it replaced) under this gateway's base.
      const exact = item && [permalinkPath, legacyPermalinkPath].some((of) => of(item.sourceTable, item.id) === path);
      return exact ? sourceUrl(item.sourceTable, item.id) : undefined;
    },
  };
}
