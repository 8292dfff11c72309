import { randomBytes, randomUUID } from 'node:crypto';
import type { WriteRecord } from './core/verdict.js';
import { McpSession, type Answer } from './mcp-session.js';

// The steady write load of a chaos run, through MCP as a client sends it: store_research and
// store_research_batch with an idempotencyKey per item, retried with the same key after any
// failure until answered (a cut connection may hide a commit), some delete_artifact, and plans
// filled and deleted with delete_plan. Every item carries a token of its own in its text, so
// the checker can find it (and only it) by search afterwards.

/** Answers that no retry changes: the load stops retrying and reports them. */
const FINAL = new Set(['INVALID_ARGUMENT', 'IDEMPOTENCY_KEY_REUSED']);
const NOT_FOUND = new Set(['ARTIFACT_NOT_FOUND', 'PLAN_NOT_FOUND']);
const BATCH = 5;

export interface Load {
  readonly writes: readonly WriteRecord[];
  /** Answers the load did not expect (a refused retry, an item refused for its content): each one fails the run. */
  readonly anomalies: readonly string[];
  /** When the last call was answered (Date.now()). */
  lastAnswerAt(): number;
  /** Stop starting new work; work in flight keeps retrying for up to `graceMs`, then gives up. */
  stop(graceMs: number): Promise<void>;
}

interface Item {
  record: WriteRecord;
  key: string;
  args: Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startLoad(options: { url: string; token: string; writers: number }): Load {
  const writes: WriteRecord[] = [];
  const anomalies: string[] = [];
  /** Acknowledged single artifacts, outside any plan, that no deletion has touched yet. */
  const deletable: WriteRecord[] = [];
  const tag = randomBytes(4)
    .toString('hex')
    .replace(/\d/g, (d) => 'ghijklmnop'[Number(d)]!);
  let next = 0;
  let lastAnswer = Date.now();
  let stopping = false;
  let giveUpAt = Infinity;

  /**
   * A word no other item holds, also once stemmed: letters only (one token for every analyzer),
   * ending in a letter no English suffix rule strips (`…s`, `…e`, `…y` would make neighbours equal).
   */
  const token = () => `chaos${tag}${(next++).toString(26).replace(/\d/g, (d) => 'qrstuvwxyz'[Number(d)]!)}q`;

  function item(planId?: string): Item {
    const record: WriteRecord = {
      token: token(),
      ids: [],
      attempts: 0,
      cut: false,
      acknowledged: false,
      deletion: 'none',
    };
    writes.push(record);
    const key = randomUUID();
    const text = `Field note ${record.token}: a moraine survey written under load.`;
    const args = {
      artifactType: 'finding',
      title: `Note ${record.token}`,
      content: { token: record.token },
      contentText: text,
      idempotencyKey: key,
      ...(planId ? { planId } : {}),
    };
    return { record, key, args };
  }

  /** Calls until answered (or refused for good, or the grace is over). */
  async function untilAnswered(session: McpSession, name: string, args: Record<string, unknown>, record?: WriteRecord) {
    for (let attempt = 0; ; attempt++) {
      if (record) record.attempts++;
      const answer: Answer = await session.call(name, args);
      if (record && !answer.ok && !answer.code) record.cut = true;
      if (answer.ok || (answer.code && (FINAL.has(answer.code) || NOT_FOUND.has(answer.code)))) {
        lastAnswer = Date.now();
        return { answer, attempt };
      }
      if (Date.now() > giveUpAt) return { answer, attempt };
      await sleep(Math.min(2_000, 100 * 2 ** attempt));
    }
  }

  function acknowledge(record: WriteRecord, id: string) {
    record.ids.push(id);
    record.acknowledged = true;
  }

  async function storeOne(session: McpSession, planId?: string): Promise<WriteRecord | undefined> {
    const { record, args } = item(planId);
    const { answer } = await untilAnswered(session, 'store_research', args, record);
    if (answer.ok) acknowledge(record, answer.data.id as string);
    else if (answer.code) anomalies.push(`store_research ${record.token}: ${answer.code} ${answer.message}`);
    return answer.ok ? record : undefined;
  }

  async function storeBatch(session: McpSession): Promise<void> {
    let pending = Array.from({ length: BATCH }, () => item());
    while (pending.length > 0) {
      for (const { record } of pending) record.attempts++;
      const answer = await session.call('store_research_batch', { artifacts: pending.map((p) => p.args) });
      if (!answer.ok && !answer.code) for (const { record } of pending) record.cut = true;
      if (answer.ok) {
        lastAnswer = Date.now();
        const results = answer.data.results as { id?: string; errorCode?: string; error?: string }[];
        const retry: Item[] = [];
        pending.forEach((p, i) => {
          const result = results[i]!;
          if (result.id) {
            acknowledge(p.record, result.id);
            deletable.push(p.record);
          } else if (FINAL.has(result.errorCode ?? '')) {
            anomalies.push(`store_research_batch ${p.record.token}: ${result.errorCode} ${result.error}`);
          } else retry.push(p);
        });
        pending = retry;
      } else if (answer.code && FINAL.has(answer.code)) {
        anomalies.push(`store_research_batch: ${answer.code} ${answer.message}`);
        return;
      } else if (Date.now() > giveUpAt) return;
      else await sleep(200);
    }
  }

  async function deleteOne(session: McpSession): Promise<void> {
    const record = deletable.splice(Math.floor(Math.random() * deletable.length), 1)[0];
    if (!record) return;
    record.deletion = 'unresolved';
    const { answer, attempt } = await untilAnswered(session, 'delete_artifact', { artifactId: record.ids[0] });
    // NOT_FOUND is the answer only after an earlier try: the first one deleted it, unanswered.
    if (answer.ok || (attempt > 0 && answer.code && NOT_FOUND.has(answer.code))) record.deletion = 'acknowledged';
    else if (answer.code) anomalies.push(`delete_artifact ${record.token}: ${answer.code} ${answer.message}`);
  }

  async function planCycle(session: McpSession): Promise<void> {
    const created = await untilAnswered(session, 'create_research_plan', {
      name: `Chaos plan ${tag}`,
      researchQuestion: 'What survives a crash?',
      steps: [{ stepType: 'search', instructions: 'Write notes.' }],
    });
    if (!created.answer.ok) return;
    const planId = created.answer.data.planId as string;
    const stored: WriteRecord[] = [];
    for (let i = 0; i < 3; i++) {
      const record = await storeOne(session, planId);
      if (record) stored.push(record);
    }
    for (const record of stored) record.deletion = 'unresolved';
    const { answer, attempt } = await untilAnswered(session, 'delete_plan', { planId });
    if (answer.ok || (attempt > 0 && answer.code && NOT_FOUND.has(answer.code)))
      for (const record of stored) record.deletion = 'acknowledged';
    else if (answer.code) anomalies.push(`delete_plan ${planId}: ${answer.code} ${answer.message}`);
  }

  async function writer(n: number): Promise<void> {
    const session = new McpSession(options.url, options.token, `chaos-writer-${n}`);
    try {
      while (!stopping) {
        const r = Math.random();
        if (r < 0.5) {
          const record = await storeOne(session);
          if (record) deletable.push(record);
        } else if (r < 0.8) await storeBatch(session);
        else if (r < 0.93) await deleteOne(session);
        else await planCycle(session);
      }
    } finally {
      await session.close();
    }
  }

  const running = Promise.all(Array.from({ length: options.writers }, (_, n) => writer(n)));
  return {
    writes,
    anomalies,
    lastAnswerAt: () => lastAnswer,
    async stop(graceMs) {
      stopping = true;
      giveUpAt = Date.now() + graceMs;
      await running;
    },
  };
}
