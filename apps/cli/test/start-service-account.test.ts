import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { createQuarryClient, planV1 } from '@quarry/client';
import { runCli, startAll } from '@quarry/cli';
import { serviceTransportEnv } from '@quarry/testing';

// The README's "Calling the services directly", run as written against `npm start`: an operator
// creates a service account, a Node program reads the services' addresses and calls them.

const dataDir = mkdtempSync(join(tmpdir(), 'quarry-start-sa-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe('quarry start with a service account', () => {
  it('serves a @quarry/client program holding only the account id and secret', async () => {
    const env = { QUARRY_DATA_DIR: dataDir, PORT: String(await freePort()), ...serviceTransportEnv() };
    const out: string[] = [];
    const system = await startAll({ env, out: (l) => out.push(l), logLevel: 'silent' });
    try {
      const addressesFile = join(dataDir, 'grpc-services.json');
      expect(out.join('\n')).toContain(addressesFile);
      expect(statSync(addressesFile).mode & 0o777).toBe(0o600);

      const printed: string[] = [];
      const code = await runCli(
        ['service-account', 'create', 'reporter', '--org', 'default', '--scopes', 'quarry:read quarry:write'],
        { out: (l) => printed.push(l), err: (l) => printed.push(l), env },
      );
      expect(code).toBe(0);
      const clientId = /client id: +(\S+)/.exec(printed.join('\n'))![1]!;
      const clientSecret = /client secret: +(\S+)/.exec(printed.join('\n'))![1]!;

      // The README example from here on.
      const addresses = JSON.parse(readFileSync(addressesFile, 'utf8')) as Record<string, string>;
      const quarry = createQuarryClient({
        issuer: `http://127.0.0.1:${env.PORT}`,
        clientId,
        clientSecret,
        scopes: ['quarry:read', 'quarry:write'],
        addresses: { plan: addresses['quarry.plan.v1.PlanService'] },
      });
      try {
        const { planId } = await quarry.plan.createResearchPlan(
          planV1.CreateResearchPlanRequest.fromPartial({
            name: 'Nightly digest',
            researchQuestion: 'What changed in the literature this week?',
            steps: [{ stepType: planV1.StepType.STEP_TYPE_SEARCH, instructions: 'Find new papers' }],
          }),
        );
        const status = await quarry.plan.getPlanStatus({ planId });
        expect(status).toMatchObject({ planId, status: planV1.PlanStatus.PLAN_STATUS_PLANNING });
      } finally {
        quarry.close();
      }
    } finally {
      await system.close();
    }
  }, 90_000);
});
