import { randomBytes, randomUUID } from 'node:crypto';
import type { Service } from '../readme-script.js';
import type { McpSession } from './mcp-session.js';

// How a chaos run knows a killed service serves clients again, for the services the write
// load does not call: search answers a search, extraction answers about a job (a missing one:
// the answer comes from the service itself), the indexer makes a new item findable. The
// others are back when the load's own calls are answered again.

/** Codes the gateway answers when the service behind it did not answer. */
const DOWN = new Set(['SERVICE_UNAVAILABLE', 'DEADLINE_EXCEEDED', 'CANCELLED']);

/** One try of the probe for `service`; undefined when the load's own calls tell. */
export function serviceProbe(service: Service, session: McpSession): (() => Promise<boolean>) | undefined {
  if (service === 'search')
    return async () => (await session.call('search_sources', { query: 'moraine', mode: 'keyword', limit: 1 })).ok;
  if (service === 'extraction')
    return async () => {
      const answer = await session.call('get_extraction_job', { jobId: randomUUID() });
      return answer.ok || (answer.code !== undefined && !DOWN.has(answer.code));
    };
  if (service === 'indexer') {
    const word = `chaosprobe${randomBytes(6)
      .toString('hex')
      .replace(/\d/g, (d) => 'ghijklmnop'[Number(d)]!)}q`;
    const args = {
      artifactType: 'finding',
      title: `Probe ${word}`,
      content: { word },
      contentText: `Freshness probe ${word}.`,
      idempotencyKey: randomUUID(),
    };
    let stored = false;
    return async () => {
      stored ||= (await session.call('store_research', args)).ok;
      if (!stored) return false;
      const found = await session.call('search_sources', { query: word, mode: 'keyword', limit: 1 });
      return found.ok && (found.data.results as unknown[]).length > 0;
    };
  }
  return undefined;
}
