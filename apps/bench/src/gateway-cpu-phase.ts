import type { GatewayClient } from './gateway-clients.js';
import type { GatewayProcessSettings } from './gateway-process.js';
import { createMcpCaller, toolCallRequest } from './mcp.js';
import { startMeasuredProcess } from './measured-process.js';
import { percentile, startLoad } from './measure.js';
import type { Phase } from './phase.js';
import { compared, type Results } from './report.js';

/** One way to build the gateway: the client it calls the services with. */
interface Variant {
  /** Metric suffix; '' is the gateway as it ships, the baseline of every other variant. */
  name: string;
  client: GatewayClient;
}

const VARIANTS: readonly Variant[] = [
  { name: '', client: 'grpc-js' },
  { name: 'connect', client: 'connect' },
];

/** A gateway in a process of its own (gateway-process.ts): its MCP URL is the process's address. */
export function startGatewayProcess(settings: GatewayProcessSettings) {
  return startMeasuredProcess('gateway-process', settings);
}

/** A plan half done, created through MCP (what get_plan_status reads in the plan tools phase too). */
export async function halfDonePlan(url: string, token: string, steps: number): Promise<string> {
  const caller = createMcpCaller(url, token);
  try {
    const { planId } = await caller.call('create_research_plan', {
      name: 'Gateway CPU plan',
      researchQuestion: 'What does the gateway spend per call?',
      steps: Array.from({ length: steps }, (_, i) => ({
        stepType: i % 2 ? 'analyze' : 'search',
        instructions: `Step ${i + 1}: do the work and report sources.`,
      })),
    });
    for (let i = 0; i < steps / 2; i++) {
      const next = await caller.call('get_next_step', { planId });
      await caller.call('submit_step_result', {
        planId,
        stepId: next.step.stepId,
        result: { summary: 'Found three sources.', sources: { count: 3 } },
        confidence: 0.9,
      });
    }
    return planId as string;
  } finally {
    caller.close();
  }
}

/** The text content of one get_plan_status answer: every variant must give the same bytes. */
export async function answerText(
  url: string,
  request: { headers: Record<string, string>; body: string },
): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  const message = (await response.json()) as { result?: { isError?: boolean; content?: { text: string }[] } };
  if (!message.result || message.result.isError) throw new Error(`get_plan_status failed: ${JSON.stringify(message)}`);
  return message.result.content![0]!.text;
}

/**
 * The gateway's CPU per tool call, by the gRPC client it calls the services with (ADR 0022): the
 * gateway alone in a child process, the services, PostgreSQL and the load generator outside it;
 * get_plan_status of a 20-step plan at 32 calls in flight; the child's CPU time (user + system)
 * over the calls it answered. Variants take turns, in a rotated order each round, so they share
 * the machine's drift; the figure is the median over rounds, and the ratio is against the gateway
 * as it ships.
 */
export const gatewayCpuPhase: Phase = {
  name: 'gateway cpu',
  async run({ system, sizes, progress }) {
    const { calls, rounds, warmupCalls } = sizes.gatewayCpu;
    progress('loading a 20-step plan, half done');
    const planId = await halfDonePlan(system.quarryUrl, system.token, 20);
    const request = toolCallRequest(system.token, 'get_plan_status', { planId });
    const micros = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
    let reference: string | undefined;
    for (let round = 0; round < rounds; round++) {
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]!);
      for (const variant of order) {
        const gateway = await startGatewayProcess({ ...system.gatewaySettings, client: variant.client });
        try {
          const text = await answerText(gateway.address, request);
          reference ??= text;
          if (text !== reference) throw new Error(`${label(variant)} answers differently:\n${text}\n${reference}`);
          const load = (count: number) =>
            startLoad({ url: gateway.address, ...request, connections: 32, seconds: 600, maxRequests: count }).done;
          const warm = await load(warmupCalls);
          if (warm.failures) throw new Error(`${warm.failures} failed calls warming up ${label(variant)}`);
          const before = await gateway.cpuMicros();
          const run = await load(calls);
          const used = (await gateway.cpuMicros()) - before;
          if (run.failures) throw new Error(`${run.failures} failed calls through ${label(variant)}`);
          const perCall = used / run.requests;
          micros.get(variant)!.push(perCall);
          progress(
            `round ${round + 1}/${rounds} ${label(variant)}: ${perCall.toFixed(0)} µs CPU/call (${run.requests} calls, ${run.perSecond.toFixed(0)}/s)`,
          );
        } finally {
          await gateway.close();
        }
      }
    }
    const median = (variant: Variant) => percentile(micros.get(variant)!, 50);
    const shipped = VARIANTS[0]!;
    const results: Results = { gateway_cpu_us_per_call: { value: median(shipped), unit: 'µs' } };
    for (const variant of VARIANTS.slice(1)) {
      results[`gateway_cpu_us_per_call_${variant.name}`] = compared(median(variant), median(shipped), 'µs');
      const paired = micros.get(variant)!.map((value, i) => (value / micros.get(shipped)![i]!).toFixed(2));
      progress(`${label(variant)} ÷ ${label(shipped)}, per round: ${paired.join(', ')}`);
    }
    return results;
  },
};

function label(variant: Variant): string {
  return `${variant.client} client`;
}
