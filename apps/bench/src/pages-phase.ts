import { createMcpCaller } from './mcp.js';
import { interleavedLatency, percentile } from './measure.js';
import type { Phase } from './phase.js';
import { loadArtifacts, loadBigPlan, setPassword, signIn } from './pages-workload.js';
import type { Results } from './report.js';

const PASSWORD = 'bench pages password';

/**
 * The web app's pages at scale: an org holding `sizes.pages.artifacts` artifacts and a plan of
 * `sizes.pages.planSteps` steps (half done), its pages read over loopback HTTP by a person
 * signed in through the app's own sign-in, one request at a time, interleaved. The time is the
 * whole request as the browser's would be, on the same machine: what the server spends, plus a
 * loopback round trip. The pages: the plans list (where /app leads), the artifacts list (its
 * first page), the plan's page and an artifact's page.
 */
export const pagesPhase: Phase = {
  name: 'pages',
  async run({ system, sizes, progress }) {
    const { artifacts, planSteps, samples } = sizes.pages;
    const member = await system.createMember('pages');
    const loader = createMcpCaller(system.quarryUrl, member.token, 4);
    let plan;
    try {
      progress(`loading a plan of ${planSteps} steps through MCP, half of them done`);
      plan = await loadBigPlan(loader, planSteps);
    } finally {
      loader.close();
    }
    progress(`loading ${artifacts} artifacts`);
    const artifactId = await loadArtifacts(system.adminUrl, member.orgId, artifacts, plan);
    await setPassword(system.adminUrl, member.email, PASSWORD);

    const origin = new URL(system.quarryUrl).origin;
    const cookie = await signIn(origin, member.email, PASSWORD);
    const page = (path: string) => async () => {
      const answer = await fetch(`${origin}${path}`, { headers: { cookie }, redirect: 'manual' });
      const body = await answer.text();
      if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${body.slice(0, 200)}`);
    };
    const pages = {
      plans_list: page('/app/plans'),
      artifacts_list: page('/app/artifacts'),
      plan: page(`/app/plans/${plan.planId}`),
      artifact: page(`/app/artifacts/${artifactId}`),
    };
    for (let i = 0; i < Math.min(samples, 10); i++) for (const read of Object.values(pages)) await read();

    progress(`reading each page ${samples} times`);
    const times = await interleavedLatency(pages, { count: samples, maxMs: 120_000 }, progress);
    const results: Results = {
      pages_artifacts: { value: artifacts, unit: 'artifacts' },
      pages_plan_steps: { value: planSteps, unit: 'steps' },
    };
    for (const [name, samples] of Object.entries(times)) {
      results[`pages_${name}_p50_ms`] = { value: percentile(samples, 50), unit: 'ms' };
      results[`pages_${name}_p95_ms`] = { value: percentile(samples, 95), unit: 'ms' };
    }
    return results;
  },
};
