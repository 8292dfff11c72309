import { createServer, type AddressInfo } from 'node:net';

// The "Running one service alone" section of README.md as a script: the separate-process test
// runs exactly its commands, so the section cannot drift from what works.

/** A free loopback port for a service of the script. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether any process of the script's process group is still alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ports in the README's commands and defaults, and the service each belongs to. */
export const SERVICES = ['gateway', 'plan-engine', 'artifact-store', 'search', 'extraction', 'indexer'] as const;
export type Service = (typeof SERVICES)[number];

export interface ServicePorts {
  /** gRPC or HTTP; the indexer has none. */
  port?: number;
  metricsPort: number;
}

export interface ReadmeScript {
  /** The variables the reader provides (the `given` block's assignments). */
  given: string[];
  /** The block of commands, as written. */
  commands: string;
}

/** The first ```sh block after `marker`, up to `end` when given (which must come after it). */
function blockAfter(readme: string, marker: string, end?: string): string {
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no ${marker}`);
  const stop = end ? readme.indexOf(end, at) : readme.length;
  if (stop < 0) throw new Error(`README.md has no ${end} after ${marker}`);
  const match = /```sh\n([\s\S]*?)```/.exec(readme.slice(at, stop));
  if (!match) throw new Error(`README.md has no sh block after ${marker}`);
  return match[1]!;
}

export function readmeScript(readme: string): ReadmeScript {
  const given = blockAfter(readme, '<!-- separate-processes:given');
  return {
    given: [...given.matchAll(/^(\w+)=/gm)].map((m) => m[1]!),
    commands: blockAfter(readme, '<!-- separate-processes:begin -->', '<!-- separate-processes:end -->'),
  };
}

/**
 * The README's commands, made runnable here without changing what they do:
 * - `node services/<x>/dist/main.js` runs `services/<x>/src/main.ts` through the workspace's
 *   TypeScript loader (the test never depends on a stale build), and `npx quarry` the CLI's
 *   sources the same way; `npm run build` is then not needed;
 * - every service listens on the free ports given instead of its defaults (another Quarry, or
 *   another test run, may hold those): PORT and METRICS_PORT are set per service, and the
 *   default gRPC ports written in the commands' addresses are replaced;
 * - with `restartDir`, each service runs as Kubernetes' restartPolicy: Always runs it: when it
 *   ends other than by a clean stop (exit 0, or 143 on SIGTERM) it is started again, after
 *   waiting while `<restartDir>/<service>` exists (so a caller can hold it down, e.g. to rewind
 *   the indexer's position).
 */
export function runnableScript(
  commands: string,
  ports: Readonly<Record<Service, ServicePorts>>,
  defaults: Readonly<Record<Service, ServicePorts>>,
  loader: string,
  restartDir?: string,
): string {
  let body = commands;
  for (const service of SERVICES) {
    const from = defaults[service].port;
    const to = ports[service].port;
    if (from !== undefined && to !== undefined) body = body.replaceAll(`127.0.0.1:${from}`, `127.0.0.1:${to}`);
  }
  const cases = SERVICES.map(
    (s) => `    services/${s}/dist/main.js) port=${ports[s].port ?? ''}; metrics=${ports[s].metricsPort} ;;`,
  ).join('\n');
  const ts = `command node --conditions=quarry-source --import '${loader}'`;
  const run = restartDir
    ? `local service="\${main#services/}" rc
    service="\${service%/src/main.ts}"
    while :; do
      while [ -e '${restartDir}'/"$service" ]; do sleep 0.1; done
      rc=0
      PORT=$port METRICS_PORT=$metrics ${ts} "$main" "$@" || rc=$?
      case "$rc" in 0 | 143) return "$rc" ;; esac
    done`
    : `PORT=$port METRICS_PORT=$metrics ${ts} "$main" "$@"`;
  return `set -eu
node() {
  local port="" metrics=""
  case "$1" in
${cases}
  esac
  if [[ "$1" == services/*/dist/main.js ]]; then
    local main="\${1%/dist/main.js}/src/main.ts"
    shift
    ${run}
  else
    command node "$@"
  fi
}
npx() {
  if [ "$1" = quarry ]; then shift; ${ts} apps/cli/src/bin.ts "$@"; else command npx "$@"; fi
}
npm() {
  if [ "$*" = "run build" ]; then return 0; fi
  command npm "$@"
}
${body}`;
}
