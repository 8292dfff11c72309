import { artifactToolsSuite } from './library-artifacts.suite.js';
import { artifactBatchSuite } from './library-batch.suite.js';
import { deletionToolsSuite } from './library-deletion.suite.js';
import { libraryReadingSuite } from './library-reading.suite.js';
import { sharedSystem } from './shared-system.js';

// The library's tools through the whole system (MCP client → gateway → artifact store → outbox →
// indexer → search), one system for the four suites, each with organizations of its own: storing
// artifacts, outputs and reports; storing a batch; reading everything back, paged, by url and by
// tag; deleting (last: it restarts the indexer).

const system = sharedSystem();
artifactToolsSuite(system);
artifactBatchSuite(system);
libraryReadingSuite(system);
deletionToolsSuite(system);
