import { planV1 } from '@quarry/contracts';
import { answerText, halfDonePlan, startGatewayProcess } from './gateway-cpu-phase.js';
import { toolCallRequest } from './mcp.js';
import { type MeasuredProcess, startMeasuredProcess } from './measured-process.js';
import { percentile, startLoad } from './measure.js';
import type { Phase } from './phase.js';
import type { PlanEngineProcessSettings } from './plan-engine-process.js';
import { compared, type Results } from './report.js';
import type { BenchSystem } from './system.js';

const PLAN_SERVICE = `${planV1.protobufPackage}.PlanService`;

/** The processes of one way to deploy the read path; the first serves MCP. */
interface Topology {
  name: 'kubernetes' | 'monolith';
  /** Names of the processes, in the order `start` returns them. */
  processes: readonly string[];
  start(system: BenchSystem): Promise<MeasuredProcess[]>;
}

const KUBERNETES: Topology = {
  name: 'kubernetes',
  processes: ['gateway', 'plan_engine'],
  async start(system) {
    const settings: PlanEngineProcessSettings = {
      databaseUrl: system.gatewaySettings.databaseUrl,
      identityKey: system.gatewaySettings.identityKey,
      artifactStoreAddress: system.services.artifactStore.address,
    };
    const planEngine = await startMeasuredProcess('plan-engine-process', settings);
    try {
      const gateway = await startGatewayProcess({
        ...system.gatewaySettings,
        serviceAddresses: { ...system.gatewaySettings.serviceAddresses, [PLAN_SERVICE]: planEngine.address },
        client: 'grpc-js',
      });
      return [gateway, planEngine];
    } catch (error) {
      await planEngine.close();
      throw error;
    }
  },
};

const MONOLITH: Topology = {
  name: 'monolith',
  processes: ['monolith'],
  async start(system) {
    return [await startGatewayProcess({ ...system.gatewaySettings, client: 'grpc-js', planInProcess: true })];
  },
};

const TOPOLOGIES = [KUBERNETES, MONOLITH] as const;

/**
 * The CPU price of the Kubernetes topology: get_plan_status (a 20-step plan half done, 32 calls
 * in flight) through a gateway in a process of its own calling the plan engine in another, as
 * pods run them, against the monolith (the same gateway with the plan handlers inside it) in a
 * process of its own. The figure is the CPU time (user + system) of every Quarry process serving
 * the call over a fixed number of calls, per call; PostgreSQL (the same SQL on both sides) and
 * the load generator stay in the bench process and are not counted. The two take turns in an
 * order rotated every round, and answer the same bytes before they are measured; medians over
 * rounds.
 */
export const topologyCpuPhase: Phase = {
  name: 'topology cpu',
  async run({ system, sizes, progress }) {
    const { calls, rounds, warmupCalls } = sizes.topologyCpu;
    progress('loading a 20-step plan, half done');
    const planId = await halfDonePlan(system.quarryUrl, system.token, 20);
    const request = toolCallRequest(system.token, 'get_plan_status', { planId });
    // Per topology and round: µs per call of each of its processes.
    const samples = new Map(TOPOLOGIES.map((t) => [t.name, [] as number[][]]));
    let reference: string | undefined;
    for (let round = 0; round < rounds; round++) {
      const order = TOPOLOGIES.map((_, i) => TOPOLOGIES[(i + round) % TOPOLOGIES.length]!);
      for (const topology of order) {
        const processes = await topology.start(system);
        try {
          const url = processes[0]!.address;
          const text = await answerText(url, request);
          reference ??= text;
          if (text !== reference) throw new Error(`the ${topology.name} answers differently:\n${text}\n${reference}`);
          const load = (count: number) =>
            startLoad({ url, ...request, connections: 32, seconds: 600, maxRequests: count }).done;
          const warm = await load(warmupCalls);
          if (warm.failures) throw new Error(`${warm.failures} failed calls warming up the ${topology.name}`);
          const before = await Promise.all(processes.map((p) => p.cpuMicros()));
          const run = await load(calls);
          const after = await Promise.all(processes.map((p) => p.cpuMicros()));
          if (run.failures) throw new Error(`${run.failures} failed calls through the ${topology.name}`);
          const perCall = after.map((micros, i) => (micros - before[i]!) / run.requests);
          samples.get(topology.name)!.push(perCall);
          const split = perCall.map((us, i) => `${topology.processes[i]} ${us.toFixed(0)}`).join(' + ');
          progress(
            `round ${round + 1}/${rounds} ${topology.name}: ${sum(perCall).toFixed(0)} µs CPU/call (${split}; ${run.requests} calls, ${run.perSecond.toFixed(0)}/s)`,
          );
        } finally {
          for (const child of processes) await child.close();
        }
      }
    }
    const kubernetes = samples.get('kubernetes')!;
    const monolith = samples.get('monolith')!;
    const total = compared(percentile(kubernetes.map(sum), 50), percentile(monolith.map(sum), 50), 'µs');
    const paired = kubernetes.map((k, i) => (sum(k) / sum(monolith[i]!)).toFixed(2));
    progress(`kubernetes ÷ monolith CPU per call, per round: ${paired.join(', ')}`);
    const results: Results = {
      p2_cpu_per_read_call_us: total,
      p2_cpu_per_read_call_ratio: { value: total.ratio!, unit: '×' },
    };
    KUBERNETES.processes.forEach((name, i) => {
      results[`p2_cpu_per_read_call_${name}_us`] = {
        value: percentile(
          kubernetes.map((k) => k[i]!),
          50,
        ),
        unit: 'µs',
      };
    });
    return results;
  },
};

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
