import type { Migration } from 'kysely';
import * as createExtraction from './extraction/2026_11_28_1500_create_extraction.js';
import * as maintenance from './extraction/2026_11_28_1510_maintenance.js';
import * as citationVerifications from './extraction/2026_11_28_2130_citation_verifications.js';
import * as modelQuotas from './extraction/2026_11_28_2140_model_quotas.js';

/**
 * The extraction service owns the `extraction` schema: short-lived state of its calls, per org —
 * what a submit_extraction handle refers to, and the jobs of extractions that outlast their
 * caller's wait, citation verifications (kept once submitted: their audit record) and each org's model spend per day against its quotas, plus the one cross-tenant upkeep function (extraction.maintain, callable by
 * members of quarry_extraction_maintenance: see grantExtractionMaintenance). Names are
 * timestamps so order is explicit and stable.
 */
export const extractionSchemas: ReadonlyArray<{ schema: string; migrations: Record<string, Migration> }> = [
  {
    schema: 'extraction',
    migrations: {
      '2026_11_28_1500_create_extraction': createExtraction,
      '2026_11_28_1510_maintenance': maintenance,
      '2026_11_28_2130_citation_verifications': citationVerifications,
      '2026_11_28_2140_model_quotas': modelQuotas,
    },
  },
];
