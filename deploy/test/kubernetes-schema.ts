// Validation of Kubernetes objects against the JSON schemas of kubernetes-models.
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
import { isK8sObject, type K8sObject } from './support.js';

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
    return [
      `unknown kind ${value.apiVersion}/${value.kind}: no schema registered in deploy/test/kubernetes-schema.ts KINDS`,
    ];
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
