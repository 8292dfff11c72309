import { join } from 'node:path';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import { deployDir, type K8sObject, onPath, renderKustomize } from './support.js';

// The kustomize overlays as the kustomize*.test.ts files read them: rendered by
// `kubectl kustomize` exactly as `kubectl apply -k` would, and the lookups the checks share.

export const OVERLAYS = { dev: 'quarry-dev', prod: 'quarry' } as const;
export type Overlay = keyof typeof OVERLAYS;

export const kubectl = onPath('kubectl');
const rendered: Partial<Record<Overlay, K8sObject[]>> = {};

/** Renders the overlays a test file checks, once, when its module loads (only if kubectl is on PATH). */
export function renderOverlays(...overlays: Overlay[]): void {
  if (kubectl)
    for (const overlay of overlays) rendered[overlay] = renderKustomize(join(deployDir, 'overlays', overlay));
}

export const all = (overlay: Overlay): K8sObject[] => rendered[overlay]!;
export const ofKind = <T>(overlay: Overlay, kind: string): T[] =>
  all(overlay).filter((o) => o.kind === kind) as unknown as T[];
export function named<T>(overlay: Overlay, kind: string, name: string): T {
  const found = all(overlay).find((o) => o.kind === kind && o.metadata?.name === name);
  if (!found) throw new Error(`${overlay}: no ${kind}/${name}`);
  return found as unknown as T;
}
export const podSpec = (d: IDeployment | IJob): IPodSpec => d.spec!.template.spec!;
export const container = (d: IDeployment | IJob): IContainer => podSpec(d).containers[0]!;
export const envNames = (c: IContainer) => (c.env ?? []).map((e) => e.name);
export const quarryDeployments = (overlay: Overlay) =>
  ofKind<IDeployment>(overlay, 'Deployment').filter(
    (d) => d.metadata?.labels?.['app.kubernetes.io/part-of'] === 'quarry',
  );
export const componentOf = (labels: Record<string, string> | undefined) => labels?.['app.kubernetes.io/component'];
export const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v) && Object.keys(selector ?? {}).length > 0;

/** The ConfigMap an `envFrom.configMapRef` / `configMapKeyRef` points at, by its rendered name. */
export const configMap = (overlay: Overlay, name: string) =>
  ofKind<IConfigMap>(overlay, 'ConfigMap').find((c) => c.metadata?.name === name);

/** Every variable a container gets: its `env` plus the keys of the ConfigMaps it takes whole. */
export function effectiveEnv(overlay: Overlay, c: IContainer): Set<string> {
  const names = new Set(envNames(c));
  for (const source of c.envFrom ?? []) {
    const cm = source.configMapRef ? configMap(overlay, source.configMapRef.name!) : undefined;
    for (const key of Object.keys(cm?.data ?? {})) names.add(key);
  }
  return names;
}
