// `npm run generate` (root: `npm run proto`) regenerates src/gen from proto/;
// `npm run proto:check` fails when src/gen differs from what proto/ produces.
//
// The pipeline itself is TypeScript in src/catalogue (one implementation, shared with the tests).
// Node 20 cannot run TypeScript, so this bootstrap first transpiles those modules (type-only
// syntax stripped, nothing else) into node_modules/.cache and imports them from there; the
// typecheck target checks the same sources.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(packageDir, '../..');
const mode = process.argv.includes('--check') ? 'check' : 'write';

const sourceDir = join(packageDir, 'src/catalogue');
const outDir = join(packageDir, 'node_modules/.cache/quarry-contracts-generator');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
for (const file of readdirSync(sourceDir).filter((f) => f.endsWith('.ts'))) {
  const { outputText } = ts.transpileModule(readFileSync(join(sourceDir, file), 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  writeFileSync(join(outDir, file.replace(/\.ts$/, '.js')), outputText);
}
const { generateContracts, describeChanges } = await import(pathToFileURL(join(outDir, 'generate.js')).href);

try {
  const { tools, changes, elapsedMs } = generateContracts({ repoRoot, mode });
  const summary = `${tools.length} tool(s): ${tools.join(', ')}; ${Math.round(elapsedMs)} ms`;
  if (mode === 'write') {
    console.log(`proto: generated src/gen (${changes.length} file(s) updated), ${summary}`);
  } else if (changes.length > 0) {
    console.error(`proto:check: src/gen is stale, ${changes.length} file(s) differ from what proto/ produces:`);
    console.error(describeChanges(changes));
    console.error('Run `npm run proto` and commit libs/contracts/src/gen.');
    process.exitCode = 1;
  } else {
    console.log(`proto:check: src/gen is up to date, ${summary}`);
  }
} catch (error) {
  // Lint failures, buf errors and catalogue problems already say what is wrong and where.
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
