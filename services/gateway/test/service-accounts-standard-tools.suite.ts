import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { loadFileDescriptorSetFromBuffer, loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServiceAccountAdmin, type IdentityDatabase } from '@quarry/gateway';
import type { Kysely } from 'kysely';
import type { TestSystem } from './shared-system.js';
import { bearer, refusal, serviceToken } from './service-account-support.js';

// A team's pipeline with nothing of Quarry's but proto/ and a service account, on the standard
// Node tooling: @grpc/proto-loader reads the .proto files (protobufjs's parser), a plain grpc-js
// client calls the running services with the account's token. And what grpcurl does: server
// reflection lists each service and serves its file with every import, and buf curl (which, like
// grpcurl, links what it is served and fails on a missing import) calls through it.

const requireHere = createRequire(import.meta.url);
const protoDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../proto');
const protoFiles = (readdirSync(protoDir, { recursive: true, encoding: 'utf8' }) as string[]).filter((p) =>
  p.endsWith('.proto'),
);
/** What a grpc-js program typically passes: proto field names, enums and 64-bit integers as strings. */
const loaderOptions = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
// The reflection protocol's own .proto, as @grpc/reflection ships it.
const reflectionProtoDir = join(dirname(requireHere.resolve('@grpc/reflection')), '../proto');
const REFLECTION = 'grpc.reflection.v1.ServerReflection';

type Reply = Record<string, unknown>;
type UnaryMethod = (
  request: object,
  metadata: grpc.Metadata,
  callback: (error: grpc.ServiceError | null, reply: Reply) => void,
) => void;

/** A client of `service` (e.g. quarry.plan.v1.PlanService) from proto-loader's definitions, as grpc-js documents it. */
function clientOf(definition: PackageDefinition, service: string, address: string): grpc.Client {
  const loaded = grpc.loadPackageDefinition(definition);
  const Client = service.split('.').reduce<unknown>((ns, part) => (ns as Record<string, unknown>)[part], loaded);
  return new (Client as grpc.ServiceClientConstructor)(address, grpc.credentials.createInsecure());
}

function call(client: grpc.Client, method: string, request: object, metadata = new grpc.Metadata()): Promise<Reply> {
  const unary = (client as unknown as Record<string, UnaryMethod>)[method]!.bind(client);
  return new Promise((done, fail) => unary(request, metadata, (error, reply) => (error ? fail(error) : done(reply))));
}

/** One request on the reflection stream and its answer (proto field names, as loaded with keepCase). */
function reflect(client: grpc.Client, request: object): Promise<Reply> {
  return new Promise((done, fail) => {
    const stream = (
      client as unknown as { ServerReflectionInfo(): grpc.ClientDuplexStream<object, Reply> }
    ).ServerReflectionInfo();
    stream.once('data', (reply: Reply) => {
      stream.end();
      done(reply);
    });
    stream.on('error', fail);
    stream.write(request);
  });
}

/** As grpcurl resolves a service: its file, then every import by file name until none is missing. */
async function resolveFiles(client: grpc.Client, symbol: string): Promise<Map<string, FileDescriptorProto>> {
  const files = new Map<string, FileDescriptorProto>();
  const pending: object[] = [{ file_containing_symbol: symbol }];
  const asked = new Set<string>();
  for (let request = pending.shift(); request; request = pending.shift()) {
    const reply = await reflect(client, request);
    const served = reply.file_descriptor_response as { file_descriptor_proto: Buffer[] } | undefined;
    if (!served) throw new Error(`reflection: ${JSON.stringify(reply.error_response)} for ${JSON.stringify(request)}`);
    for (const bytes of served.file_descriptor_proto) {
      const file = fromBinary(FileDescriptorProtoSchema, bytes);
      if (!files.has(file.name)) files.set(file.name, file);
    }
    for (const name of [...files.values()].flatMap((file) => file.dependency)) {
      if (files.has(name) || asked.has(name)) continue;
      asked.add(name);
      pending.push({ file_by_filename: name });
    }
  }
  return files;
}

const buf = (args: string[]) =>
  promisify(execFile)(process.execPath, [requireHere.resolve('@bufbuild/buf/bin/buf'), 'curl', ...args], {
    timeout: 30_000,
  });

export function serviceAccountStandardToolsSuite(system: () => TestSystem): void {
  describe('a service account with standard gRPC tooling', () => {
    let gateway: TestSystem;
    let token: string;
    let definition: PackageDefinition;
    const clients: grpc.Client[] = [];
    /** A client of `service` at `address`, by default the address of the service itself. */
    const connect = (defs: PackageDefinition, service: string, address = gateway.services.addresses[service]!) => {
      const client = clientOf(defs, service, address);
      clients.push(client);
      return client;
    };
    const newPlan = (plans: grpc.Client, name: string, metadata = bearer(token)) =>
      call(
        plans,
        'CreateResearchPlan',
        {
          name,
          research_question: 'Which sources matter?',
          steps: [{ step_type: 'STEP_TYPE_SEARCH', instructions: 'Look for sources' }],
        },
        metadata,
      );

    beforeAll(async () => {
      gateway = system();
      const accounts = createServiceAccountAdmin(gateway.database.admin as Kysely<IdentityDatabase>);
      const account = await accounts.create({ orgSlug: 'acme', name: 'pipeline', scopes: 'quarry:read quarry:write' });
      token = await serviceToken(gateway.base, account, 'quarry:read quarry:write');
      definition = loadSync(protoFiles, { ...loaderOptions, includeDirs: [protoDir] });
    });
    afterAll(() => {
      for (const client of clients) client.close();
    });

    describe('@grpc/proto-loader and a plain grpc-js client', () => {
      it('creates a plan, reads its status, stores a finding and finds it', async () => {
        const plans = connect(definition, 'quarry.plan.v1.PlanService');
        const created = await newPlan(plans, 'Pipeline plan');
        const planId = created.plan_id as string;
        expect(created).toMatchObject({ name: 'Pipeline plan', step_count: 1 });
        expect(await call(plans, 'GetPlanStatus', { plan_id: planId }, bearer(token))).toMatchObject({
          plan_id: planId,
          status: 'PLAN_STATUS_PLANNING',
        });

        const artifacts = connect(definition, 'quarry.artifact.v1.ArtifactService');
        const stored = await call(
          artifacts,
          'StoreResearch',
          {
            artifact_type: 'ARTIFACT_TYPE_FINDING',
            title: 'Glacier retreat in the Alps',
            content: { fields: { claim: { string_value: 'retreat' } } }, // google.protobuf.Struct as protobufjs writes it
            content_text: 'Alpine glaciers lost a tenth of their volume in two summers.',
            plan_id: planId,
          },
          bearer(token),
        );
        expect(stored).toMatchObject({ stored: true, title: 'Glacier retreat in the Alps' });

        // Indexing is asynchronous: poll for up to 10 s.
        const search = connect(definition, 'quarry.search.v1.SearchService');
        const request = { query: 'alpine glaciers volume', plan_id: planId };
        let found = await call(search, 'SearchSources', request, bearer(token));
        for (const deadline = Date.now() + 10_000; found.result_count === 0 && Date.now() < deadline;) {
          await new Promise((r) => setTimeout(r, 100));
          found = await call(search, 'SearchSources', request, bearer(token));
        }
        expect((found.results as Reply[]).map((r) => [r.source_id, r.title, r.plan_id])).toEqual([
          [stored.id, 'Glacier retreat in the Alps', planId],
        ]);
      });

      it('is refused UNAUTHENTICATED without a token and with a tampered one', async () => {
        const plans = connect(definition, 'quarry.plan.v1.PlanService');
        expect(await refusal(newPlan(plans, 'No token', new grpc.Metadata()))).toMatchObject({
          status: 'UNAUTHENTICATED',
          code: 'IDENTITY_MISSING',
        });
        // Another org in the claims, the signature left as it was.
        const [header, payload, signature] = token.split('.') as [string, string, string];
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
        const otherOrg = Buffer.from(JSON.stringify({ ...claims, quarry_org: randomUUID() })).toString('base64url');
        const tampered = `${header}.${otherOrg}.${signature}`;
        expect(await refusal(newPlan(plans, 'Tampered', bearer(tampered)))).toMatchObject({
          status: 'UNAUTHENTICATED',
          code: 'SERVICE_TOKEN_REFUSED',
        });
      });
    });

    describe('server reflection', () => {
      const reflectionDefinition = loadSync('grpc/reflection/v1/reflection.proto', {
        ...loaderOptions,
        includeDirs: [reflectionProtoDir],
      });
      const services = [
        ['quarry.plan.v1.PlanService', 'quarry/plan/v1/plan.proto'],
        ['quarry.artifact.v1.ArtifactService', 'quarry/artifact/v1/artifact.proto'],
        ['quarry.search.v1.SearchService', 'quarry/search/v1/search.proto'],
        ['quarry.extraction.v1.ExtractionService', 'quarry/extraction/v1/extraction.proto'],
      ] as const;

      it('covers every gRPC service the system runs', () => {
        expect(Object.keys(gateway.services.addresses).sort()).toEqual(services.map(([service]) => service).sort());
      });

      it.each(services)('%s: lists its service and serves %s with every import', async (service, file) => {
        const reflection = connect(reflectionDefinition, REFLECTION, gateway.services.addresses[service]);
        const listed = await reflect(reflection, { list_services: '*' });
        expect(listed.list_services_response).toEqual({ service: [{ name: service }] });
        // resolveFiles fails on an import the server cannot serve.
        const files = await resolveFiles(reflection, service);
        expect([...files.keys()]).toEqual(
          expect.arrayContaining([file, 'quarry/mcp/v1/options.proto', 'google/protobuf/descriptor.proto']),
        );
      });

      it('serves descriptors enough to call with: a client built from them reads a plan', async () => {
        const planId = (await newPlan(connect(definition, 'quarry.plan.v1.PlanService'), 'Reflected')).plan_id;
        const plansAddress = gateway.services.addresses['quarry.plan.v1.PlanService'];
        const reflection = connect(reflectionDefinition, REFLECTION, plansAddress);
        const files = await resolveFiles(reflection, 'quarry.plan.v1.PlanService');
        const set = toBinary(FileDescriptorSetSchema, create(FileDescriptorSetSchema, { file: [...files.values()] }));
        const reflected = loadFileDescriptorSetFromBuffer(Buffer.from(set), loaderOptions);
        const plans = connect(reflected, 'quarry.plan.v1.PlanService');
        expect(await call(plans, 'GetPlanStatus', { plan_id: planId }, bearer(token))).toMatchObject({
          plan_id: planId,
          name: 'Reflected',
        });
      });

      it('lets buf curl list the methods and call one, as grpcurl does', async () => {
        const address = `http://${gateway.services.addresses['quarry.plan.v1.PlanService']}`;
        const h2c = ['--protocol', 'grpc', '--http2-prior-knowledge'];
        const { stdout: methods } = await buf([...h2c, '--list-methods', address]);
        expect(methods.split('\n')).toEqual(
          expect.arrayContaining([
            'quarry.plan.v1.PlanService/GetPlanStatus',
            'quarry.plan.v1.PlanService/RequestUserReview',
          ]),
        );
        const planId = (await newPlan(connect(definition, 'quarry.plan.v1.PlanService'), 'Curled')).plan_id;
        const { stdout } = await buf([
          ...h2c,
          '-H',
          `authorization: Bearer ${token}`,
          '-d',
          JSON.stringify({ planId }),
          `${address}/quarry.plan.v1.PlanService/GetPlanStatus`,
        ]);
        expect(JSON.parse(stdout)).toMatchObject({ planId, name: 'Curled', status: 'PLAN_STATUS_PLANNING' });
      });
    });
  });
}
