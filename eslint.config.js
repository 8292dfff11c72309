import { existsSync, readdirSync, readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/**
 * The workspace's layers, read from the folders so a new package is covered without editing
 * this file: `libs/` (shared code), `services/` (the deployables), `apps/` (what composes
 * services: the CLI, the whole-system launcher, the benchmark).
 */
function packagesIn(layer) {
  const root = new URL(`${layer}/`, import.meta.url);
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(new URL(`${entry.name}/package.json`, root)))
    .map((entry) => ({
      dir: `${layer}/${entry.name}`,
      name: JSON.parse(readFileSync(new URL(`${entry.name}/package.json`, root), 'utf8')).name,
    }));
}
const services = packagesIn('services');
const apps = packagesIn('apps');

/** A no-restricted-imports entry refusing these packages (and any path inside them). */
const refuse = (packages, message) => ({
  group: packages.flatMap(({ name }) => [name, `${name}/*`]),
  message,
});
const samePackageOnly = {
  group: ['@quarry/*/*'],
  message: 'Import a package through its public surface (src/index.ts).',
};
const restricted = (...patterns) => ['error', { patterns: [samePackageOnly, ...patterns] }];

/** What `core/` may not import: a core decides and returns effects as data, its shell does the I/O. */
const IO_MODULES = [
  'pg',
  'pg-*',
  'kysely',
  '@grpc/*',
  'kafkajs',
  'undici',
  '@lancedb/*',
  '@opensearch-project/*',
  '@qdrant/*',
  'fastify',
  '@quarry/db',
  '@quarry/grpc',
  '@quarry/telemetry',
  ...['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'dns', 'child_process', 'cluster']
    .concat(['worker_threads', 'readline', 'inspector'])
    .flatMap((m) => [m, `node:${m}`]),
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/src/gen/**', '.quarry/**', '.nx/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': restricted(),
    },
  },
  // libs/ is shared by everything above it, so it knows nothing of services or apps.
  {
    files: ['libs/**/*.{ts,js,mjs}'],
    rules: {
      'no-restricted-imports': restricted(
        refuse([...services, ...apps], 'libs/ never imports a service or an app: move the shared code into a lib.'),
      ),
    },
  },
  // @quarry/views runs in browsers too (the app's assets, the MCP Apps ui:// views): no node
  // module, no package, nothing but its own pure renderers (its tsconfig.build.json has no node types).
  {
    files: ['libs/views/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\.{1,2}/)',
              message: '@quarry/views is pure and browser-safe: it imports only its own files.',
            },
          ],
        },
      ],
    },
  },
  // A service's code depends on libs only: services talk to each other over gRPC, never by import.
  ...services.map((service) => ({
    files: [`${service.dir}/src/**/*.ts`],
    rules: {
      'no-restricted-imports': restricted(
        refuse(
          services.filter((other) => other !== service),
          'A service never imports another service: call it over gRPC, or move shared code into libs/.',
        ),
        refuse(apps, 'A service never imports an app (apps/ compose services, not the other way round).'),
      ),
    },
  })),
  // A service's tests may start its real peers (e.g. the artifact store's tests run a real plan
  // engine, the gateway's end-to-end tests the whole system through @quarry/system), but never
  // the CLI or the benchmark.
  ...services.map((service) => ({
    files: [`${service.dir}/test/**/*.ts`],
    rules: {
      'no-restricted-imports': restricted(
        refuse(
          apps.filter((app) => app.name !== '@quarry/system'),
          'Tests start peers through @quarry/system, not through the CLI or the benchmark.',
        ),
      ),
    },
  })),
  // Pure cores: no I/O, so they are tested without servers and decide the same way every time.
  // Type-only imports are fine (a type carries no I/O).
  {
    files: ['{libs,services,apps}/*/src/**/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: IO_MODULES,
              allowTypeImports: true,
              message: 'core/ does no I/O: return the effect as data and let the handler (the shell) perform it.',
            },
          ],
        },
      ],
    },
  },
);
