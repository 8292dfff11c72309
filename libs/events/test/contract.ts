import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DeliveredEvent, EventLog, Subscription } from '../src/index.js';
import { titleOf, waitFor } from './helpers.js';

/** What the shared contract needs from an adapter's test environment. */
export interface ContractEnv {
  /** A new event log, as a freshly started process would create it. */
  newLog(): EventLog;
  /** Append one content event per title for `orgId` through the real outbox path; event ids in order. */
  publish(orgId: string, titles: readonly string[]): Promise<string[]>;
  /** Event ids that `consumer` dead-lettered. */
  deadLettered(consumer: string, orgId: string): Promise<string[]>;
  /** How long delivery may take in this environment. */
  timeoutMs: number;
}

/**
 * The EventLog contract, run against every adapter: at least once, in order per org, offsets
 * only after success (a restart resumes and re-delivers the unfinished batch), poison events
 * dead-lettered after maxAttempts (and reported to onDeadLetter) while later events keep flowing.
 */
export function eventLogContract(name: string, env: () => ContractEnv): void {
  describe(`EventLog contract: ${name}`, () => {
    const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

    it('delivers every event once a handler succeeds, in order per org', async () => {
      const e = env();
      const [orgA, orgB] = [randomUUID(), randomUUID()];
      const a = await e.publish(orgA, ['a1', 'a2', 'a3']);
      const b = await e.publish(orgB, ['b1', 'b2']);
      const seen = new Map<string, string[]>([
        [orgA, []],
        [orgB, []],
      ]);
      const log = e.newLog();
      await log.subscribe({
        consumer: unique('contract-order'),
        batchSize: 2,
        handler: async (batch) => {
          for (const d of batch) seen.get(d.event.orgId)?.push(d.event.eventId);
        },
      });
      await waitFor(() => seen.get(orgA)!.length >= 3 && seen.get(orgB)!.length >= 2, e.timeoutMs, 'all events');
      expect(seen.get(orgA)).toEqual(a);
      expect(seen.get(orgB)).toEqual(b);
      await log.close();
    });

    it('re-delivers what a crashed consumer did not finish and resumes after what it did', async () => {
      const e = env();
      const org = randomUUID();
      const consumer = unique('contract-restart');
      const ids = await e.publish(org, ['r1', 'r2', 'r3', 'r4']);
      const mine = (batch: readonly DeliveredEvent[]) =>
        batch.filter((d) => d.event.orgId === org).map((d) => d.event.eventId);

      const done: string[] = [];
      let closing: Promise<void> | undefined;
      const first = e.newLog();
      const sub: Subscription = await first.subscribe({
        consumer,
        batchSize: 1,
        retryDelayMs: 1,
        handler: async (batch) => {
          const events = mine(batch);
          if (events.includes(ids[2]!)) {
            closing ??= sub.close(); // dies while handling r3
            throw new Error('killed');
          }
          done.push(...events);
        },
      });
      await waitFor(() => closing !== undefined, e.timeoutMs, 'the crash');
      await closing;
      expect(done).toEqual(ids.slice(0, 2));

      const again: string[] = [];
      const second = e.newLog();
      await second.subscribe({ consumer, handler: async (batch) => void again.push(...mine(batch)) });
      await waitFor(() => again.includes(ids[3]!), e.timeoutMs, 'the rest after restart');
      expect(again).toEqual(ids.slice(2));
      await Promise.all([first.close(), second.close()]);
    });

    it('dead-letters a poison event after maxAttempts and keeps delivering later events', async () => {
      const e = env();
      const org = randomUUID();
      const consumer = unique('contract-poison');
      const [ok1, poison, ok2] = await e.publish(org, ['ok1', 'poison', 'ok2']);
      const handled: string[] = [];
      const reported: Array<string | undefined> = [];
      const log = e.newLog();
      await log.subscribe({
        consumer,
        maxAttempts: 2,
        retryDelayMs: 1,
        onDeadLetter: (letter) => reported.push(letter.event?.eventId),
        handler: async (batch) => {
          const events = batch.filter((d) => d.event.orgId === org);
          if (events.some((d) => titleOf(d) === 'poison')) throw new Error('poison');
          handled.push(...events.map((d) => d.event.eventId));
        },
      });
      await waitFor(() => handled.includes(ok2!), e.timeoutMs, 'the event after the poison one');
      expect(handled).toEqual([ok1, ok2]);
      let letters: string[] = [];
      const until = Date.now() + e.timeoutMs;
      while (!letters.includes(poison!) && Date.now() < until) letters = await e.deadLettered(consumer, org);
      expect(letters).toEqual([poison]);
      expect(reported).toEqual([poison]); // onDeadLetter: once per event given up on
      await log.close();
    });
  });
}
