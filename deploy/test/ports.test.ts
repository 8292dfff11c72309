import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEFAULT_PORTS } from '@quarry/config';
import { chartDir } from './support.js';
import { SERVICE_NAMES, SERVICES } from './spec.js';

// The ports every deployment uses are the services' own defaults (libs/config), so what runs on
// one host, in kustomize and in the chart is the same: checked without a cluster or helm.

const helpers = readFileSync(join(chartDir, 'templates', '_helpers.tpl'), 'utf8');
const config = readFileSync(join(chartDir, 'templates', '_config.tpl'), 'utf8');

/** The body of a `{{- define "name" -}}` block. */
function define(text: string, name: string): string {
  const match = new RegExp(`{{- define "${name}" -}}\\n([\\s\\S]*?){{- end }}`).exec(text);
  if (!match) throw new Error(`no define "${name}"`);
  return match[1]!;
}

describe('ports', () => {
  it('are the services’ own defaults (DEFAULT_PORTS of @quarry/config)', () => {
    for (const name of SERVICE_NAMES) {
      const defaults: { port?: number; metricsPort: number } = DEFAULT_PORTS[name];
      const spec = SERVICES[name];
      expect({ name, metrics: spec.metricsPort }).toEqual({ name, metrics: defaults.metricsPort });
      if (spec.port.name !== 'metrics') expect({ name, port: spec.port.number }).toEqual({ name, port: defaults.port });
    }
  });

  it('are the chart’s: its component table and each ConfigMap’s PORT and METRICS_PORT', () => {
    const components = parse(define(helpers, 'quarry.components')) as Record<string, { port: number; metrics: number }>;
    for (const name of SERVICE_NAMES) {
      const spec = SERVICES[name];
      expect({ name, port: components[name]!.port, metrics: components[name]!.metrics }).toEqual({
        name,
        port: spec.port.number,
        metrics: spec.metricsPort,
      });
      const env = define(config, `quarry.config.${name}`);
      expect({ name, metrics: /^METRICS_PORT: "(\d+)"$/m.exec(env)?.[1] }).toEqual({
        name,
        metrics: String(spec.metricsPort),
      });
      if (spec.port.name !== 'metrics')
        expect({ name, port: /^PORT: "(\d+)"$/m.exec(env)?.[1] }).toEqual({ name, port: String(spec.port.number) });
    }
  });
});
