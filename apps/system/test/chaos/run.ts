import { SERVICES, type Service } from '../readme-script.js';
import { recoveryLine, type ChaosReport, type Recovery } from './core/report.js';
import { chaosSchedule, faultName, type ChaosProfile, type Fault } from './core/schedule.js';
import { chaosVerdict } from './core/verdict.js';
import { startLoad, type Load } from './load.js';
import { McpSession } from './mcp-session.js';
import { serviceProbe } from './probes.js';
import { startChaosTopology, type Topology } from './topology.js';
import { observe } from './verify.js';

// A chaos run: the topology, a steady write load, the faults of the profile one after the other
// (each waited out until clients are answered again), the indexer replayed from the start, and
// every item checked through search.

/** Starting a service compiles its TypeScript on the fly: seconds each, many more on a loaded 2-core box. */
const START_MS = 180_000;
/** How long a fault may take to heal before the run calls it unrecovered. */
const RECOVER_MS = 120_000;
/** Work in flight when the load stops keeps retrying this long. */
const GRACE_MS = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await Promise.resolve(check()).catch(() => false))) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

async function inflict(topology: Topology, load: Load, fault: Fault, probe: McpSession): Promise<Recovery> {
  const began = Date.now();
  let back: boolean;
  if (fault.kind === 'kill') {
    const before = topology.starts(fault.service);
    topology.kill(fault.service);
    back = await waitFor(() => topology.starts(fault.service) > before, START_MS);
  } else {
    await topology.restartPostgres();
    back = true;
  }
  const restarted = Date.now();
  const serves =
    (fault.kind === 'kill' && serviceProbe(fault.service, probe)) || (() => load.lastAnswerAt() > restarted);
  const answered = back && (await waitFor(serves, RECOVER_MS));
  return {
    fault: faultName(fault),
    restartMs: back ? restarted - began : null,
    recoverMs: answered ? Date.now() - began : null,
  };
}

export async function runChaos(profile: ChaosProfile, log: (line: string) => void): Promise<ChaosReport> {
  const began = Date.now();
  const topology = await startChaosTopology(START_MS);
  try {
    log(
      `topology up in ${((Date.now() - began) / 1000).toFixed(1)} s: ${SERVICES.join(', ')} as processes, PostgreSQL embedded; load of ${profile.writers} writers`,
    );
    const loadBegan = Date.now();
    const load = startLoad({ url: topology.gatewayUrl, token: topology.token, writers: profile.writers });
    const recoveries: Recovery[] = [];
    const probe = new McpSession(topology.gatewayUrl, topology.token, 'chaos-probe');
    let stopped = false;
    try {
      await sleep(profile.warmupMs);
      for (const fault of chaosSchedule(profile)) {
        const recovery = await inflict(topology, load, fault, probe);
        recoveries.push(recovery);
        log(recoveryLine(recovery));
        await sleep(profile.gapMs);
      }
      await sleep(profile.cooldownMs);
      await load.stop(GRACE_MS);
      stopped = true;
    } finally {
      if (!stopped) await load.stop(0);
      await probe.close();
    }
    const loadMs = Date.now() - loadBegan;
    log(`load stopped: ${load.writes.length} items written; replaying the indexer from the start`);

    const replayBegan = Date.now();
    await topology.replayIndexer();
    const replayed = await waitFor(async () => (await topology.indexerPending()) === 0, START_MS);
    const replayMs = replayed ? Date.now() - replayBegan : null;

    log(`indexer caught up; checking ${load.writes.length} items through search`);
    const checkBegan = Date.now();
    const observed = await observe(
      { url: topology.gatewayUrl, token: topology.token, readers: 4, timeoutMs: RECOVER_MS },
      load.writes,
    );
    log(`checked in ${((Date.now() - checkBegan) / 1000).toFixed(1)} s`);
    const kills = new Map<Service, number>(SERVICES.map((s) => [s, 0]));
    for (const s of profile.kills) kills.set(s, kills.get(s)! + 1);
    kills.set('indexer', kills.get('indexer')! + 1); // the replay's restart
    return {
      verdict: chaosVerdict(load.writes, observed),
      recoveries,
      replayMs,
      unplannedRestarts: Object.fromEntries(SERVICES.map((s) => [s, topology.starts(s) - 1 - kills.get(s)!])),
      anomalies: load.anomalies,
      loadMs,
    };
  } finally {
    await topology.stop();
  }
}
