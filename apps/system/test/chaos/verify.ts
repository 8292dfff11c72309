import type { Observation, WriteRecord } from './core/verdict.js';
import { McpSession } from './mcp-session.js';

// After the run, what a client finds: each item's token searched over MCP (keyword mode, so
// only the item holding that word can match), and each deleted artifact read back by id.
// Every read is retried until answered: a failed read is no observation.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function answered(session: McpSession, name: string, args: Record<string, unknown>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await session.call(name, args);
    if (answer.ok || answer.code === 'ARTIFACT_NOT_FOUND') return answer;
    if (Date.now() > deadline) throw new Error(`${name} never answered: ${answer.code ?? ''} ${answer.message}`);
    await sleep(250);
  }
}

export async function observe(
  /** `timeoutMs`: how long one read may keep failing before the check gives up. */
  options: { url: string; token: string; readers: number; timeoutMs: number },
  writes: readonly WriteRecord[],
): Promise<Map<string, Observation>> {
  const observed = new Map<string, Observation>();
  const queue = [...writes];
  const reader = async (n: number) => {
    const session = new McpSession(options.url, options.token, `chaos-checker-${n}`);
    try {
      for (let write = queue.shift(); write; write = queue.shift()) {
        const found = await answered(
          session,
          'search_sources',
          { query: write.token, mode: 'keyword', limit: 10 },
          options.timeoutMs,
        );
        const hits = found.ok ? (found.data.results as { sourceId: string }[]).map((r) => r.sourceId) : [];
        const seen: Observation = { hits };
        if (write.deletion === 'acknowledged') {
          const read = await answered(session, 'get_artifact', { id: write.ids[0] }, options.timeoutMs);
          seen.readable = read.ok;
        }
        observed.set(write.token, seen);
      }
    } finally {
      await session.close();
    }
  };
  await Promise.all(Array.from({ length: options.readers }, (_, n) => reader(n)));
  return observed;
}
