import { afterAll, beforeAll } from '@jest/globals';
import { startTestGateway } from './harness.js';

/** The whole system as the suites of one test file share it. */
export type TestSystem = Awaited<ReturnType<typeof startTestGateway>>;

/**
 * One whole system for every suite of a test file: started before the first suite, closed after
 * the last (`env` may be worked out when it starts, e.g. around a free port). Suites run one after another, each with organizations of its own (`suiteOrg`), so
 * what one stores never shows in another's lists.
 */
export function sharedSystem(
  env: Record<string, string> | (() => Promise<Record<string, string>>) = {},
): () => TestSystem {
  let system: TestSystem | undefined;
  beforeAll(async () => {
    system = await startTestGateway(typeof env === 'function' ? await env() : env);
  }, 120_000);
  afterAll(async () => {
    await system?.close();
  });
  return () => {
    if (!system) throw new Error('the shared system has not started');
    return system;
  };
}

/** A member of a fresh org of the suite's own: `<name>-<suite>`, with one token. */
export async function suiteOrg(system: TestSystem, suite: string, name: 'acme' | 'rival' | 'globex') {
  const slug = `${name}-${suite}`;
  const email = `${name === 'rival' ? 'eve' : 'ada'}@${slug}.test`;
  const org = await system.admin.createOrg({ slug, name: `${name} (${suite})` });
  await system.admin.addUser({ email, orgSlug: slug, name: name === 'rival' ? 'Eve' : 'Ada Lovelace' });
  const { token, id: tokenId } = await system.admin.createToken({ orgSlug: slug, email, name: 'tests' });
  return { orgId: org.id, slug, email, token, tokenId };
}
