import { describe, expect, it } from '@jest/globals';
import { basename, dirname, join, resolve } from 'node:path';
import { validateAll } from './kubernetes-schema.js';
import { deployDir, fromRepo, isHelmValues, isK8sObject, listFiles, readYamlFile } from './support.js';

// Every YAML file under deploy/ is accounted for: a kustomization, a kustomize patch (partial
// objects, checked through the rendered overlays), Helm values (checked against the chart's
// schema in chart.test.ts), or Kubernetes objects, each of which must validate against the
// Kubernetes JSON schemas. A file that is none of these fails.

const yamlFiles = listFiles(deployDir, (name) => /\.ya?ml$/.test(name), ['node_modules', 'test']);
const isKustomization = (path: string) =>
  ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].includes(basename(path));

interface Kustomization {
  kind?: string;
  patches?: { path?: string; patch?: string }[];
  patchesStrategicMerge?: string[];
}

/** The files kustomizations use as patches: partial objects, not manifests of their own. */
function patchFiles(): Set<string> {
  const patches = new Set<string>();
  for (const file of yamlFiles.filter(isKustomization)) {
    const [k] = readYamlFile(file) as Kustomization[];
    for (const p of k?.patches ?? []) if (p.path) patches.add(resolve(dirname(file), p.path));
    for (const p of k?.patchesStrategicMerge ?? []) if (!p.includes('\n')) patches.add(resolve(dirname(file), p));
  }
  return patches;
}

describe('deploy/ YAML files', () => {
  it('finds the manifests (base, overlays, monitoring, examples)', () => {
    const names = yamlFiles.map(fromRepo);
    for (const expected of [
      'deploy/base/gateway.yaml',
      'deploy/overlays/dev/dependencies.yaml',
      'deploy/prometheus/quarry-rules.yaml',
      'deploy/examples/external-secret.example.yaml',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it('has only Kustomization and Component kustomizations, whose patch files exist', () => {
    for (const file of yamlFiles.filter(isKustomization)) {
      const [k] = readYamlFile(file) as Kustomization[];
      expect({ file: fromRepo(file), kind: k?.kind }).toEqual({
        file: fromRepo(file),
        kind: expect.stringMatching(/^(Kustomization|Component)$/),
      });
    }
    const missing = [...patchFiles()].filter((p) => !yamlFiles.includes(p)).map(fromRepo);
    expect(missing).toEqual([]);
  });

  const patches = patchFiles();
  const manifests = yamlFiles.filter((f) => !isKustomization(f) && !patches.has(f) && !isHelmValues(f));

  it.each(manifests.map((f) => [fromRepo(f), f]))(
    '%s: every document is a Kubernetes object that validates',
    (_name, file) => {
      const docs = readYamlFile(file);
      expect(docs.length).toBeGreaterThan(0);
      const notObjects = docs.filter((d) => !isK8sObject(d)).map((d) => JSON.stringify(d).slice(0, 120));
      expect(notObjects).toEqual([]);
      expect(validateAll(docs, fromRepo(file))).toEqual([]);
    },
  );

  it.each(yamlFiles.filter(isHelmValues).map((f) => [fromRepo(f), f]))(
    '%s: Helm values, not Kubernetes objects',
    (_name, file) => {
      const docs = readYamlFile(file);
      expect(docs).toHaveLength(1);
      expect(isK8sObject(docs[0])).toBe(false);
    },
  );

  it('the example Secret carries exactly the spec keys', async () => {
    const { SECRET_KEYS } = await import('./spec.js');
    const [secret] = readYamlFile(join(deployDir, 'examples', 'external-secret.example.yaml')) as {
      metadata: { name: string };
      stringData: Record<string, string>;
    }[];
    expect(secret!.metadata.name).toBe('quarry-secrets');
    expect(Object.keys(secret!.stringData).sort()).toEqual([...SECRET_KEYS].sort());
    expect(secret!.stringData['identity-key']!.length).toBeGreaterThanOrEqual(32);
  });
});
