import { ECHO_ARGS, startHandRolledEcho, startNaiveMcpServer } from './baselines.js';
import { createMcpCaller, toolCallRequest } from './mcp.js';
import { interleavedLatency, percentile, startLoad } from './measure.js';
import { createPlans, pairClients, sequentialPairs, succeeded } from './plan-workload.js';
import { compared, type Results } from './report.js';
import type { Phase } from './phase.js';

export const planToolsPhase: Phase = {
  name: 'plan tools',
  async run({ system, sizes, progress }) {
    const { stepsPerPlan } = sizes;
    const targets = { quarry: system.quarryUrl, quarry_grpc: system.quarryGrpcUrl, monolith: system.monolithUrl };
    const callers = {
      quarry: createMcpCaller(targets.quarry, system.token),
      quarry_grpc: createMcpCaller(targets.quarry_grpc, system.token),
      monolith: createMcpCaller(targets.monolith, system.token),
    };
    const loader = createMcpCaller(system.quarryUrl, system.token, 8);
    const results: Results = {};
    try {
      // Data, loaded through MCP: a plan half done (what get_plan_status reads), and plans to work through.
      progress(`loading plans (${stepsPerPlan} steps each)`);
      const [statusPlan] = await createPlans(loader, 1, stepsPerPlan);
      const advance = sequentialPairs(loader, [statusPlan!], stepsPerPlan);
      for (let i = 0; i < stepsPerPlan / 2; i++) await advance();
      const pairPlans = Math.ceil(sizes.latencyRounds / stepsPerPlan);
      const latencyPlans = {
        quarry: await createPlans(loader, pairPlans, stepsPerPlan),
        monolith: await createPlans(loader, pairPlans, stepsPerPlan),
      };
      await system.settle();

      const status = { planId: statusPlan! };
      for (let i = 0; i < sizes.warmupCalls; i++) {
        await callers.quarry.call('get_plan_status', status);
        await callers.quarry_grpc.call('get_plan_status', status);
        await callers.monolith.call('get_plan_status', status);
        await system.getPlanStatusDirect(status);
      }

      // p1: one request at a time, interleaved so both systems see the same noise.
      progress(`p1 get_plan_status latency (${sizes.latencyRounds} rounds)`);
      const bounds = { count: sizes.latencyRounds, maxMs: sizes.latencyMaxSeconds * 1000 };
      const reads = await interleavedLatency(
        {
          quarry: () => callers.quarry.call('get_plan_status', status),
          quarry_grpc: () => callers.quarry_grpc.call('get_plan_status', status),
          monolith: () => callers.monolith.call('get_plan_status', status),
          grpc: () => system.getPlanStatusDirect(status),
        },
        bounds,
        progress,
      );
      progress(`p1 get_next_step+submit_step_result latency (${sizes.latencyRounds} rounds)`);
      const pairs = await interleavedLatency(
        {
          quarry: sequentialPairs(callers.quarry, latencyPlans.quarry, stepsPerPlan),
          monolith: sequentialPairs(callers.monolith, latencyPlans.monolith, stepsPerPlan),
        },
        bounds,
        progress,
      );
      results.p1_get_plan_status_p50_ms = compared(percentile(reads.quarry, 50), percentile(reads.monolith, 50), 'ms');
      results.p1_get_plan_status_p99_ms = compared(percentile(reads.quarry, 99), percentile(reads.monolith, 99), 'ms');
      results.p1_ratio_p50 = { value: results.p1_get_plan_status_p50_ms.ratio!, unit: '×' };
      results.p1_ratio_p99 = { value: results.p1_get_plan_status_p99_ms.ratio!, unit: '×' };
      results.p1_get_plan_status_grpc_p50_ms = compared(
        percentile(reads.quarry_grpc, 50),
        percentile(reads.monolith, 50),
        'ms',
      );
      results.p1_step_pair_p50_ms = compared(percentile(pairs.quarry, 50), percentile(pairs.monolith, 50), 'ms');
      results.p1_step_pair_p99_ms = compared(percentile(pairs.quarry, 99), percentile(pairs.monolith, 99), 'ms');
      // What the gateway adds to the gRPC call it makes: the same read, through MCP and direct.
      results.p1_grpc_get_plan_status_p50_ms = { value: percentile(reads.grpc, 50), unit: 'ms' };
      results.p1_gateway_added_p50_ms = {
        value: percentile(reads.quarry, 50) - percentile(reads.grpc, 50),
        unit: 'ms',
      };

      // p2: concurrent clients, time- and count-bounded; per level the systems take turns going
      // first (ABBA), reads before writes. Plans for the pairs are loaded first, sized from the
      // sequential pair latency with room to spare (2 cores rarely do more than 3× that rate).
      const runs = sizes.clients.flatMap((clients, level) => {
        const order = level % 2 ? (['monolith', 'quarry'] as const) : (['quarry', 'monolith'] as const);
        return order.map((name) => ({ clients, name }));
      });
      const pairsPerRun = Math.ceil(
        (3 * 1000 * sizes.loadSeconds) /
          Math.min(results.p1_step_pair_p50_ms.value, results.p1_step_pair_p50_ms.baseline!),
      );
      progress(`loading plans for ${runs.length} pair runs (~${pairsPerRun} steps each)`);
      const pools: string[][] = [];
      for (const run of runs)
        pools.push(await createPlans(loader, Math.ceil(pairsPerRun / stepsPerPlan) + run.clients, stepsPerPlan));
      await system.settle();

      const maxRequests = Math.ceil(sizes.loadSeconds * 100_000);
      const readRate: Record<string, number> = {};
      /** One time-bounded run of the same call from `clients` connections; any failed call fails the phase. */
      const callsPerSecond = async (
        url: string,
        request: { headers: Record<string, string>; body: string },
        clients: number,
        what: string,
      ) => {
        const run = await startLoad({
          url,
          ...request,
          connections: clients,
          seconds: sizes.loadSeconds,
          maxRequests,
          verifyBody: succeeded,
        }).done;
        if (run.failures) throw new Error(`${run.failures} failed ${what} calls (${clients} clients)`);
        return run;
      };
      // Reads run ABCCBA at each level (each system twice, the second time in mirrored order) and
      // each system's rate is the mean of its two runs: a burst of load from elsewhere on the
      // machine then falls on every system, not on whichever ran alone in that window.
      const readRuns = sizes.clients.flatMap((clients, level) => {
        const names = ['quarry', 'quarry_grpc', 'monolith'] as const;
        const order = level % 2 ? [...names].reverse() : [...names];
        return [...order, ...[...order].reverse()].map((name) => ({ clients, name }));
      });
      const readRates: Record<string, number[]> = {};
      // This process's CPU per read call (load generator, gateway, transport, plan handlers; not
      // PostgreSQL): the same for all three but for the hop, so their differences are the hop's.
      const readCpu: Record<string, number[]> = {};
      for (const { clients, name } of readRuns) {
        progress(`p2 get_plan_status, ${clients} clients, ${name} (${sizes.loadSeconds} s)`);
        const cpu = process.cpuUsage();
        const run = await callsPerSecond(
          targets[name],
          toolCallRequest(system.token, 'get_plan_status', status),
          clients,
          `get_plan_status (${name})`,
        );
        const used = process.cpuUsage(cpu);
        (readRates[`${name}_c${clients}`] ??= []).push(run.perSecond);
        (readCpu[name] ??= []).push((used.user + used.system) / Math.max(run.requests, 1));
      }
      for (const [key, rates] of Object.entries(readRates))
        readRate[key] = rates.reduce((a, b) => a + b, 0) / rates.length;
      // The same load on the two echo baselines (no Quarry behind the tool): what the transport costs.
      const baselines = { naive: await startNaiveMcpServer(), handrolled: await startHandRolledEcho() };
      try {
        for (const clients of sizes.clients) {
          for (const name of ['naive', 'handrolled'] as const) {
            progress(`p2 echo, ${clients} clients, ${name} baseline (${sizes.loadSeconds} s)`);
            const run = await callsPerSecond(
              baselines[name].url,
              toolCallRequest(system.token, 'echo', ECHO_ARGS),
              clients,
              `echo (${name})`,
            );
            readRate[`${name}_c${clients}`] = run.perSecond;
          }
        }
      } finally {
        await baselines.naive.close();
        await baselines.handrolled.close();
      }
      const pairRate: Record<string, number> = {};
      for (const [i, { clients, name }] of runs.entries()) {
        progress(`p2 get_next_step+submit_step_result, ${clients} clients, ${name} (${sizes.loadSeconds} s)`);
        const counters = { pairs: 0 };
        let load: ReturnType<typeof startLoad> | undefined;
        const ranOut = () => {
          if (load) progress('  plans ran out; ending this run early (its rate stands)');
          load?.stop();
          load = undefined;
        };
        load = startLoad({
          url: targets[name],
          headers: {},
          connections: clients,
          seconds: sizes.loadSeconds,
          maxRequests,
          setupClient: pairClients(system.token, pools[i]!, stepsPerPlan, counters, ranOut),
          verifyBody: succeeded,
        });
        const pairRun = await load.done;
        if (pairRun.failures) throw new Error(`${pairRun.failures} failed step calls (${name}, ${clients} clients)`);
        pairRate[`${name}_c${clients}`] = counters.pairs / Math.max(pairRun.seconds, 0.001);
      }
      for (const clients of sizes.clients) {
        results[`p2_read_tool_calls_per_s_grpc_c${clients}`] = compared(
          readRate[`quarry_grpc_c${clients}`]!,
          readRate[`monolith_c${clients}`]!,
          'calls/s',
        );
        results[`p2_read_tool_calls_per_s_c${clients}`] = compared(
          readRate[`quarry_c${clients}`]!,
          readRate[`monolith_c${clients}`]!,
          'calls/s',
        );
        results[`p2_step_pairs_per_s_c${clients}`] = compared(
          pairRate[`quarry_c${clients}`]!,
          pairRate[`monolith_c${clients}`]!,
          'pairs/s',
        );
      }
      // The headline figures: the best rate over the concurrency levels, for each system.
      const best = (rates: Record<string, number>, name: string) =>
        Math.max(...sizes.clients.map((c) => rates[`${name}_c${c}`]!));
      results.p2_read_tool_calls_per_s = compared(best(readRate, 'quarry'), best(readRate, 'monolith'), 'calls/s');
      // The same one-process Quarry over loopback gRPC: the "before" of the in-process transport.
      results.p2_read_tool_calls_per_s_grpc = compared(
        best(readRate, 'quarry_grpc'),
        best(readRate, 'monolith'),
        'calls/s',
      );
      const cpuOf = (name: string) => percentile(readCpu[name]!, 50);
      results.p2_cpu_per_read_call_one_process_us = compared(cpuOf('quarry'), cpuOf('monolith'), 'µs');
      results.p2_cpu_per_read_call_one_process_grpc_us = compared(cpuOf('quarry_grpc'), cpuOf('monolith'), 'µs');
      results.p2_naive_echo_calls_per_s = { value: best(readRate, 'naive'), unit: 'calls/s' };
      results.p2_handrolled_echo_calls_per_s = { value: best(readRate, 'handrolled'), unit: 'calls/s' };
      results.p2_ratio = { value: best(readRate, 'quarry') / best(readRate, 'naive'), unit: '×' };
      results.p2_ratio_handrolled = { value: best(readRate, 'quarry') / best(readRate, 'handrolled'), unit: '×' };
      results.p2_step_pairs_per_s = compared(best(pairRate, 'quarry'), best(pairRate, 'monolith'), 'pairs/s');
      return results;
    } finally {
      callers.quarry.close();
      callers.quarry_grpc.close();
      callers.monolith.close();
      loader.close();
    }
  },
};
