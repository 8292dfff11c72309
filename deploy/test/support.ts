// Helpers shared by the deploy checks: the repository's paths, reading files and YAML, running
// commands and rendering kustomize. Pure functions except where a name says it reads a file or
// runs a command. Beside it, one file per thing the checks parse or validate:
// kubernetes-schema.ts, promql.ts, helm-values.ts and dockerfile-check.ts.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, delimiter, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

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
