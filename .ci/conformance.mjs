#!/usr/bin/env node
// The official MCP conformance suite (@modelcontextprotocol/conformance, a pinned devDependency)
// against the built system: `quarry start` on embedded defaults in a fresh data directory, every
// server scenario of both protocol eras (2025-11-25 and 2026-07-28), then the extension scenarios
// (forced onto the 2026-07-28 wire). The suite and the system run on an npm-shipped Node 22 (the
// suite needs it; the images run it). The suite cannot send a bearer token, so it talks to Quarry
// through a forwarder that adds the first-start token (bearer-forwarder.mjs).
//
// Each scenario's verdict is compared with conformance-expected-failures.json, which names every
// scenario (or single check, `scenario:check-id`) that does not pass and why. The run fails on a
// failure the file does not name, on a scenario that ran no check and is not named, AND on a
// named one that now passes (remove it from the file), so the file stays true. The suite's check
// that every message Quarry sent is valid by the spec's schema counts even in a named scenario.
//
//   node .ci/conformance.mjs                 (after `npm run build`)
//   node .ci/conformance.mjs --keep DIR      (also keeps the suite's checks.json files in DIR)
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBearerForwarder } from './bearer-forwarder.mjs';
import { fetchNode22, startQuarry, stopQuarry } from './node22.mjs';

const started = Date.now();
const expectedFile = new URL('./conformance-expected-failures.json', import.meta.url);
const suite = fileURLToPath(import.meta.resolve('@modelcontextprotocol/conformance/dist/index.js'));
const keepIndex = process.argv.indexOf('--keep');
const keep = keepIndex > 0 ? process.argv[keepIndex + 1] : undefined;

const ERAS = ['2025-11-25', '2026-07-28'];
const EXTENSIONS = 'extensions';
/** The wire the extension scenarios run on: the suite puts them on no spec timeline. */
const EXTENSION_WIRE = '2026-07-28';

function log(line = '') {
  console.log(line);
}

/**
 * Runs the suite's CLI on Node 22. Asynchronously: the forwarder it talks to serves from this
 * process's event loop.
 */
function runSuite(node, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [suite, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.once('error', reject);
    child.once('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/** Server scenario names from `conformance list --server`, with their applicability tags. */
async function listScenarios(node, extraArgs = []) {
  const listed = await runSuite(node, ['list', '--server', ...extraArgs]);
  if (listed.status !== 0) throw new Error(`conformance list failed:\n${listed.stderr}`);
  return [...listed.stdout.matchAll(/^\s+- (\S+) \[([^\]]*)\]$/gm)].map(([, name, tags]) => ({ name, tags }));
}

/** `<out>/server-<scenario>-<timestamp>/checks.json` → Map(scenario → checks). */
function readResults(dir) {
  const results = new Map();
  if (!existsSync(dir)) return results;
  for (const entry of readdirSync(dir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const file = join(dir, entry, 'checks.json');
    if (match && existsSync(file)) results.set(match[1], JSON.parse(readFileSync(file, 'utf8')));
  }
  return results;
}

const SEVERITY = { FAILURE: 3, WARNING: 2, SKIPPED: 1, INFO: 1, SUCCESS: 0 };

/** One verdict per check id (ids repeat within a scenario): the most severe of its occurrences. */
function checkStatuses(checks) {
  const statuses = new Map();
  for (const check of checks) {
    const before = statuses.get(check.id);
    if (!before || SEVERITY[check.status] > SEVERITY[before.status]) statuses.set(check.id, check);
  }
  return statuses;
}

/**
 * A scenario fails when a check fails that the file does not excuse; it passes when at least one
 * of its own checks succeeded (the suite's wire-schema check runs on any traffic, so it does not
 * count); otherwise it was skipped (nothing it asserts applied).
 */
function judge(checks, excusedIds) {
  const statuses = checkStatuses(checks);
  const failures = [...statuses.values()].filter((c) => c.status === 'FAILURE' && !excusedIds.has(c.id));
  const warnings = [...statuses.values()].filter((c) => c.status === 'WARNING');
  const exercised = [...statuses.values()].some((c) => c.status === 'SUCCESS' && !c.id.startsWith('wire-schema-'));
  const verdict = failures.length > 0 ? 'fail' : exercised ? 'pass' : 'skip';
  return { verdict, failures, warnings, statuses };
}

function firstLine(text, max = 160) {
  const line = String(text ?? '').split('\n')[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Compares one era's results with its expected failures; prints its table; returns the surprises. */
function report(era, scenarios, results, expected) {
  const surprises = [];
  const wholeEntries = new Map();
  const checkEntries = new Map();
  for (const [key, reason] of Object.entries(expected)) {
    const [scenario, checkId] = key.split(/:(.*)/s);
    if (checkId) {
      if (!checkEntries.has(scenario)) checkEntries.set(scenario, new Map());
      checkEntries.get(scenario).set(checkId, reason);
    } else wholeEntries.set(scenario, reason);
  }
  for (const listed of [...wholeEntries.keys(), ...checkEntries.keys()]) {
    if (!scenarios.includes(listed))
      surprises.push(`${era} ${listed}: named in the expected-failures file but not a scenario of this run; remove it`);
  }

  const rows = [];
  const counts = { pass: 0, expected: 0, unexpected: 0 };
  for (const scenario of scenarios) {
    const checks = results.get(scenario);
    const whole = wholeEntries.get(scenario);
    const excused = checkEntries.get(scenario) ?? new Map();
    if (!checks) {
      surprises.push(`${era} ${scenario}: the suite wrote no result for it (did it crash? rerun with --keep)`);
      rows.push(['NO RESULT', scenario, '']);
      counts.unexpected += 1;
      continue;
    }
    const { verdict, failures, warnings, statuses } = judge(checks, new Set(excused.keys()));
    const notes = [];
    if (warnings.length) notes.push(`warnings: ${warnings.map((w) => w.id).join(', ')}`);
    for (const [checkId, reason] of excused) {
      if (statuses.get(checkId)?.status === 'SUCCESS') {
        surprises.push(`${era} ${scenario}:${checkId} now passes: remove it from the expected-failures file`);
        notes.push(`${checkId} NOW PASSES`);
      } else notes.push(`expected to fail: ${checkId} (${reason})`);
    }
    // What Quarry sends must match the spec's schema even where a scenario cannot pass.
    const wire = statuses.get('wire-schema-valid');
    if (whole && wire?.status === 'FAILURE') {
      surprises.push(
        `${era} ${scenario}: Quarry sent a message the spec's schema rejects: ${firstLine(wire.errorMessage)}`,
      );
      rows.push(['WIRE SCHEMA', scenario, firstLine(wire.errorMessage)]);
      counts.unexpected += 1;
    } else if (whole) {
      if (verdict === 'pass') {
        surprises.push(`${era} ${scenario} now passes: remove it from the expected-failures file`);
        rows.push(['NOW PASSES', scenario, `listed as: ${whole}`]);
        counts.unexpected += 1;
      } else {
        rows.push([`expected ${verdict}`, scenario, whole]);
        counts.expected += 1;
      }
    } else if (verdict === 'pass') {
      rows.push(['pass', scenario, notes]);
      counts.pass += 1;
    } else if (verdict === 'skip') {
      surprises.push(
        `${era} ${scenario}: no check of it applied; name it in the expected-failures file with the reason`,
      );
      rows.push(['SKIPPED', scenario, 'not in the expected-failures file']);
      counts.unexpected += 1;
    } else {
      const what = failures.map((f) => `${f.id}: ${firstLine(f.errorMessage ?? f.description)}`);
      surprises.push(`${era} ${scenario} fails: ${what.join(' | ')}`);
      rows.push(['FAILS', scenario, what.join(' | ')]);
      counts.unexpected += 1;
    }
  }

  log(
    `\n${era}: ${scenarios.length} scenarios, ${counts.pass} pass, ${counts.expected} expected not to pass, ${counts.unexpected} unexpected`,
  );
  const width = Math.max(...scenarios.map((s) => s.length));
  for (const [status, scenario, note] of rows) {
    const [first = '', ...more] = [note].flat();
    log(`  ${status.padEnd(16)}${scenario.padEnd(width + 2)}${first}`);
    for (const line of more) log(`${' '.repeat(20 + width)}${line}`);
  }
  return surprises;
}

const work = mkdtempSync(join(tmpdir(), 'quarry-conformance-'));
// The embedded PostgreSQL runs as an unprivileged user when we are root: it must traverse.
chmodSync(work, 0o711);
const surprises = [];
let system;
let forwarder;
try {
  const expected = JSON.parse(readFileSync(expectedFile, 'utf8'));
  const { node, version, source } = fetchNode22(work);
  const suiteVersion = (await runSuite(node, ['--version'])).stdout.trim();
  log(`conformance: @modelcontextprotocol/conformance ${suiteVersion} on Node ${version} (${source})`);

  const env = { ...process.env, QUARRY_DATA_DIR: join(work, 'data'), PORT: '0', LOG_LEVEL: 'warn' };
  system = startQuarry(node, env);
  const quarryUrl = await system.url;
  const token = readFileSync(join(work, 'data', 'dev-token'), 'utf8').trim();
  forwarder = await startBearerForwarder(quarryUrl, token);
  log(`conformance: quarry start serves ${quarryUrl}; the suite reaches it through ${forwarder.url}`);

  for (const era of ERAS) {
    const scenarios = (await listScenarios(node, ['--spec-version', era])).map((s) => s.name);
    const out = join(work, 'results', era);
    mkdirSync(out, { recursive: true });
    const args = ['--suite', 'all', '--spec-version', era, '-o', out];
    const run = await runSuite(node, ['server', '--url', forwarder.url, ...args]);
    const results = readResults(out);
    if (scenarios.some((s) => !results.has(s)))
      log(`The suite's output (exit ${run.status ?? run.signal}):\n${run.stdout}${run.stderr}`);
    surprises.push(...report(era, scenarios, results, expected[era] ?? {}));
  }

  const extensions = (await listScenarios(node)).filter((s) => s.tags === 'extension').map((s) => s.name);
  const out = join(work, 'results', EXTENSIONS);
  mkdirSync(out, { recursive: true });
  for (const scenario of extensions) {
    const args = ['--scenario', scenario, '--spec-version', EXTENSION_WIRE, '--force', '-o', out];
    await runSuite(node, ['server', '--url', forwarder.url, ...args]);
  }
  surprises.push(
    ...report(`${EXTENSIONS} (${EXTENSION_WIRE})`, extensions, readResults(out), expected[EXTENSIONS] ?? {}),
  );
  for (const key of Object.keys(expected)) {
    if (!key.startsWith('$') && ![...ERAS, EXTENSIONS].includes(key))
      surprises.push(`the expected-failures file has a section "${key}" that no run reads`);
  }
  if (keep) cpSync(join(work, 'results'), keep, { recursive: true });
} catch (error) {
  surprises.push(`the run itself failed: ${error.stack ?? error.message}`);
} finally {
  await forwarder?.close();
  if (system) {
    const problem = await stopQuarry(system);
    if (problem) surprises.push(problem);
  }
  rmSync(work, { recursive: true, force: true });
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (surprises.length) {
  log(`\nconformance: ${surprises.length} unexpected result(s) (${seconds} s):`);
  for (const surprise of surprises) log(`  - ${surprise}`);
  log('The expected failures live in .ci/conformance-expected-failures.json (scenario or scenario:check-id → why).');
  process.exitCode = 1;
} else {
  log(`\nconformance: every result as expected (${seconds} s)`);
}
