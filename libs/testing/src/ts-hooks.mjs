// Node module hooks that let Jest's globalSetup import workspace TypeScript. Jest loads
// globalSetup outside its own module system (through plain require/import), which can neither
// read `.ts`, nor map NodeNext's `./x.js` specifiers to `./x.ts`, nor use the `quarry-source`
// export condition that points `@quarry/*` at their sources. These hooks add exactly that,
// compiling with the same @swc/core the Jest transform uses.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import swc from '@swc/core';

export async function resolve(specifier, context, nextResolve) {
  const ctx = { ...context, conditions: ['quarry-source', ...context.conditions] };
  try {
    return await nextResolve(specifier, ctx);
  } catch (error) {
    const fromTs = context.parentURL?.endsWith('.ts') && /^\.\.?\/.*\.js$/.test(specifier);
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !fromTs) throw error;
    return nextResolve(specifier.replace(/\.js$/, '.ts'), ctx);
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
