import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { connectClient, type Era, startTestGateway } from './harness.js';
import { toolsOf } from './tool-answers.js';

// The world the resources end-to-end tests read: one org with two plans, an artifact, a
// markdown and a Word deliverable and an extraction, stored through the tools; a rival org with
// a plan of its own; clients of both eras.

const HANDLE_KEY = 'h'.repeat(40);
export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
export const WORD = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export async function startResourcesWorld() {
  const gateway = await startTestGateway({ EXTRACTION_HANDLE_KEY: HANDLE_KEY });
  const clients: Record<Era, Client> = {
    legacy: await connectClient(gateway.url, gateway.token, 'legacy'),
    modern: await connectClient(gateway.url, gateway.token, 'modern'),
  };
  await gateway.admin.createOrg({ slug: 'rival', name: 'Rival Labs' });
  await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
  const eve = await gateway.admin.createToken({ orgSlug: 'rival', email: 'eve@rival.test' });
  const rival = await connectClient(gateway.url, eve.token, 'modern');
  const acme = toolsOf(clients.modern);

  const plan = async (name: string, t = acme) =>
    (
      await t.ok('create_research_plan', {
        name,
        researchQuestion: `What does ${name} find?`,
        steps: [
          { stepType: 'search', instructions: 'Find the sources.' },
          { stepType: 'synthesize', instructions: 'Write it up.' },
        ],
      })
    ).data.planId as string;
  const older = await plan('Older plan');
  const planId = await plan('Lithium prices');
  const { step } = (await acme.ok('get_next_step', { planId })).data;
  await acme.ok('submit_step_result', {
    planId,
    stepId: step.stepId,
    result: { summary: 'Lithium fell 20% in 2024.' },
    confidence: 0.8,
  });
  const artifactId = (
    await acme.ok('store_research', {
      planId,
      artifactType: 'finding',
      title: 'Lithium fell',
      content: { text: 'Lithium fell 20%.' },
      contentText: 'Lithium carbonate fell 20% over 2024.',
      tags: ['lithium'],
    })
  ).data.id as string;
  const markdown = '# Lithium\n\nPrices fell 20% — über alles.\n';
  const markdownId = (
    await acme.ok('store_research_output', { planId, mediaType: 'markdown', title: 'Lithium brief', content: markdown })
  ).data.outputId as string;
  const wordBytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31 + 7) % 256));
  const wordId = (
    await acme.ok('store_research_output', {
      planId,
      mediaType: 'word',
      title: 'Lithium report',
      content: wordBytes.toString('base64'),
    })
  ).data.outputId as string;
  const asked = (
    await acme.ok('extract_data', {
      sourceText: 'Lithium carbonate fell 20% in 2024.',
      extractionSchema: { type: 'object', properties: { metal: { type: 'string' } }, required: ['metal'] },
    })
  ).data;
  const extractionId = (
    await acme.ok('submit_extraction', {
      handle: asked.handle,
      data: { metal: 'Lithium' },
      extractionSchema: asked.extractionSchema,
      sourceText: asked.sourceText,
    })
  ).data.extractionId as string;
  const rivalPlan = await plan('Rival plan', toolsOf(rival));

  return {
    gateway,
    clients,
    rival,
    ids: { older, planId, artifactId, markdownId, wordId, extractionId, rivalPlan },
    markdown,
    wordBytes,
    async close() {
      for (const client of [...Object.values(clients), rival]) await client.close();
      await gateway.close();
    },
  };
}
