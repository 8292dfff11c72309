// Helpers shared by the deploy checks: reading YAML, rendering kustomize, validating objects
// against the Kubernetes JSON schemas, and the small parsers (PromQL metric names, Helm
// `.Values` paths, Dockerfile instructions) the checks are built on. Pure functions except
// where a name says it reads a file or runs a command.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, delimiter, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Pod } from 'kubernetes-models/v1/Pod';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { PrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const deployDir = join(repoRoot, 'deploy');
export const chartDir = join(repoRoot, 'charts', 'quarry');

/** A Kubernetes object as parsed from YAML: only the type meta is known. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

// ---------------------------------------------------------------------------------------------
// Files and commands

/** Whether an executable named `command` is on PATH (the helm and kubectl checks depend on it). */
export function onPath(command: string, path = process.env.PATH ?? ''): boolean {
  return path.split(delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return statSync(join(dir, command)).isFile();
    } catch {
      return false;
    }
  });
}

/** Run a command and return its stdout; a failure throws with the command's stderr in the message. */
export function run(command: string, args: readonly string[], cwd = repoRoot): string {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`${command} ${args.join(' ')} failed:\n${stderr || (error as Error).message}`);
  }
}

/** Every file under `dir` (recursively) whose name matches, as absolute paths, sorted. */
export function listFiles(
  dir: string,
  matches: (name: string) => boolean,
  skipDirs: readonly string[] = ['node_modules'],
): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skipDirs.includes(entry.name)) found.push(...listFiles(path, matches, skipDirs));
    } else if (matches(entry.name)) {
      found.push(path);
    }
  }
  return found.sort();
}

export const fromRepo = (path: string): string => relative(repoRoot, path);

/** Helm values files for charts/quarry (deploy/examples/values-*.yaml, deploy/tilt/values*.yaml). */
export const isHelmValues = (path: string): boolean => /^values([-.][\w.-]+)?\.ya?ml$/.test(basename(path));

/**
 * Every document of a multi-document YAML text, empty documents dropped. A syntax error throws
 * naming `source`, so a broken file fails its check instead of being read as nothing.
 */
export function parseYamlDocuments(text: string, source: string): unknown[] {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  const values: unknown[] = [];
  for (const doc of list) {
    if (doc.errors.length > 0)
      throw new Error(`${source}: invalid YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}

export const readYamlFile = (path: string): unknown[] => parseYamlDocuments(readFileSync(path, 'utf8'), fromRepo(path));

/** `kubectl kustomize <dir>`, parsed: the objects an overlay would apply. */
export function renderKustomize(dir: string): K8sObject[] {
  return parseYamlDocuments(run('kubectl', ['kustomize', dir]), `kubectl kustomize ${fromRepo(dir)}`).map((doc) => {
    if (!isK8sObject(doc))
      throw new Error(
        `kubectl kustomize ${fromRepo(dir)} produced a document that is not an object: ${JSON.stringify(doc).slice(0, 200)}`,
      );
    return doc;
  });
}

export function isK8sObject(value: unknown): value is K8sObject {
  const v = value as Partial<K8sObject> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    typeof v.apiVersion === 'string' &&
    typeof v.kind === 'string'
  );
}

// ---------------------------------------------------------------------------------------------
// Schema validation

type ModelClass = new (data: never) => { validate(): void };

/**
 * The kinds Quarry's manifests may contain, each with the kubernetes-models class that holds
 * its JSON schema. Deliberately a closed list: an object of any other kind fails validation
 * (so nothing slips through unchecked); add its class here when a new kind is needed.
 */
const KINDS: Readonly<Record<string, ModelClass>> = Object.fromEntries(
  (
    [
      ConfigMap,
      Namespace,
      PersistentVolumeClaim,
      Pod,
      Secret,
      Service,
      ServiceAccount,
      Deployment,
      StatefulSet,
      Job,
      HorizontalPodAutoscaler,
      PodDisruptionBudget,
      Ingress,
      NetworkPolicy,
      Role,
      RoleBinding,
      PrometheusRule,
      ServiceMonitor,
    ] as unknown as (ModelClass & { apiVersion: string; kind: string })[]
  ).map((model) => [`${model.apiVersion}/${model.kind}`, model]),
);

/**
 * The problems with one object, empty when it is valid: an unknown apiVersion/kind, a missing
 * metadata.name, or every schema violation kubernetes-models reports (types, required fields,
 * enums, formats). Unknown fields are not reported: the Kubernetes OpenAPI schemas allow them.
 */
export function validateObject(value: unknown): string[] {
  if (!isK8sObject(value)) return ['not a Kubernetes object (apiVersion and kind must be strings)'];
  const model = KINDS[`${value.apiVersion}/${value.kind}`];
  if (!model)
    return [`unknown kind ${value.apiVersion}/${value.kind}: no schema registered in deploy/test/support.ts KINDS`];
  const problems: string[] = [];
  if (typeof value.metadata?.name !== 'string' || value.metadata.name === '') problems.push('metadata.name is missing');
  try {
    new model(asApiServerReads(value) as never).validate();
  } catch (error) {
    problems.push((error as Error).message);
  }
  return problems;
}

/** `Kind/name` for messages. */
export const objectName = (o: K8sObject): string => `${o.kind}/${o.metadata?.name ?? '?'}`;

/**
 * The object as the API server decodes it, where that differs from the schema's reading:
 * kustomize wraps long base64 Secret values at 70 columns, and the server's decoder (Go's
 * encoding/base64) skips the newlines while the schema's `byte` format does not.
 */
function asApiServerReads(o: K8sObject): K8sObject {
  if (o.apiVersion !== 'v1' || o.kind !== 'Secret' || typeof o.data !== 'object' || o.data === null) return o;
  const data = Object.fromEntries(
    Object.entries(o.data).map(([k, v]) => [k, typeof v === 'string' ? v.replace(/[\r\n]/g, '') : v]),
  );
  return { ...o, data };
}

/** Validate every object and return `Kind/name: problem` lines (empty = all valid). */
export function validateAll(objects: readonly unknown[], source: string): string[] {
  return objects.flatMap((o) =>
    validateObject(o).map((p) => `${source}: ${isK8sObject(o) ? objectName(o) : '?'}: ${p}`),
  );
}

// ---------------------------------------------------------------------------------------------
// PromQL

const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'inf',
  'nan',
  'atan2',
]);

/**
 * The metric names a PromQL expression reads (selectors), without a PromQL parser: drop
 * strings, label matchers, range/subquery brackets, grouping clauses and Grafana variables,
 * then every identifier not followed by `(` (a function or aggregation) and not a keyword is a
 * metric name. Good enough for the expressions we write; a form it cannot read shows up as a
 * bogus name and fails the check (which is the safe direction).
 */
export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ') // Grafana variables: $__rate_interval, ${DS}
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ') // string literals
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\b\d+(?:ms|[smhdwy])(?:\d+(?:ms|[smhdwy]))*\b/g, ' ') // durations (after offset)
    .replace(/\b\d+(\.\d+)?(e[+-]?\d+)?\b/gi, ' '); // numbers
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const name = match[0];
    const rest = stripped.slice(match.index + name.length);
    if (/^\s*\(/.test(rest)) continue; // function call or aggregation
    if (PROMQL_KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names].sort();
}

/** Whether the (), {} and [] of an expression fail to pair up (string literals ignored). */
export function unbalancedBrackets(expr: string): boolean {
  const pairs: Record<string, string> = { ')': '(', '}': '{', ']': '[' };
  const stack: string[] = [];
  for (const ch of expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '')) {
    if ('({['.includes(ch)) stack.push(ch);
    else if (ch in pairs && stack.pop() !== pairs[ch]) return true;
  }
  return stack.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Helm

/**
 * Every `.Values.a.b.c` path a template text reads (also `$.Values...`), as key lists, sorted
 * and without duplicates. Paths built at render time (`index .Values $key`, `with` scopes) are
 * out of reach of a regex and are not reported.
 */
export function valuesPaths(templateText: string): string[][] {
  const seen = new Map<string, string[]>();
  for (const match of templateText.matchAll(/(?<![\w$])\$?\.Values((?:\.[A-Za-z0-9_]+)+)/g)) {
    const keys = match[1]!.slice(1).split('.');
    seen.set(keys.join('.'), keys);
  }
  return [...seen.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, keys]) => keys);
}

/** Whether `values` has every key of `path` (the leaf may hold any value, null included). */
export function hasPath(values: unknown, path: readonly string[]): boolean {
  let node = values;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

/** Helm's values merge: maps merge key by key, anything else (lists included) is replaced. */
export function mergeValues(base: unknown, override: unknown): unknown {
  const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isMap(base) || !isMap(override)) return override === undefined ? base : override;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) merged[key] = mergeValues(base[key], value);
  return merged;
}

// ---------------------------------------------------------------------------------------------
// Dockerfile

/**
 * A path pattern as a regular expression, the way Docker reads COPY sources and .dockerignore
 * lines: `*` and `?` within one path segment, `**` across any number of segments.
 */
function globRegex(pattern: string): string {
  return pattern
    .split(/(\*\*\/|\/\*\*|\*\*|\*|\?)/)
    .map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '/**') return '(?:/.*)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
}

/**
 * The paths (relative to `root`, files and directories) matching a glob, searched from the
 * pattern's fixed leading directories; node_modules and .git are not entered.
 */
export function expandGlob(root: string, pattern: string): string[] {
  const segments = pattern.split('/');
  const fixed = segments
    .slice(
      0,
      segments.findIndex((s) => /[*?[]/.test(s)),
    )
    .join('/');
  const regex = new RegExp(`^${globRegex(pattern)}$`);
  const found: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (regex.test(path)) found.push(path);
      if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.git') walk(path);
    }
  };
  walk(fixed);
  return found.sort();
}

/**
 * A .dockerignore file (moby/patternmatcher semantics): patterns relative to the context root,
 * a pattern matching a directory excludes everything under it, `!` re-includes, and the last
 * matching pattern wins. `ignored(path)` tells whether a path is excluded; `reincludesUnder(dir)`
 * whether an exception (`!dir/...`) brings back part of an excluded directory, which Docker
 * then still copies.
 */
export function dockerignoreMatcher(text: string): {
  ignored(path: string): boolean;
  reincludesUnder(dir: string): boolean;
} {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((line) => {
      const include = line.startsWith('!');
      const pattern = (include ? line.slice(1) : line).replace(/^\/+/, '').replace(/\/+$/, '');
      return { include, pattern, regex: new RegExp(`^${globRegex(pattern)}(?:/.*)?$`) };
    });
  return {
    ignored(path) {
      let excluded = false;
      for (const rule of rules) if (rule.regex.test(path)) excluded = !rule.include;
      return excluded;
    },
    reincludesUnder(dir) {
      const prefix = new RegExp(`^${globRegex(dir)}/`);
      return rules.some((r) => r.include && (prefix.test(r.pattern) || r.pattern.startsWith(`${dir}/`)));
    },
  };
}

export interface DockerInstruction {
  instruction: string;
  /** The arguments with the instruction's `--flag=value` options removed. */
  args: string;
  flags: Record<string, string>;
  /** The stage the instruction belongs to (its `AS` name, or its index). */
  stage: string;
  line: number;
}

export interface DockerStage {
  name: string;
  from: string;
  line: number;
}

/**
 * The instructions of a Dockerfile, with line continuations joined, comments and parser
 * directives dropped, and each instruction tagged with its stage.
 */
export function parseDockerfile(text: string): { stages: DockerStage[]; instructions: DockerInstruction[] } {
  const stages: DockerStage[] = [];
  const instructions: DockerInstruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    let line = lines[i]!;
    if (/^\s*(#.*)?$/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      line = line.replace(/\\\s*$/, ' ');
      i++;
      if (!/^\s*#/.test(lines[i]!)) line += lines[i]!;
    }
    const match = /^\s*([A-Za-z]+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const instruction = match[1]!.toUpperCase();
    let rest = match[2]!.trim();
    const flags: Record<string, string> = {};
    let flag: RegExpExecArray | null;
    while ((flag = /^--([\w-]+)(?:=(\S*))?\s*/.exec(rest))) {
      flags[flag[1]!] = flag[2] ?? 'true';
      rest = rest.slice(flag[0].length);
    }
    if (instruction === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(rest);
      stages.push({ name: from?.[2] ?? String(stages.length), from: from?.[1] ?? '', line: start });
    }
    instructions.push({ instruction, args: rest, flags, stage: stages.at(-1)?.name ?? '', line: start });
  }
  return { stages, instructions };
}

/** The words of an exec-form (`["a","b"]`) or shell-form instruction argument. */
export function commandWords(args: string): string[] {
  const trimmed = args.trim();
  if (trimmed.startsWith('[')) {
    const parsed: unknown = JSON.parse(trimmed);
    if (!Array.isArray(parsed) || !parsed.every((w) => typeof w === 'string'))
      throw new Error(`not a JSON string array: ${args}`);
    return parsed;
  }
  return trimmed.split(/\s+/).filter(Boolean);
}

/** The source paths of a COPY/ADD (everything but the destination), in exec or shell form. */
export function copySources(args: string): string[] {
  return commandWords(args).slice(0, -1);
}

export interface DockerfileCheck {
  dockerfile: string;
  dockerignore: string;
  /** The build context: COPY sources and entrypoint sources are looked up here. */
  root: string;
  /** The targets that must exist; each must run `node services/<target>/dist/<x>.js` (or `apps/<target>/…`). */
  targets: readonly string[];
  /** Extra arguments a target's command must end with (e.g. cli: ['migrate']). */
  defaultArgs?: Readonly<Record<string, readonly string[]>>;
}

/**
 * Everything wrong with a Dockerfile that can be told without building it (empty = fine):
 * COPY/ADD sources that do not exist in the context or are excluded by .dockerignore,
 * `--from` stages that do not exist, missing targets, and per target: a base other than
 * Node 22 slim, a user other than `node`, no NODE_ENV=production, a WORKDIR other than /app,
 * a command that is not `node services/<target>/dist/….js` (or `apps/<target>/…`) with an existing `src/….ts`.
 */
export function dockerfileProblems({
  dockerfile,
  dockerignore,
  root,
  targets,
  defaultArgs = {},
}: DockerfileCheck): string[] {
  const { stages, instructions } = parseDockerfile(dockerfile);
  const stageNames = new Set(stages.map((s) => s.name));
  const { ignored, reincludesUnder } = dockerignoreMatcher(dockerignore);
  const problems: string[] = [];

  for (const copy of instructions.filter((i) => i.instruction === 'COPY' || i.instruction === 'ADD')) {
    if (copy.flags.from) {
      if (!stageNames.has(copy.flags.from))
        problems.push(`line ${copy.line}: ${copy.instruction} --from=${copy.flags.from}: no such stage`);
      continue;
    }
    for (const source of copySources(copy.args)) {
      const pattern = source.replace(/^\.\//, '').replace(/\/$/, '') || '.';
      const matched = /[*?[]/.test(pattern)
        ? expandGlob(root, pattern)
        : existsSync(join(root, pattern))
          ? [pattern]
          : [];
      if (matched.length === 0)
        problems.push(`line ${copy.line}: ${copy.instruction} ${source}: no such file in the build context`);
      else if (matched.every((path) => path !== '.' && ignored(path) && !reincludesUnder(path)))
        problems.push(`line ${copy.line}: ${copy.instruction} ${source}: excluded by .dockerignore`);
    }
  }

  /** A stage and the stages it is built FROM, nearest first; `image` is the external base. */
  const chain = (name: string) => {
    const names: string[] = [];
    let current = name;
    while (stageNames.has(current) && !names.includes(current)) {
      names.push(current);
      current = stages.find((s) => s.name === current)!.from;
    }
    return { names, image: current };
  };
  /** The instructions of a kind in effect for a target, the last one written first. */
  const inEffect = (target: string, instruction: string) =>
    chain(target)
      .names.flatMap((stage) => instructions.filter((i) => i.stage === stage && i.instruction === instruction))
      .sort((a, b) => b.line - a.line);

  for (const target of targets) {
    if (!stageNames.has(target)) {
      problems.push(`target ${target}: no stage named ${target}`);
      continue;
    }
    const { image } = chain(target);
    if (!/^node:22[\w.-]*-slim$/.test(image))
      problems.push(`target ${target}: base image ${image} is not node:22-*-slim`);
    if (inEffect(target, 'USER')[0]?.args !== 'node') problems.push(`target ${target}: does not run as user node`);
    if (!inEffect(target, 'ENV').some((e) => /(^|\s)NODE_ENV=production(\s|$)/.test(e.args)))
      problems.push(`target ${target}: NODE_ENV=production is not set`);
    if (inEffect(target, 'WORKDIR')[0]?.args !== '/app') problems.push(`target ${target}: WORKDIR is not /app`);

    const entrypoint = inEffect(target, 'ENTRYPOINT')[0];
    const cmd = inEffect(target, 'CMD')[0];
    const words = [...(entrypoint ? commandWords(entrypoint.args) : []), ...(cmd ? commandWords(cmd.args) : [])];
    const script = words[1] ?? '';
    if (words[0] !== 'node' || !new RegExp(`^(services|apps)/${target}/dist/[\\w/-]+\\.js$`).test(script)) {
      problems.push(
        `target ${target}: command ${JSON.stringify(words)} is not node services/${target}/dist/….js (or apps/)`,
      );
      continue;
    }
    const source = script.replace('/dist/', '/src/').replace(/\.js$/, '.ts');
    if (!existsSync(join(root, source))) problems.push(`target ${target}: ${script} has no source ${source}`);
    const args = defaultArgs[target] ?? [];
    if (JSON.stringify(words.slice(2)) !== JSON.stringify(args))
      problems.push(`target ${target}: arguments ${JSON.stringify(words.slice(2))}, expected ${JSON.stringify(args)}`);
  }
  return problems;
}
