import { defineErrors, status } from '@quarry/grpc';

/**
 * The artifact store's error catalogue. Codes are stable: the gateway passes them to the model
 * as the tool error's `code`. Plan and step references are refused by the plan engine itself
 * (PLAN_NOT_FOUND / STEP_NOT_FOUND pass through unchanged). ARTIFACT_NOT_FOUND is the same for
 * a missing, a malformed and another organization's artifact id, so ids reveal nothing; so are
 * OUTPUT_NOT_FOUND, EXTRACTION_NOT_FOUND and ITEM_NOT_FOUND (fetch, which reads all three).
 * IDEMPOTENCY_KEY_REUSED: the key already stored another request (core/idempotency.ts).
 * DOCUMENT_*: import_document's file could not be converted (core/document-refusals.ts).
 * URL_*: import_url could not fetch what the URL names, or may not (web/fetch-url.ts).
 * QUOTA_EXCEEDED: the write would pass the org's storage or artifact quota (core/storage-quota.ts);
 * nothing of it is stored, and the use only drops when the org deletes content.
 * ENTITY_NOT_FOUND is the same for a missing, a malformed and another organization's (or
 * another graph's) entity; an evidence item's foreign artifact is ARTIFACT_NOT_FOUND.
 */
export const artifactErrors = defineErrors({
  INVALID_ARGUMENT: {
    status: status.INVALID_ARGUMENT,
    message: (p: { field: string; rule: string }) => `\`${p.field}\` ${p.rule}.`,
  },
  CONTENT_TOO_LARGE: {
    status: status.INVALID_ARGUMENT,
    message: (p: { field: string; limit: string; size: number }) =>
      `\`${p.field}\` is ${p.size} bytes; the limit is ${p.limit}.`,
  },
  ARTIFACT_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: (p: { artifactId: string }) => `No research artifact ${p.artifactId} in your organization.`,
  },
  OUTPUT_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: (p: { outputId: string }) => `No research output ${p.outputId} in your organization.`,
  },
  EXTRACTION_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: (p: { extractionId: string }) => `No extraction result ${p.extractionId} in your organization.`,
  },
  ITEM_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: (p: { id: string }) => `No artifact, research output or extraction result ${p.id} in your organization.`,
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: status.ALREADY_EXISTS,
    message: (p: { key: string }) =>
      `\`idempotencyKey\` "${p.key}" was already used in your organization for a different request; send the same request to get its first result, or a new key for new content.`,
  },
  QUOTA_EXCEEDED: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { quota: string; limit: number; used: number; adding: number; unit: string }) =>
      `Quota ${p.quota} exceeded: your organization's limit is ${p.limit} ${p.unit}, it uses ${p.used}, and this ` +
      `write adds ${p.adding}. Nothing was stored. This quota does not reset with time: delete content you no ` +
      `longer need, or ask the operator to raise it.`,
  },
  INVALID_CURSOR: {
    status: status.INVALID_ARGUMENT,
    message: () =>
      '`cursor` is not one this tool returned for this id and these filters; call again without it to start over.',
  },
  DOCUMENT_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: (p: { artifactId: string }) => `No source document ${p.artifactId} in your organization.`,
  },
  FIGURE_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: (p: { artifactId: string; figure: number; count: number }) =>
      `Document ${p.artifactId} has no figure ${p.figure} (it has ${p.count}); its figures are listed in get_artifact's figures.`,
  },
  FIGURE_TOO_LARGE: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { figure: number; sizeBytes: number; limit: number }) =>
      `Figure ${p.figure} is ${p.sizeBytes} bytes; images over ${p.limit} bytes are not returned as image content (read the original with original: true).`,
  },
  PAGES_OUT_OF_RANGE: {
    status: status.OUT_OF_RANGE,
    message: (p: { pages: string; count: number; kind: string }) =>
      `\`pages\` "${p.pages}" is not in the document: it has ${p.kind}s 1 to ${p.count}.`,
  },
  // A document that could not be converted (the codes of @quarry/documents' DocumentError,
  // prefixed): nothing of it is stored.
  DOCUMENT_UNSUPPORTED_FORMAT: {
    status: status.INVALID_ARGUMENT,
    message: (p: { fileName: string; reason: string }) =>
      `${p.fileName} is not a document Quarry reads (PDF, HTML, DOCX, PPTX, XLSX, Markdown or text): ${p.reason}`,
  },
  DOCUMENT_ENCRYPTED: {
    status: status.FAILED_PRECONDITION,
    message: (p: { fileName: string; reason: string }) =>
      `${p.fileName} is encrypted or password-protected; send it decrypted (${p.reason}).`,
  },
  DOCUMENT_CORRUPT: {
    status: status.INVALID_ARGUMENT,
    message: (p: { fileName: string; reason: string }) => `${p.fileName} is damaged and cannot be read: ${p.reason}`,
  },
  DOCUMENT_NO_TEXT_LAYER: {
    status: status.FAILED_PRECONDITION,
    message: (p: { fileName: string; reason: string }) =>
      `${p.fileName} has no text to read (a scan without a text layer? run OCR on it first): ${p.reason}`,
  },
  DOCUMENT_TOO_LARGE: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { fileName: string; reason: string }) => `${p.fileName} is too large: ${p.reason}`,
  },
  DOCUMENT_TOO_MANY_UNITS: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { fileName: string; reason: string }) => `${p.fileName} has too many pages: ${p.reason}`,
  },
  DOCUMENT_ARCHIVE_BOMB: {
    status: status.INVALID_ARGUMENT,
    message: (p: { fileName: string; reason: string }) =>
      `${p.fileName} unpacks to far more than its size (a zip bomb?): ${p.reason}`,
  },
  DOCUMENT_IMAGE_TOO_LARGE: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { fileName: string; reason: string }) => `${p.fileName} holds an image too large: ${p.reason}`,
  },
  DOCUMENT_TIMEOUT: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { fileName: string; reason: string }) => `${p.fileName} took too long to convert: ${p.reason}`,
  },
  DOCUMENT_OUT_OF_MEMORY: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { fileName: string; reason: string }) =>
      `${p.fileName} needed too much memory to convert: ${p.reason}`,
  },
  // import_url's fetch (web/fetch-url.ts): nothing is stored when it fails.
  URL_BLOCKED: {
    status: status.INVALID_ARGUMENT,
    message: (p: { url: string; rule: string; reason: string }) =>
      `${p.url} is not fetched (rule: ${p.rule}): ${p.reason}. Only public http(s) addresses are imported unless the operator allows others.`,
  },
  URL_TOO_LARGE: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { url: string; limit: number }) =>
      `${p.url} is larger than ${p.limit} bytes, the most import_url fetches; download it and use POST /documents.`,
  },
  URL_TIMEOUT: {
    status: status.RESOURCE_EXHAUSTED,
    message: (p: { url: string; limitMs: number }) => `${p.url} was not fetched within ${p.limitMs / 1000} s.`,
  },
  URL_TOO_MANY_REDIRECTS: {
    status: status.FAILED_PRECONDITION,
    message: (p: { url: string; limit: number }) => `${p.url} redirects more than ${p.limit} times.`,
  },
  URL_UNSUPPORTED_CONTENT: {
    status: status.INVALID_ARGUMENT,
    message: (p: { url: string; reason: string }) =>
      `${p.url} is not a web page or document Quarry reads (HTML, PDF, DOCX, PPTX, XLSX, Markdown, text): ${p.reason}`,
  },
  URL_HTTP_ERROR: {
    status: status.FAILED_PRECONDITION,
    message: (p: { url: string; status: number }) => `${p.url} answered HTTP ${p.status}; nothing was imported.`,
  },
  URL_UNREACHABLE: {
    status: status.FAILED_PRECONDITION,
    message: (p: { url: string; reason: string }) => `${p.url} could not be reached: ${p.reason}`,
  },
  ENTITY_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: (p: { entity: string }) =>
      `No entity ${p.entity} in this graph of your organization (a relation end is an entity ID, or the name or an alias of an entity in \`entities\`).`,
  },
  EVIDENCE_REQUIRED: {
    status: status.INVALID_ARGUMENT,
    message: (p: { relation: string }) =>
      `The relation ${p.relation} has no evidence: give at least one item ({artifactId, page?, start?, end?, quote?}) from a research artifact you stored.`,
  },
  ENTITY_CONFLICT: {
    status: status.FAILED_PRECONDITION,
    message: (p: { name: string; ids: string }) =>
      `The names of "${p.name}" belong to different entities (${p.ids}); upsert it with the names of one of them only.`,
  },
  INVALID_BASE64: {
    status: status.INVALID_ARGUMENT,
    message: (p: { mediaType: string }) =>
      `\`content\` must be the ${p.mediaType} document's bytes, base64-encoded (A–Z, a–z, 0–9, +, /, with = padding).`,
  },
});
