import { randomBytes } from 'node:crypto';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import type { Kysely } from 'kysely';
import { freePort } from './free-port.js';
import { startGatewayOnly } from './gateway-only.js';
import { answerLibraryReads } from './library-replies.js';
import { researchRecords } from './research-records.js';
import { answerResearchTools } from './research-replies.js';
import { answerWebLibraryTools } from './web-library-replies.js';

// The gateway alone over stub services holding a small library for the web app's tests: two
// orgs (acme with Ada, rival with Eve), a plan of acme with a finished step, a step awaiting
// review and a pending one, a hostile artifact and deliverables (a Word document, a long
// markdown text, a hostile one), and rival items of each kind.

const PASSWORD = 'correct horse battery staple';

/** Stored research that tries to run: markup, script links, an onerror image, a hostile file name. */
const HOSTILE = {
  title: '<script>alert("title")</script> Lithium <img src=x onerror=alert(1)>',
  text: [
    '# Findings <script>alert(1)</script>',
    '',
    'Carbonate fell 20%. <img src=x onerror=alert(2)> <iframe src="https://evil.example"></iframe>',
    '',
    '[click me](javascript:alert(3)) [data](data:text/html,<script>alert(4)</script>) <javascript:alert(5)>',
    '',
    '![pixel](https://evil.example/track.png) [fine](https://example.org/source)',
  ].join('\n'),
  fileName: '../../"evil"\r\nX-Injected: 1 <script>.docx',
};

export async function startLibraryFixture() {
  const docx = randomBytes(70_000);
  const long = Array.from({ length: 30_000 }, (_, i) => `Line ${i}: lithium ünïcode ✓ data`).join('\n');
  const records = researchRecords();
  const port = await freePort();
  const gateway = await startGatewayOnly({ PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` });
  const db = gateway.database.admin as Kysely<IdentityDatabase>;
  const rival = (await gateway.admin.createOrg({ slug: 'rival', name: 'Rival' })).id;
  await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
  for (const email of ['ada@acme.test', 'eve@rival.test']) await createOAuthAdmin(db).setPassword(email, PASSWORD);
  const acme = (
    await db.selectFrom('identity.organizations').select('id').where('slug', '=', 'acme').executeTakeFirstOrThrow()
  ).id;
  const plan = records.addPlan(acme, {
    name: 'Lithium <b>supply</b>',
    steps: [
      ['search', 'Find the sources.'],
      ['checkpoint', 'Check the sources with the user.'],
      ['synthesize', 'Write the brief.'],
    ],
  });
  records.completeStep(plan, 1, { sources: 12, note: '<script>alert("result")</script>' }, 0.8);
  const output = (orgId: string, mediaType: string, title: string, content: string) =>
    records.addOutput(orgId, { planId: plan.planId, mediaType, title, content }).outputId;
  const ids = {
    acme,
    rival,
    plan: plan.planId,
    rivalPlan: records.addPlan(rival, { name: 'Rival plan' }).planId,
    artifact: records.addArtifact(acme, {
      artifactType: 'finding',
      title: HOSTILE.title,
      content: { note: '<script>alert("content")</script>' },
      contentText: HOSTILE.text,
      planId: plan.planId,
      tags: ['lithium'],
    }).id,
    rivalArtifact: records.addArtifact(rival, { artifactType: 'finding', title: 'Rival secret', content: {} }).id,
    docx: output(acme, 'word', HOSTILE.fileName, docx.toString('base64')),
    long: output(acme, 'markdown', 'Long brief', long),
    hostileOutput: output(acme, 'markdown', HOSTILE.title, HOSTILE.text),
    rivalOutput: output(rival, 'markdown', 'Rival brief', 'Not for acme.'),
    extraction: records.addExtraction(rival, { data: { x: 1 }, extractionSchema: {}, sourceText: 'x' }).id,
  };
  answerResearchTools(gateway.stub, records);
  answerLibraryReads(gateway.stub, records);
  const library = answerWebLibraryTools(gateway.stub, records);
  library.requestReview(plan, 2, 'Twelve sources found; two are <script>paywalled</script>.', [
    'Keep the paywalled ones?',
  ]);

  const get = (url: string, cookie: string) => gateway.app.inject({ method: 'GET', url, headers: { cookie } });
  const post = (url: string, cookie: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
    gateway.app.inject({
      method: 'POST',
      url,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(form).toString(),
    });
  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  return {
    gateway,
    records,
    library,
    ids,
    bytes: { docx, long },
    password: PASSWORD,
    get,
    post,
    /** The stub rpcs made for `tool`, in order. */
    callsOf: (tool: string) => gateway.stub.calls.filter((call) => call.tool === tool),
    /** Signs in on the app's page: the session cookie and the form token of its pages. */
    async signIn(email: string): Promise<{ cookie: string; csrf: string }> {
      const form = await gateway.app.inject({ method: 'GET', url: '/app/sign-in' });
      const nonce = String(form.headers['set-cookie']).split(';')[0]!;
      const answer = await post('/app/sign-in', nonce, { csrf: csrfOf(form.body), email, password: PASSWORD });
      const cookie = String([answer.headers['set-cookie']].flat()[0]).split(';')[0]!;
      return { cookie, csrf: csrfOf((await get('/app/plans', cookie)).body) };
    },
  };
}
