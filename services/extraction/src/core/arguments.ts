import { extractionV1 } from '@quarry/contracts';
import type { RequestedMode } from '../selection.js';
import { extractionErrors } from '../errors.js';

/** extract_data's arguments, checked: exactly one source, the schema, and where the result belongs. */
export interface ExtractionArguments {
  source: { text: string } | { artifactId: string };
  schema: Record<string, unknown>;
  schemaVersion: number;
  planId?: string;
  stepId?: string;
  sourceUrl?: string;
  page?: number;
  section?: string;
  mode: RequestedMode;
}

const MODES: Readonly<Record<extractionV1.ExtractionMode, RequestedMode | undefined>> = {
  [extractionV1.ExtractionMode.EXTRACTION_MODE_UNSPECIFIED]: 'auto',
  [extractionV1.ExtractionMode.EXTRACTION_MODE_AUTO]: 'auto',
  [extractionV1.ExtractionMode.EXTRACTION_MODE_CLIENT]: 'client',
  [extractionV1.ExtractionMode.EXTRACTION_MODE_OFFLINE]: 'offline',
  [extractionV1.ExtractionMode.UNRECOGNIZED]: undefined,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_SCHEMA_VERSION = 1_000_000;
const MAX_URL_CHARS = 2048;
const MAX_SECTION_CHARS = 500;

/** The arguments, checked as the tool's input schema says (the gateway checks them too; internal callers may not). */
export function readArguments(req: extractionV1.ExtractDataRequest): ExtractionArguments {
  const invalid = (field: string, rule: string) => extractionErrors.INVALID_ARGUMENT({ field, rule });
  const source = req.source;
  if (!source) throw invalid('sourceText', 'or `sourceArtifactId` is required (exactly one of them)');
  if (source.$case === 'sourceArtifactId' && !UUID.test(source.sourceArtifactId))
    throw invalid('sourceArtifactId', 'must be a UUID');
  if (!req.extractionSchema) throw invalid('extractionSchema', 'is required (a JSON Schema object)');
  const schemaVersion = req.schemaVersion ?? 1;
  if (!Number.isInteger(schemaVersion) || schemaVersion < 1 || schemaVersion > MAX_SCHEMA_VERSION) {
    throw invalid('schemaVersion', `must be an integer from 1 to ${MAX_SCHEMA_VERSION}`);
  }
  if (req.planId !== undefined && !UUID.test(req.planId)) throw invalid('planId', 'must be a UUID');
  if (req.stepId !== undefined && !UUID.test(req.stepId)) throw invalid('stepId', 'must be a UUID');
  if (req.stepId !== undefined && req.planId === undefined)
    throw invalid('stepId', 'needs planId (the plan the step belongs to)');
  if (req.sourceUrl !== undefined && (req.sourceUrl.length > MAX_URL_CHARS || !URL.canParse(req.sourceUrl))) {
    throw invalid('sourceUrl', `must be an absolute URL of at most ${MAX_URL_CHARS} characters`);
  }
  const { page, section } = req.sourceLocation ?? {};
  if (page !== undefined && page < 1) throw invalid('sourceLocation.page', 'must be at least 1');
  if (section !== undefined && (section.length < 1 || section.length > MAX_SECTION_CHARS)) {
    throw invalid('sourceLocation.section', `must be 1 to ${MAX_SECTION_CHARS} characters`);
  }
  const mode = MODES[req.mode ?? extractionV1.ExtractionMode.EXTRACTION_MODE_UNSPECIFIED];
  if (mode === undefined) throw invalid('mode', 'must be one of auto, client, offline');
  return {
    mode,
    source: source.$case === 'sourceText' ? { text: source.sourceText } : { artifactId: source.sourceArtifactId },
    schema: req.extractionSchema,
    schemaVersion,
    ...(req.planId === undefined ? {} : { planId: req.planId }),
    ...(req.stepId === undefined ? {} : { stepId: req.stepId }),
    ...(req.sourceUrl === undefined ? {} : { sourceUrl: req.sourceUrl }),
    ...(page === undefined ? {} : { page }),
    ...(section === undefined ? {} : { section }),
  };
}
