export { runCli, type Io } from './commands.js';
export { startAll, type StartOptions } from './start.js';
export { migrateAll, APP_ROLE, INDEXER_ROLE } from './migrations.js';
