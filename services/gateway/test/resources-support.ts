import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import type { Era } from './official-client.js';
import { connectInjected } from './inject-client.js';
import { answerResearchTools } from './research-replies.js';
import { researchRecords } from './research-records.js';
import { ADA, ADA_TOKEN, buildStubServer, member, stubAuthenticator, stubTools } from './stub-deps.js';

// The world the resources tests read, held by stub services behind a gateway built in-process:
// one org with two plans (one with a step done), an artifact, a markdown and a Word deliverable
// and an extraction; a rival org with a plan of its own; clients of both eras over inject().

export const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
export const WORD = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const EVE_TOKEN = `qry_${'e'.repeat(43)}`;
const TWO_STEPS: Array<[string, string]> = [
  ['search', 'Find the sources.'],
  ['synthesize', 'Write it up.'],
];

export async function startResourcesWorld() {
  const records = researchRecords();
  const tools = stubTools();
  answerResearchTools(tools.stub, records);
  const eve = member('eve', 'rival');
  const { app } = await buildStubServer({
    tools,
    authenticator: stubAuthenticator({ [ADA_TOKEN]: ADA, [EVE_TOKEN]: eve }),
  });
  const clients: Record<Era, Client> = {
    legacy: await connectInjected(app, ADA_TOKEN, 'legacy'),
    modern: await connectInjected(app, ADA_TOKEN, 'modern'),
  };
  const rival = await connectInjected(app, EVE_TOKEN, 'modern');

  const acme = ADA.orgId;
  const older = records.addPlan(acme, { name: 'Older plan', steps: TWO_STEPS });
  const plan = records.addPlan(acme, { name: 'Lithium prices', steps: TWO_STEPS });
  records.completeStep(plan, 1, { summary: 'Lithium fell 20% in 2024.' }, 0.8);
  const { planId } = plan;
  const artifact = records.addArtifact(acme, {
    planId,
    artifactType: 'finding',
    title: 'Lithium fell',
    content: { text: 'Lithium fell 20%.' },
    contentText: 'Lithium carbonate fell 20% over 2024.',
    tags: ['lithium'],
  });
  const markdown = '# Lithium\n\nPrices fell 20% — über alles.\n';
  const brief = records.addOutput(acme, { planId, mediaType: 'markdown', title: 'Lithium brief', content: markdown });
  const wordBytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31 + 7) % 256));
  const report = records.addOutput(acme, {
    planId,
    mediaType: 'word',
    title: 'Lithium report',
    content: wordBytes.toString('base64'),
  });
  const extraction = records.addExtraction(acme, {
    data: { metal: 'Lithium' },
    extractionSchema: { type: 'object', properties: { metal: { type: 'string' } }, required: ['metal'] },
    sourceText: 'Lithium carbonate fell 20% in 2024.',
  });
  const rivalPlan = records.addPlan(eve.orgId, { name: 'Rival plan', steps: TWO_STEPS });

  return {
    clients,
    rival,
    ids: {
      older: older.planId,
      planId,
      artifactId: artifact.id,
      markdownId: brief.outputId,
      wordId: report.outputId,
      extractionId: extraction.id,
      rivalPlan: rivalPlan.planId,
    },
    markdown,
    wordBytes,
    async close() {
      for (const client of [...Object.values(clients), rival]) await client.close();
      await app.close();
    },
  };
}
