import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

// The buf CLI from the @bufbuild/buf npm package, run through node so it works without PATH
// set up by npm (tests, scripts) and on every platform the package supports.
const bufScript = createRequire(import.meta.url).resolve('@bufbuild/buf/bin/buf');

/** Runs buf in `cwd` and returns its stdout; throws with buf's own output when it fails. */
export function runBuf(args: readonly string[], cwd: string): Buffer {
  const result = spawnSync(process.execPath, [bufScript, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    const output = `${result.stderr.toString()}${result.stdout.toString()}`.trim();
    throw new Error(`buf ${args.join(' ')} failed (in ${cwd}):\n${output}`);
  }
  return result.stdout;
}

/**
 * Builds the buf module at `input` (relative to `cwd`) into a FileDescriptorSet with imports and
 * source info (comments), in buf's stable dependency order.
 */
export function buildDescriptorSet(cwd: string, input = '.'): Uint8Array {
  return new Uint8Array(runBuf(['build', input, '--as-file-descriptor-set', '-o', '-#format=binpb'], cwd));
}
