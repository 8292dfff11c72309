import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RUNS_BUILT = import.meta.url.endsWith('.js');
/** The environment variable carrying a measured child's settings, as JSON. */
const SETTINGS_VARIABLE = 'QUARRY_BENCH_PROCESS';

/** What a measured child tells the bench process: where it listens, and its CPU time when asked. */
type ChildMessage = { type: 'listening'; address: string } | { type: 'cpu'; micros: number };

/** A part of Quarry in a process of its own, whose CPU time the bench reads over IPC. */
export interface MeasuredProcess {
  /** What the child listens on: an MCP URL (gateway) or a gRPC host:port (a service). */
  address: string;
  /** CPU time (user + system) the process has used so far, in µs. */
  cpuMicros(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The child entry as this module runs: built (`npm run bench` runs dist) or its source through the
 * repo's TS loader (the smoke tests run source; a dist left from an older build must not be used). With QUARRY_BENCH_CPU_PROF_DIR set, each child writes V8 CPU profiles (one per thread)
 * into <dir>/<entry>/ as it exits (`node --cpu-prof`): where a measured process spends its CPU.
 */
export function childCommand(entry: string): { script: string; execArgv: string[] } {
  const profileDir = process.env.QUARRY_BENCH_CPU_PROF_DIR;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, entry)}`] : [];
  if (RUNS_BUILT) return { script: join(REPO_ROOT, `apps/bench/dist/${entry}.js`), execArgv: profile };
  return {
    script: join(REPO_ROOT, `apps/bench/src/${entry}.ts`),
    execArgv: [
      ...profile,
      '--conditions=quarry-source',
      '--import',
      pathToFileURL(join(REPO_ROOT, 'libs/testing/src/register-ts.mjs')).href,
    ],
  };
}

function nextMessage<T extends ChildMessage['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ChildMessage) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as Extract<ChildMessage, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`a measured process exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Forks `apps/bench/src/<entry>` with its settings (read there by `measuredProcessSettings`),
 * and waits until it listens. The child's stdout is dropped, its stderr shown.
 */
export async function startMeasuredProcess(entry: string, settings: object): Promise<MeasuredProcess> {
  const { script, execArgv } = childCommand(entry);
  const child = fork(script, [], {
    cwd: REPO_ROOT,
    execArgv,
    env: { ...process.env, [SETTINGS_VARIABLE]: JSON.stringify(settings) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const { address } = await nextMessage(child, 'listening');
    return {
      address,
      async cpuMicros() {
        const reply = nextMessage(child, 'cpu');
        child.send({ type: 'cpu' });
        return (await reply).micros;
      },
      async close() {
        if (child.exitCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.send({ type: 'close' });
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}

/** The child's side: the settings the bench process started it with. */
export function measuredProcessSettings<T>(): T {
  const json = process.env[SETTINGS_VARIABLE];
  if (!json) throw new Error(`${SETTINGS_VARIABLE} is not set: this process is started by the benchmark`);
  return JSON.parse(json) as T;
}

/** The child's side: tells the bench process where it listens, answers CPU questions, closes on request. */
export function serveMeasuredProcess(address: string, close: () => Promise<void>): void {
  const send = (message: ChildMessage) => process.send!(message);
  process.on('message', (message: { type: string }) => {
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', micros: user + system });
    } else if (message.type === 'close') {
      void close().then(() => process.exit(0));
    }
  });
  send({ type: 'listening', address });
}
