import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectInertPage } from './web-inert.js';
import { startLibraryFixture } from './web-library-fixture.js';

// The library's artifacts list (/app/artifacts) and what a plan's page says of an archived plan,
// on the gateway alone over stub services, with inject(): the list is list_artifacts a page at a
// time (its cursor, never the whole library), filtered, escaped, the caller's org only; the plan
// page shows get_plan_status' archived flag and offers the action that undoes the state.

let fixture: Awaited<ReturnType<typeof startLibraryFixture>>;
beforeAll(async () => {
  fixture = await startLibraryFixture();
}, 120_000);
afterAll(async () => {
  await fixture?.gateway.close();
});

describe('the artifacts list', () => {
  it('lists the org’s artifacts a page of 25 at a time with list_artifacts’ cursor, filtered, escaped', async () => {
    const { ids, records, get, callsOf, signIn } = fixture;
    const acme = records.artifacts.find((a) => a.id === ids.artifact)!.orgId;
    for (let i = 0; i < 30; i++)
      records.addArtifact(acme, { artifactType: 'summary', title: `Summary ${i}`, content: {}, tags: ['bulk'] });
    const { cookie } = await signIn('ada@acme.test');

    const first = await get('/app/artifacts', cookie);
    expect(first.statusCode).toBe(200);
    expect(callsOf('list_artifacts').at(-1)?.request).toEqual({ limit: 25 });
    expect(first.body.match(/<tr>\n<td><a href="\/app\/artifacts\//g)).toHaveLength(25);
    expect(first.body).not.toContain(`/app/artifacts/${ids.rivalArtifact}"`);
    const next = /href="\/app\/artifacts\?cursor=([^"]+)" rel="next"/.exec(first.body)?.[1];
    expect(next).toBeDefined();
    expectInertPage(first.body);

    const second = await get(`/app/artifacts?cursor=${next}`, cookie);
    expect(second.statusCode).toBe(200);
    expect(callsOf('list_artifacts').at(-1)?.request).toEqual({ limit: 25, cursor: decodeURIComponent(next!) });
    expect(second.body).toContain(`href="/app/artifacts/${ids.artifact}"`);
    expect(second.body).not.toContain('rel="next"');
    expect(second.body).toContain('&lt;script&gt;');
    expectInertPage(second.body);

    const filtered = await get('/app/artifacts?type=finding&tag=lithium', cookie);
    expect(filtered.statusCode).toBe(200);
    expect(callsOf('list_artifacts').at(-1)?.request).toEqual({
      limit: 25,
      artifactType: 'ARTIFACT_TYPE_FINDING',
      tags: ['lithium'],
    });
    expect(filtered.body).toContain('<option value="finding" selected>');
    await get('/app/artifacts?type=poem', cookie);
    expect(callsOf('list_artifacts').at(-1)?.request).toEqual({ limit: 25 });

    const refused = await get('/app/artifacts?cursor=forged', cookie);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('role="alert"');
    expect((await get('/app/plans', cookie)).body).toContain('href="/app/artifacts"');
  });
});

describe('an archived plan', () => {
  it('says so on its page and offers unarchive, and archive once it is back', async () => {
    const { ids, get, post, signIn } = fixture;
    const { cookie, csrf } = await signIn('ada@acme.test');
    const path = `/app/plans/${ids.plan}`;
    const before = (await get(path, cookie)).body;
    expect(before).not.toContain('id="archived-status"');
    expect(before).toContain(`href="${path}/confirm/archive"`);
    expect(before).not.toContain(`action="${path}/unarchive"`);

    expect((await post(`${path}/archive`, cookie, { csrf, confirmed: '1' })).statusCode).toBe(303);
    const archived = (await get(path, cookie)).body;
    expect(archived).toContain('id="archived-status"');
    expect(archived).toContain(`action="${path}/unarchive"`);
    expect(archived).not.toContain(`href="${path}/confirm/archive"`);

    expect((await post(`${path}/unarchive`, cookie, { csrf })).statusCode).toBe(303);
    const back = (await get(path, cookie)).body;
    expect(back).not.toContain('id="archived-status"');
    expect(back).toContain(`href="${path}/confirm/archive"`);
  });
});
