import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';

// The committed launcher (bin/quarry.js) starts `quarry start` with glibc's arena limit set:
// replaced in place where Node can (process.execve), else as a child it relays signals to once.
// A stand-in for the built CLI reports what it was started with and which signals reached it.

const launcher = fileURLToPath(new URL('../bin/quarry.js', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'quarry-launcher-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, 'bin'));
mkdirSync(join(root, 'dist'));
copyFileSync(launcher, join(root, 'bin', 'quarry.js'));
writeFileSync(join(root, 'package.json'), '{"type":"module"}');
writeFileSync(
  join(root, 'dist', 'bin.js'),
  `let signals = 0;
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => {
  signals++;
  console.log(JSON.stringify({ signal: s, signals }));
  setTimeout(() => process.exit(signals === 1 ? 0 : 1), 300);
});
console.log(JSON.stringify({ arenas: process.env.MALLOC_ARENA_MAX ?? null, pid: process.pid, argv: process.argv.slice(2) }));
setInterval(() => {}, 1000);
`,
);

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { MALLOC_ARENA_MAX: _, ...base } = process.env;
  const child = spawn(process.execPath, [join(root, 'bin', 'quarry.js'), ...args], {
    env: { ...base, ...env },
    detached: true, // its own process group, as a shell gives a command in a terminal
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, at)) as Record<string, unknown>);
      buffer = buffer.slice(at + 1);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.each(['SIGINT', 'SIGTERM'] as const)('quarry start and %s', (signal) => {
  it('runs with MALLOC_ARENA_MAX=2, and the signal reaches the CLI once; the exit code comes back', async () => {
    const { child, lines, exited } = run(['start', '--flag']);
    await until(() => lines.length > 0, 'started');
    expect(lines[0]).toMatchObject({ arenas: '2', argv: ['start', '--flag'] });
    // As a terminal's Ctrl-C: the whole foreground process group.
    process.kill(-child.pid!, signal);
    expect(await exited).toBe(0);
    expect(lines.filter((l) => l.signal)).toEqual([{ signal, signals: 1 }]);
  });
});

describe('the launcher', () => {
  it('keeps a MALLOC_ARENA_MAX the user set, and leaves other commands alone', async () => {
    for (const [args, env, arenas] of [
      [['start'], { MALLOC_ARENA_MAX: '4' }, '4'],
      [['search', 'x'], {}, null],
    ] as const) {
      const { child, lines, exited } = run([...args], env);
      await until(() => lines.length > 0, 'started');
      expect(lines[0]).toMatchObject({ arenas, pid: child.pid });
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('leaves no CLI running when the launcher itself is killed', async () => {
    const { child, lines, exited } = run(['start']);
    await until(() => lines.length > 0, 'started');
    const cli = lines[0]!.pid as number;
    if (cli === child.pid) {
      // Replaced in place (process.execve): there is no second process to leave behind.
      child.kill('SIGKILL');
      await exited;
      return;
    }
    (child as ChildProcess).kill('SIGKILL');
    await exited;
    await until(() => !alive(cli), 'the CLI stopped after its launcher died');
    expect(lines.filter((l) => l.signal)).toEqual([{ signal: 'SIGTERM', signals: 1 }]);
  });
});
