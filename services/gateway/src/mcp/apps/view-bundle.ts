import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toolNames } from '@quarry/contracts';
import { build } from 'esbuild';
import type { ViewTools } from './view/view-tools.js';

/** The browser entry points (view/), one per view. */
export type ViewEntry = 'plan-app' | 'search-app';

/**
 * Bundles a view's browser code (view/<entry>.ts with @quarry/views and the ext-apps SDK's App)
 * into one minified ES module, in memory, once per process: the ui:// documents inline it. Run
 * from source (tests, `tsx`) the entry is the .ts file and workspace packages resolve to their
 * sources (the `quarry-source` condition); from the build it is the compiled .js and packages
 * resolve to their dist/. About half a second per view on first use (ADR 0049).
 */
export function createViewBundler(): (entry: ViewEntry) => Promise<string> {
  const bundles = new Map<ViewEntry, Promise<string>>();
  return (entry) => {
    let bundle = bundles.get(entry);
    if (!bundle) {
      bundle = bundleView(entry);
      // A failed bundle is not kept: the next read tries again.
      bundle.catch(() => bundles.delete(entry));
      bundles.set(entry, bundle);
    }
    return bundle;
  };
}

/** The tools the views call through the host, by their generated names (view/view-tools.ts). */
const VIEW_TOOLS: ViewTools = {
  getPlanStatus: toolNames.getPlanStatus,
  getResearchContext: toolNames.getResearchContext,
  listResearchOutputs: toolNames.listResearchOutputs,
};

async function bundleView(entry: ViewEntry): Promise<string> {
  const source = new URL(`./view/${entry}.ts`, import.meta.url);
  const fromSource = existsSync(source);
  const result = await build({
    entryPoints: [fileURLToPath(fromSource ? source : new URL(`./view/${entry}.js`, import.meta.url))],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    conditions: fromSource ? ['quarry-source'] : [],
    define: { QUARRY_VIEW_TOOLS: JSON.stringify(VIEW_TOOLS) },
    logLevel: 'silent',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error(`esbuild produced no bundle for the ${entry} view`);
  return output.text;
}
