/** What a barrier needs of a LISTEN connection (a `pg.Client`). */
export interface ListeningConnection {
  query(text: string): Promise<unknown>;
}

/**
 * A barrier on a LISTEN connection: the returned function resolves true once every notification
 * committed before the call has been delivered to the connection's listeners, false when there is
 * no listening connection. It costs one `SELECT 1` on that connection: PostgreSQL sends the
 * notifications of transactions committed before a query ahead of the query's reply. Calls of one
 * tick share one round trip; a barrier already on the wire cannot vouch for later calls, so they
 * wait for the next one. `connection` returns the client only while it is listening.
 *
 * Caches invalidated by NOTIFY use it to serve a hit only when it is provably current (token
 * revocations in the gateway, plan snapshots in the plan engine).
 */
export function createListenBarrier(connection: () => ListeningConnection | undefined): () => Promise<boolean> {
  let pending: Promise<boolean> | undefined;
  let last: Promise<unknown> = Promise.resolve();
  return () => {
    const client = connection();
    if (!client) return Promise.resolve(false);
    if (!pending) {
      const previous = last;
      const next = (async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        await previous;
        pending = undefined;
        return client.query('select 1').then(
          () => connection() === client,
          () => false,
        );
      })();
      pending = next;
      last = next;
    }
    return pending;
  };
}
