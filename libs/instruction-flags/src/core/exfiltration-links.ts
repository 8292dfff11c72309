import { excerptOf, type InstructionFlag } from './flag.js';

/**
 * Links made to carry the conversation away: a model that renders a markdown image or follows a
 * link sends its address, so an address whose query holds a placeholder for the model to fill
 * ({conversation}, [DATA], <secret>, $HISTORY) or long encoded data bound for a host that is not
 * a known research site is flagged. Ordinary references (DOIs, arXiv, PubMed, repositories,
 * tracking parameters of journals) are not.
 */

const URL = /https?:\/\/[^\s)<>"'\]]+/g;
const KNOWN_HOSTS =
  /(?:^|\.)(?:doi\.org|arxiv\.org|ncbi\.nlm\.nih\.gov|nih\.gov|europepmc\.org|github\.com|gitlab\.com|githubusercontent\.com|wikipedia\.org|wikimedia\.org|scholar\.google\.com|semanticscholar\.org|acm\.org|ieee\.org|springer\.com|springeropen\.com|sciencedirect\.com|elsevier\.com|nature\.com|science\.org|wiley\.com|tandfonline\.com|sagepub\.com|plos\.org|biorxiv\.org|medrxiv\.org|ssrn\.com|jstor\.org|openreview\.net|aclanthology\.org|neurips\.cc|mlr\.press|zenodo\.org|figshare\.com|osf\.io|huggingface\.co|pypi\.org|npmjs\.com|who\.int|cdc\.gov|europa\.eu|oup\.com|cambridge\.org|frontiersin\.org|mdpi\.com|researchgate\.net|orcid\.org|crossref\.org|youtube\.com|google\.com)$/;
const PLACEHOLDER =
  /\{\{?[^}]{1,40}\}\}?|\[(?:[A-Z_ ]{3,40}|[a-z_ ]*(?:data|conversation|history|secret|summary|message|chat|context|info|query|answer|response|key|password|token|email|name|user)[a-z_ ]*)\]|<[A-Za-z_ ]{3,40}>|\$[A-Z_]{3,}|%s|INSERT[_ ]?\w*|(?:YOUR|USER)_[A-Z_]+/;
const ENCODED = /[A-Za-z0-9+/_%=-]{40,}/;

function decodedQuery(url: string): string {
  try {
    return decodeURIComponent(url.slice(url.indexOf('?') + 1));
  } catch {
    return url.slice(url.indexOf('?') + 1);
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new globalThis.URL(url.replace(/[{}[\]<>$]/g, 'x')).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export function exfiltrationLinkFlags(text: string): InstructionFlag[] {
  const out: InstructionFlag[] = [];
  for (const m of text.matchAll(URL)) {
    let url = m[0].replace(/[.,;:!?]+$/, '');
    // A placeholder may hold spaces or closing brackets the URL pattern stopped at: take the rest of the link.
    const rest = text.slice(m.index + url.length).match(/^[^\s)]*(?:\}\}?|\])/);
    if (rest) url += rest[0];
    if (!url.includes('?') && !url.includes('#')) continue;
    const host = hostOf(url);
    const query = decodedQuery(url);
    const image = text.slice(Math.max(0, m.index - 200), m.index).match(/!\[[^\]]{0,100}\]\($/) !== null;
    const unknown = host === undefined || !KNOWN_HOSTS.test(host);
    const placeholder = PLACEHOLDER.test(query);
    const encoded = ENCODED.test(url.slice(url.indexOf('?') + 1)) && unknown;
    if (
      (placeholder && (unknown || image)) ||
      (encoded && image) ||
      (encoded && /[?&][a-z_]*(?:data|d|q|c|p|payload|msg|history|chat|log|x)=/i.test(url))
    ) {
      out.push({
        kind: 'exfiltration_link',
        start: m.index,
        end: m.index + url.length,
        excerpt: excerptOf(url),
      });
    }
  }
  return out;
}
