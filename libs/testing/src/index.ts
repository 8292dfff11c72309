// @quarry/testing: fixtures for tests across the workspace. PostgreSQL: one throwaway cluster
// per `jest` run (withPostgres in jest.preset.js) and one fresh database per test file. Browser
// suites: the system Chromium or QUARRY_CHROMIUM, else a loud skip (chromiumForSuite). Documents:
// generated PDFs with known text per page, a known figure and a table (pdfs.ts).
export { createTestDatabase, refuseConnections, testPostgresUrl, TEST_APP_ROLE } from './database.js';
export type { TestDatabase, TestSchema } from './database.js';
export { startTestCluster } from './cluster.js';
export { seededRandom } from './random.js';
export { chromiumForSuite } from './chromium.js';
export {
  corruptPdf,
  FIGURE_CAPTION,
  FIGURE_SIZE,
  figurePng,
  illustratedPdf,
  pagedPdf,
  pageSentence,
  passwordProtectedPdf,
  TABLE_CAPTION,
} from './pdfs.js';
export { serviceTransportEnv } from './service-transport.js';
