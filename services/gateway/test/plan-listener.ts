import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { connectClient } from './official-client.js';
import { sleep } from './tool-answers.js';

// A 2026-07-28 client listening for plan changes, for the subscription tests.

export const planUris = (planId: string) => [`quarry://plans/${planId}`, `quarry://plans/${planId}/report`];

export interface PlanListener {
  client: Client;
  subscription: McpSubscription;
  /** The URIs of every notifications/resources/updated received, in order. */
  received: string[];
  /** Resolves once `uri` has been received at an index ≥ `from`; fails after a generous wait. */
  waitFor(uri: string, from?: number): Promise<number>;
  close(): Promise<void>;
}

/** Opens a listen stream on `url` as `token` for `uris`. */
export async function listenForPlans(url: string, token: string, uris: readonly string[]): Promise<PlanListener> {
  const client = await connectClient(url, token, 'modern');
  const received: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    received.push(notification.params.uri);
  });
  const subscription = await client.listen({ resourceSubscriptions: [...uris] });
  return {
    client,
    subscription,
    received,
    async waitFor(uri, from = 0) {
      // Load-sensitive: poll with a generous deadline; no assertion on how long it took.
      for (let waited = 0; waited < 60_000; waited += 25) {
        const at = received.indexOf(uri, from);
        if (at >= 0) return at;
        await sleep(25);
      }
      throw new Error(`no notification for ${uri} after index ${from}; received: ${JSON.stringify(received)}`);
    },
    async close() {
      await subscription.close();
      await client.close();
    },
  };
}
