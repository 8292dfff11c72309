// Module hooks that let a child `node` process run this package's TypeScript sources directly
// (Node 20 cannot strip types), compiled by @swc/core exactly as Jest does. Test-only.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import swc from '@swc/core';

const isRelative = (specifier) => specifier.startsWith('.') || specifier.startsWith('file:');

/** NodeNext sources import `./x.js`; on disk it is `./x.ts`. */
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (isRelative(specifier) && specifier.endsWith('.js')) return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const filename = fileURLToPath(url);
  const { code } = await swc.transform(await readFile(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  });
  return { format: 'module', source: code, shortCircuit: true };
}
