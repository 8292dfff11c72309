import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { create, createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { descriptorSet as quarryDescriptorSet } from '@quarry/contracts';
import { service as healthService } from 'grpc-health-check';
import { createGrpcClient, QuarryError, status } from '../src/index.js';
import {
  alice,
  ECHO_SERVICE,
  echoDescriptorSet,
  EchoServiceClient,
  gatewaySigner,
  startEcho,
  type EchoFixture,
} from './fixtures/echo.js';
import { bufBuild, messageMethod, registryOf } from './fixtures/protos.js';

const HealthClient = grpc.makeGenericClientConstructor(healthService, 'grpc.health.v1.Health');

// Reflection clients built from the protos that ship inside @grpc/reflection.
const reflectionProtos = join(dirname(createRequire(import.meta.url).resolve('@grpc/reflection')), '../proto');
const reflectionRegistry = registryOf(bufBuild(reflectionProtos, 'grpc/reflection'));
function reflectionClientCtor(version: 'v1' | 'v1alpha') {
  const service = reflectionRegistry.getService(`grpc.reflection.${version}.ServerReflection`)!;
  const info = service.methods.find((m) => m.name === 'ServerReflectionInfo')!;
  return grpc.makeGenericClientConstructor({ ServerReflectionInfo: messageMethod(info) }, service.typeName);
}

/** A ServerReflectionResponse as protobuf-es reads it: the answer is the oneof `messageResponse`. */
interface ReflectionResponse {
  messageResponse: { case?: string; value?: unknown };
}

interface Answers {
  listServicesResponse: { service: { name: string }[] };
  fileDescriptorResponse: { fileDescriptorProto: Uint8Array[] };
  errorResponse: { errorCode: number; errorMessage: string };
}

/** One request on the ServerReflectionInfo stream, its first answer, and the stream closed. */
function reflect(client: grpc.Client, request: object): Promise<ReflectionResponse> {
  return new Promise((resolve, reject) => {
    const stream = (
      client as unknown as { ServerReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionResponse> }
    ).ServerReflectionInfo();
    stream.once('data', (response: ReflectionResponse) => {
      stream.end();
      resolve(response);
    });
    stream.on('error', reject);
    stream.write({ messageRequest: request });
  });
}

function answer<C extends keyof Answers>(response: ReflectionResponse, which: C): Answers[C] | undefined {
  return response.messageResponse.case === which ? (response.messageResponse.value as Answers[C]) : undefined;
}

function check(client: grpc.Client, service: string): Promise<{ status: string }> {
  return new Promise((resolve, reject) =>
    (client as unknown as { Check: (r: object, cb: grpc.requestCallback<{ status: string }>) => void }).Check(
      { service },
      (error, response) => (error ? reject(error) : resolve(response!)),
    ),
  );
}

describe('health', () => {
  let echo: EchoFixture;
  let health: grpc.Client;

  beforeAll(async () => {
    echo = await startEcho();
    health = new HealthClient(echo.address, grpc.credentials.createInsecure());
  });

  afterAll(async () => {
    health.close();
    await echo.close();
  });

  it('answers SERVING for the server and for each service, without any identity', async () => {
    await expect(check(health, '')).resolves.toEqual({ status: 'SERVING' });
    await expect(check(health, ECHO_SERVICE)).resolves.toEqual({ status: 'SERVING' });
    expect(echo.grpc.serviceNames).toEqual([ECHO_SERVICE]);
  });

  it('answers NOT_FOUND for a service it does not serve', async () => {
    await expect(check(health, 'quarry.nope.v1.Nope')).rejects.toMatchObject({ code: status.NOT_FOUND });
  });

  it('reports a service switched to NOT_SERVING by its owner', async () => {
    echo.grpc.health.setStatus(ECHO_SERVICE, 'NOT_SERVING');
    await expect(check(health, ECHO_SERVICE)).resolves.toEqual({ status: 'NOT_SERVING' });
    echo.grpc.health.setStatus(ECHO_SERVICE, 'SERVING');
  });

  it('turns NOT_SERVING as soon as shutdown begins, then drains and stops', async () => {
    const watch = (health as unknown as { Watch(r: object): grpc.ClientReadableStream<{ status: string }> }).Watch({
      service: ECHO_SERVICE,
    });
    const seen: string[] = [];
    const notServing = new Promise<void>((resolve) =>
      watch.on('data', ({ status: s }: { status: string }) => {
        seen.push(s);
        if (s === 'NOT_SERVING') resolve();
      }),
    );
    watch.on('error', () => {}); // cancelled below
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));

    const started = Date.now();
    const stopped = echo.grpc.shutdown(5_000);
    await notServing;
    expect(seen).toEqual(['SERVING', 'NOT_SERVING']);
    watch.cancel(); // the last in-flight call ends, so the graceful shutdown completes
    await stopped;
    expect(Date.now() - started).toBeLessThan(4_000);
    await expect(check(health, '')).rejects.toMatchObject({ code: status.UNAVAILABLE });
  });
});

describe('shutdown', () => {
  it('forces in-flight calls closed once the grace period is over', async () => {
    const echo = await startEcho();
    const client = createGrpcClient(EchoServiceClient, echo.address, { signer: gatewaySigner() });
    const slow = client.call('slow', { delayMs: 20_000 }, { identity: alice, deadlineMs: 30_000 });
    const outcome = slow.then(
      () => 'resolved',
      (e: unknown) => e,
    );
    while (echo.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    await echo.grpc.shutdown(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await outcome).toBeInstanceOf(QuarryError);
    client.close();
  });
});

describe('reflection', () => {
  let echo: EchoFixture;
  const clients: grpc.Client[] = [];

  beforeAll(async () => {
    echo = await startEcho({ descriptorSet: echoDescriptorSet() });
  });

  afterAll(async () => {
    for (const client of clients) client.close();
    await echo.close();
  });

  function connect(version: 'v1' | 'v1alpha', address = echo.address): grpc.Client {
    const client = new (reflectionClientCtor(version))(address, grpc.credentials.createInsecure());
    clients.push(client);
    return client;
  }

  it.each(['v1', 'v1alpha'] as const)('%s lists the registered services, without any identity', async (version) => {
    const response = await reflect(connect(version), { case: 'listServices', value: '*' });
    expect(answer(response, 'listServicesResponse')?.service.map((s) => s.name)).toEqual([ECHO_SERVICE]);
  });

  it.each(['v1', 'v1alpha'] as const)('%s returns the file that declares a symbol', async (version) => {
    for (const symbol of [ECHO_SERVICE, 'quarry.test.v1.EchoRequest', `${ECHO_SERVICE}.Echo`]) {
      const response = await reflect(connect(version), { case: 'fileContainingSymbol', value: symbol });
      const files = answer(response, 'fileDescriptorResponse')?.fileDescriptorProto ?? [];
      expect(files.length).toBeGreaterThan(0);
      // The returned descriptors are complete enough to build a client from.
      const rebuilt = createFileRegistry(
        create(FileDescriptorSetSchema, { file: files.map((file) => fromBinary(FileDescriptorProtoSchema, file)) }),
      );
      expect(rebuilt.getMessage('quarry.test.v1.EchoResponse')).toBeDefined();
      expect(rebuilt.getService(ECHO_SERVICE)?.methods.map((m) => m.name)).toEqual(['Echo', 'Fail', 'Slow']);
    }
  });

  /**
   * What grpcurl and buf curl do before a call: the file declaring the symbol, then every file it
   * imports, fetched by name until nothing is missing (they fail where one cannot be found).
   */
  async function resolveLikeGrpcurl(client: grpc.Client, symbol: string): Promise<Map<string, FileDescriptorProto>> {
    const files = new Map<string, FileDescriptorProto>();
    const pending: { case: string; value: string }[] = [{ case: 'fileContainingSymbol', value: symbol }];
    for (let request = pending.shift(); request; request = pending.shift()) {
      const served = answer(await reflect(client, request), 'fileDescriptorResponse');
      if (!served) throw new Error(`reflection cannot resolve ${request.value}`);
      for (const bytes of served.fileDescriptorProto) {
        const file = fromBinary(FileDescriptorProtoSchema, bytes);
        if (!files.has(file.name)) files.set(file.name, file);
      }
      for (const name of [...files.values()].flatMap((file) => file.dependency)) {
        if (!files.has(name) && !pending.some((p) => p.value === name))
          pending.push({ case: 'fileByFilename', value: name });
      }
    }
    return files;
  }

  /** The files with every import before the files that import it, as a FileDescriptorSet lists them. */
  function importsFirst(files: Map<string, FileDescriptorProto>): FileDescriptorProto[] {
    const ordered: FileDescriptorProto[] = [];
    const visit = (name: string) => {
      const file = files.get(name);
      if (!file || ordered.includes(file)) return;
      file.dependency.forEach(visit);
      ordered.push(file);
    };
    [...files.keys()].forEach(visit);
    return ordered;
  }

  it.each(['v1', 'v1alpha'] as const)(
    '%s serves the files as built, so the tree of each one links as grpcurl reads it',
    async (version) => {
      // Two FileDescriptorSets concatenated are one set holding the files of both (a repeated field).
      const withImports = await startEcho({
        descriptorSet: new Uint8Array(Buffer.concat([echoDescriptorSet(), quarryDescriptorSet])),
      });
      try {
        const files = await resolveLikeGrpcurl(connect(version, withImports.address), 'quarry.plan.v1.PlanService');
        const plan = files.get('quarry/plan/v1/plan.proto')!;
        expect(plan.dependency).toEqual([
          'google/protobuf/struct.proto',
          'google/protobuf/timestamp.proto',
          'quarry/mcp/v1/elicitation.proto',
          'quarry/mcp/v1/options.proto',
        ]);
        expect([...files.keys()]).toEqual(
          expect.arrayContaining(['quarry/mcp/v1/options.proto', 'google/protobuf/descriptor.proto']),
        );
        // Linked strictly: every type a file names must come from the file or one of its imports.
        const linked = createFileRegistry(create(FileDescriptorSetSchema, { file: importsFirst(files) }));
        expect(linked.getService('quarry.plan.v1.PlanService')?.methods.map((m) => m.name)).toContain(
          'RequestUserReview',
        );
        const result = linked
          .getMessage('quarry.plan.v1.SubmitStepResultRequest')
          ?.fields.find((f) => f.name === 'result');
        expect(result).toMatchObject({ fieldKind: 'message', message: { typeName: 'google.protobuf.Struct' } });
      } finally {
        await withImports.close();
      }
    },
  );

  it('answers NOT_FOUND for an unknown symbol', async () => {
    const response = await reflect(connect('v1'), { case: 'fileContainingSymbol', value: 'quarry.nope.v1.Nope' });
    expect(answer(response, 'errorResponse')?.errorCode).toBe(status.NOT_FOUND);
  });

  it('is not served when no descriptor set is given', async () => {
    const bare = await startEcho();
    try {
      await expect(reflect(connect('v1', bare.address), { case: 'listServices', value: '*' })).rejects.toMatchObject({
        code: status.UNIMPLEMENTED,
      });
    } finally {
      await bare.close();
    }
  });
});
