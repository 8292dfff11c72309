import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export interface SmokeOptions {
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  url: string;
  token: string;
  /** One line per step, as it happens. */
  log: (line: string) => void;
  /** How long the stored artifact may take to become searchable (the outbox → indexer path). */
  searchableWithinMs?: number;
}

type Output = Record<string, unknown>;

/**
 * One research session over MCP, as a client runs it: a two-step plan is created and worked
 * through, a finding is stored and found again by search, data is extracted from it, the plan
 * completes. Every answer is checked; the first wrong one throws with what was expected. It
 * writes real data into the token's org (a plan named "quarry smoke …"), so it suits a fresh
 * or a test deployment.
 */
export async function runResearchSession({
  url,
  token,
  log,
  searchableWithinMs = 30_000,
}: SmokeOptions): Promise<void> {
  const client = new Client({ name: 'quarry-smoke', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }));
  const call = async (name: string, args: Output): Promise<Output> => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError)
      throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent ?? result.content)}`);
    return (result.structuredContent ?? {}) as Output;
  };
  const expectThat = (ok: boolean, what: string, got: unknown) => {
    if (!ok) throw new Error(`${what}; got ${JSON.stringify(got)}`);
  };

  try {
    const marker = `smoke-${Date.now().toString(36)}`;
    const plan = await call('create_research_plan', {
      name: `quarry smoke ${new Date().toISOString()}`,
      researchQuestion: 'Does the whole research pipeline answer end to end?',
      steps: [
        { stepType: 'search', instructions: 'Find one source on kettle lakes.' },
        { stepType: 'synthesize', instructions: 'Summarise what was found.' },
      ],
    });
    const planId = String(plan.planId);
    expectThat(plan.stepCount === 2, 'create_research_plan should report 2 steps', plan);
    log(`created plan ${planId}`);

    const first = await call('get_next_step', { planId });
    const firstStep = first.step as Output | undefined;
    expectThat(
      first.status === 'next_step' && firstStep?.stepOrder === 1,
      'get_next_step should hand out step 1',
      first,
    );
    const stored = await call('store_research', {
      artifactType: 'finding',
      title: `Kettle lakes (${marker})`,
      content: { source: 'smoke' },
      contentText: `Kettle lakes form where blocks of glacial ice melt in outwash plains. Marker ${marker}.`,
      planId,
      stepId: firstStep!.stepId,
    });
    expectThat(
      stored.stored === true && typeof stored.id === 'string',
      'store_research should store the artifact',
      stored,
    );
    log(`stored artifact ${String(stored.id)}`);
    const submitted = await call('submit_step_result', {
      planId,
      stepId: firstStep!.stepId,
      result: { summary: 'One source on kettle lakes.' },
      confidence: 0.9,
    });
    expectThat(submitted.submitted === true, 'submit_step_result should be accepted', submitted);

    const deadline = Date.now() + searchableWithinMs;
    for (;;) {
      const found = await call('search_sources', { query: marker, limit: 5 });
      const results = (found.results ?? []) as Output[];
      if (results.some((r) => r.sourceId === stored.id)) break;
      if (Date.now() > deadline)
        throw new Error(`search_sources did not find the stored artifact within ${searchableWithinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    log('search_sources found it');

    const extractionSchema = { type: 'object', properties: { landform: { type: 'string' } } };
    let extracted = await call('extract_data', {
      sourceArtifactId: stored.id,
      extractionSchema,
      planId,
      stepId: firstStep!.stepId,
    });
    if (extracted.status === 'awaiting_submission') {
      // No model on the server and no sampling: the smoke test plays the client's model.
      const landform = /kettle lakes?/i.exec(String(extracted.sourceText))?.[0];
      extracted = await call('submit_extraction', {
        handle: extracted.handle,
        data: landform ? { landform } : {},
        extractionSchema,
      });
    }
    expectThat(typeof extracted.extractionId === 'string', 'extract_data should store an extraction', extracted);
    log(`extracted (${String(extracted.provider)}, status ${String(extracted.status)})`);

    const halfway = await call('get_plan_status', { planId });
    expectThat(halfway.progress === 50, 'get_plan_status should report 50 % after one of two steps', halfway);
    const second = await call('get_next_step', { planId });
    const secondStep = second.step as Output | undefined;
    expectThat(
      second.status === 'next_step' && secondStep?.stepOrder === 2,
      'get_next_step should hand out step 2',
      second,
    );
    await call('submit_step_result', { planId, stepId: secondStep!.stepId, result: { summary: 'Done.' } });
    const done = await call('get_next_step', { planId });
    expectThat(done.status === 'plan_complete', 'get_next_step should say the plan is complete', done);
    const status = await call('get_plan_status', { planId });
    expectThat(status.status === 'completed' && status.progress === 100, 'the plan should be completed', status);
    log('plan completed: the research session passed');
  } finally {
    await client.close();
  }
}
