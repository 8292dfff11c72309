import { createHash } from 'node:crypto';

// Each org's audit entries (plan_audit_log rows and deleted_plans tombstones) form one hash
// chain: entry n stores prev_hash (entry n-1's row_hash, GENESIS_HASH for n = 1) and
//   row_hash = sha256hex(prev_hash + sha256hex(canonical content)).
// The database's chain trigger computes the same thing in SQL (the audit_chain migration); this
// is the independent implementation the verifier uses, from the columns alone. The canonical
// content is PostgreSQL's text form of a jsonb array (elements joined by ", "), so it is
// rendered here exactly as jsonb prints it: strings escaped as JSON.stringify escapes them
// (PostgreSQL's escape_json uses the same escapes), integers in decimal, and the jsonb columns
// (details, purged_links) as the text PostgreSQL gives for them, unparsed.

/** The prev_hash of an org's first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** An audit row as the verifier reads it (timestamps as PostgreSQL prints them, microseconds, UTC). */
export interface ChainedAuditRow {
  readonly id: string;
  readonly orgId: string;
  readonly chainSeq: number;
  readonly planId: string;
  readonly stepId: string | null;
  readonly sessionId: string | null;
  readonly eventType: string;
  /** `details::text`. */
  readonly detailsJson: string;
  /** `YYYY-MM-DDTHH:MI:SS.uuuuuuZ`. */
  readonly occurredAt: string;
  readonly prevHash: string;
  readonly rowHash: string;
}

/** A deletion tombstone as the verifier reads it. */
export interface ChainedTombstone {
  readonly id: string;
  readonly orgId: string;
  readonly chainSeq: number;
  readonly planId: string;
  readonly deletedBy: string;
  readonly requestId: string | null;
  readonly stepsDeleted: number;
  readonly artifactsDeleted: number;
  readonly outputsDeleted: number;
  readonly extractionResultsDeleted: number;
  readonly auditRowsPurged: number;
  readonly auditRowsSha256: string;
  /** `purged_links::text`: `[[chain_seq, content sha256], …]` of the audit rows it purged. */
  readonly purgedLinksJson: string;
  readonly deletedAt: string;
  readonly prevHash: string;
  readonly rowHash: string;
}

/** A jsonb array element: a scalar, or jsonb text taken as PostgreSQL printed it. */
type Element = string | number | null | { readonly jsonb: string };

function render(element: Element): string {
  if (element === null) return 'null';
  if (typeof element === 'number') {
    if (!Number.isSafeInteger(element)) throw new RangeError(`canonical audit content: ${element} is not an integer`);
    return String(element);
  }
  if (typeof element === 'string') return JSON.stringify(element);
  return element.jsonb;
}

const jsonbArrayText = (elements: readonly Element[]): string => `[${elements.map(render).join(', ')}]`;

/** The canonical content of an audit row (plan.audit_row_content in SQL). */
export function auditRowContent(row: ChainedAuditRow): string {
  return jsonbArrayText([
    'quarry.audit.row.v1',
    row.orgId,
    row.chainSeq,
    row.planId,
    row.stepId,
    row.sessionId,
    row.eventType,
    { jsonb: row.detailsJson },
    row.occurredAt,
  ]);
}

/** The canonical content of a tombstone (plan.audit_tombstone_content in SQL). */
export function tombstoneContent(t: ChainedTombstone): string {
  return jsonbArrayText([
    'quarry.audit.tombstone.v1',
    t.orgId,
    t.chainSeq,
    t.planId,
    t.deletedBy,
    t.requestId,
    t.stepsDeleted,
    t.artifactsDeleted,
    t.outputsDeleted,
    t.extractionResultsDeleted,
    t.auditRowsPurged,
    t.auditRowsSha256,
    { jsonb: t.purgedLinksJson },
    t.deletedAt,
  ]);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** An entry's row_hash from its predecessor's and its own content hash. */
export function linkHash(prevHash: string, contentSha256: string): string {
  return sha256Hex(prevHash + contentSha256);
}

const HASH = /^[0-9a-f]{64}$/;

/** A tombstone's purged links, or a reason they are malformed. */
export function parsePurgedLinks(json: string): { seq: number; contentSha256: string }[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return 'purged_links is not JSON';
  }
  if (!Array.isArray(parsed)) return 'purged_links is not an array';
  const links: { seq: number; contentSha256: string }[] = [];
  for (const link of parsed as unknown[]) {
    if (
      !Array.isArray(link) ||
      link.length !== 2 ||
      !Number.isSafeInteger(link[0]) ||
      (link[0] as number) < 1 ||
      typeof link[1] !== 'string' ||
      !HASH.test(link[1])
    )
      return `purged_links holds a malformed link: ${JSON.stringify(link)}`;
    links.push({ seq: link[0] as number, contentSha256: link[1] });
  }
  return links;
}
