import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { QuarryError, status } from '@quarry/grpc';
import { expectInertPage } from './web-inert.js';
import { startLibraryFixture } from './web-library-fixture.js';

// The web app's entity page (/app/entities/{id}) on the gateway alone over a stub artifact
// store, with inject(): an entity's names, attributes, neighbours and relations with their
// evidence, read with get_entity_graph as the signed-in person; hostile stored names and quotes
// inert; another org's entity the same 404 as a missing or malformed one.

let fixture: Awaited<ReturnType<typeof startLibraryFixture>>;
const ids = { ours: randomUUID(), neighbour: randomUUID(), theirs: randomUUID(), relation: randomUUID() };

beforeAll(async () => {
  fixture = await startLibraryFixture();
  const artifact = fixture.ids.artifact;
  fixture.gateway.stub.reply('get_entity_graph', (request, { principal }) => {
    const owner = request.entityId === ids.theirs ? fixture.ids.rival : fixture.ids.acme;
    if ((request.entityId !== ids.ours && request.entityId !== ids.theirs) || principal.orgId !== owner)
      throw new QuarryError('ENTITY_NOT_FOUND', status.NOT_FOUND, `No entity ${String(request.entityId)}.`);
    return {
      startIds: [request.entityId],
      entities: [
        {
          id: request.entityId,
          name: '<script>alert("name")</script> Albemarle',
          type: 'company',
          aliases: ['ALB <img src=x onerror=alert(1)>'],
          attributes: { hq: '<b>Charlotte</b>' },
          distance: 0,
        },
        {
          id: ids.neighbour,
          name: 'Lithium',
          type: 'chemical_element',
          aliases: [] as string[],
          attributes: {} as Record<string, string>,
          distance: 1,
        },
      ],
      relations: [
        {
          id: ids.relation,
          fromId: request.entityId,
          toId: ids.neighbour,
          type: 'produces',
          evidence: [{ artifactId: artifact, page: 3, quote: '<a href="javascript:alert(2)">mines</a> lithium' }],
          evidenceCount: 12,
        },
      ],
      ...(request.cursor ? {} : { nextCursor: 'c1' }),
    };
  });
}, 120_000);
afterAll(async () => {
  await fixture?.gateway.close();
});

describe('the entity page', () => {
  it("shows an entity's names, attributes, neighbours and evidenced relations, escaped, paged by get_entity_graph", async () => {
    const { get, callsOf, signIn } = fixture;
    const { cookie } = await signIn('ada@acme.test');
    const page = await get(`/app/entities/${ids.ours}`, cookie);
    expect(page.statusCode).toBe(200);
    expect(callsOf('get_entity_graph').at(-1)?.request).toEqual({ entityId: ids.ours });
    for (const shown of [
      '&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; Albemarle',
      'also ALB &lt;img src=x onerror=alert(1)&gt;',
      '<dt>hq</dt><dd>&lt;b&gt;Charlotte&lt;/b&gt;</dd>',
      `<a href="/app/entities/${ids.neighbour}">Lithium</a> (chemical element)`,
      '— produces →',
      `<a href="/app/artifacts/${fixture.ids.artifact}">artifact</a> (page 3)`,
      '<q>&lt;a href=&quot;javascript:alert(2)&quot;&gt;mines&lt;/a&gt; lithium</q>',
      '12 evidence items in all.',
      `href="/app/entities/${ids.ours}?cursor=c1"`,
    ])
      expect(page.body).toContain(shown);
    expectInertPage(page.body);
    const more = await get(`/app/entities/${ids.ours}?cursor=c1`, cookie);
    expect(more.statusCode).toBe(200);
    expect(callsOf('get_entity_graph').at(-1)?.request).toMatchObject({ entityId: ids.ours, cursor: 'c1' });
    expect(more.body).not.toContain('rel="next"');
  });

  it("answers another org's entity exactly like a missing or malformed one: the same 404 page", async () => {
    const { get, signIn } = fixture;
    const { cookie } = await signIn('ada@acme.test');
    const theirs = await get(`/app/entities/${ids.theirs}`, cookie);
    const missing = await get(`/app/entities/${randomUUID()}`, cookie);
    const malformed = await get('/app/entities/not-an-id', cookie);
    for (const answer of [theirs, missing, malformed]) expect(answer.statusCode).toBe(404);
    const body = (html: string) => html.replace(/name="csrf" value="[^"]+"/g, '');
    expect(body(theirs.body)).toBe(body(missing.body));
    expect(body(theirs.body)).toBe(body(malformed.body));
    expect(theirs.body).not.toContain('Albemarle');
    // Eve, of the org that holds it, sees it.
    expect((await get(`/app/entities/${ids.theirs}`, (await signIn('eve@rival.test')).cookie)).statusCode).toBe(200);
  });
});
