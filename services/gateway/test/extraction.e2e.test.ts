import { citationsSuite } from './citations.suite.js';
import { HANDLE_KEY } from './extraction-fixtures.js';
import { extractionOfflineSuite } from './extraction-offline.suite.js';
import { extractionSamplingSuite } from './extraction-sampling.suite.js';
import { extractionSubmitSuite } from './extraction-submit.suite.js';
import { sharedSystem } from './shared-system.js';

// extract_data and submit_extraction through the whole system (MCP client → gateway → extraction
// service → artifact store → indexer → search), with no model on the server, and verify_citations
// with submit_citation_verdicts: one system for the four suites, each with organizations of its own.

const system = sharedSystem({ EXTRACTION_HANDLE_KEY: HANDLE_KEY });
extractionOfflineSuite(system);
extractionSamplingSuite(system);
extractionSubmitSuite(system);
citationsSuite(system);
