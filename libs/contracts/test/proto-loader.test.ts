import { beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  createFileRegistry,
  fromBinary,
  fromJson,
  getOption,
  hasOption,
  toJson,
  type DescExtension,
  type DescMethod,
  type JsonValue,
  type Message,
} from '@bufbuild/protobuf';
import { nestedTypes } from '@bufbuild/protobuf/reflect';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import {
  loadSync,
  type EnumTypeDefinition,
  type MessageTypeDefinition,
  type PackageDefinition,
  type ServiceDefinition,
} from '@grpc/proto-loader';
import { descriptorSet } from '../src/index.js';
import { repoRoot } from './support/buf-fixture.js';

// proto/ as a program outside Quarry reads it: @grpc/proto-loader parses the .proto files with
// protobufjs's own parser (not buf's compiler, which `npm run proto` uses), with the options a
// grpc-js client passes and the well-known types it bundles. Every file must load on its own, and
// together they must give the services, messages, enums and MCP options buf builds, so a team's
// pipeline needs nothing of Quarry's but the protos.

const protoDir = join(repoRoot, 'proto');
const protoFiles = (readdirSync(protoDir, { recursive: true, encoding: 'utf8' }) as string[])
  .filter((path) => path.endsWith('.proto'))
  .map((path) => path.split('\\').join('/'))
  .sort();
const loaderOptions = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [protoDir],
};

const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));
const quarryFiles = [...registry.files].filter((file) => file.proto.package.startsWith('quarry.'));

const isService = (entry: PackageDefinition[string] | undefined): entry is ServiceDefinition =>
  entry !== undefined && !('format' in entry);
const asMessage = (entry: PackageDefinition[string] | undefined) =>
  entry && 'format' in entry && entry.format === 'Protocol Buffer 3 DescriptorProto'
    ? (entry as MessageTypeDefinition<object, object>)
    : undefined;
const asEnum = (entry: PackageDefinition[string] | undefined) =>
  entry && 'format' in entry && entry.format === 'Protocol Buffer 3 EnumDescriptorProto'
    ? (entry as EnumTypeDefinition)
    : undefined;

interface Descriptor {
  field?: { name: string; number: number }[];
  value?: { name: string; number: number }[];
}

describe('proto/ in @grpc/proto-loader', () => {
  it('covers every proto file that buf builds', () => {
    expect(protoFiles).toEqual(quarryFiles.map((file) => file.proto.name).sort());
  });

  it.each(protoFiles)('loads %s on its own', (file) => {
    expect(() => loadSync(file, loaderOptions)).not.toThrow();
  });

  describe('loaded together', () => {
    let loaded: PackageDefinition;
    beforeAll(() => {
      loaded = loadSync(protoFiles, loaderOptions);
    });

    it('gives every service with the methods, paths and message types buf builds', () => {
      const services = quarryFiles.flatMap((file) => file.services);
      expect(services.length).toBeGreaterThan(0);
      for (const service of services) {
        const definition = loaded[service.typeName];
        if (!isService(definition)) throw new Error(`proto-loader has no service ${service.typeName}`);
        expect(
          Object.entries(definition).map(([name, method]) => [
            name,
            method.path,
            method.requestStream,
            method.responseStream,
          ]),
        ).toEqual(service.methods.map((m) => [m.name, `/${service.typeName}/${m.name}`, false, false]));
        for (const method of service.methods) {
          expect(definition[method.name]!.requestType.type).toMatchObject({ name: method.input.name });
          expect(definition[method.name]!.responseType.type).toMatchObject({ name: method.output.name });
        }
      }
    });

    it('gives every message and enum with the fields and values buf builds', () => {
      const numbered = (items: { name: string; number: number }[] | undefined) =>
        (items ?? []).map(({ name, number }) => [name, number]);
      let compared = 0;
      for (const type of quarryFiles.flatMap((file) => [...nestedTypes(file)])) {
        // Map entries are messages to buf, fields of a map type to protobufjs.
        if (type.kind === 'message' && !type.proto.options?.mapEntry) {
          const loadedType = asMessage(loaded[type.typeName])?.type as Descriptor | undefined;
          expect(numbered(loadedType?.field)).toEqual(type.fields.map((f) => [f.name, f.number]));
          compared++;
        } else if (type.kind === 'enum') {
          const loadedType = asEnum(loaded[type.typeName])?.type as Descriptor | undefined;
          expect(numbered(loadedType?.value)).toEqual(type.values.map((v) => [v.name, v.number]));
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(50);
    });

    // The MCP metadata of an rpc is part of the contract a client can read too: protobufjs must
    // read the same values as buf, e.g. the repeated `ask` of `(quarry.mcp.v1.elicit)`.
    it.each(['quarry.mcp.v1.tool', 'quarry.mcp.v1.elicit'])('reads (%s) on every rpc as buf does', (name) => {
      const option = registry.getExtension(name) as DescExtension & { message: NonNullable<DescExtension['message']> };
      const asBuilt = (method: DescMethod) =>
        hasOption(method, option) ? toJson(option.message, getOption(method, option) as Message) : undefined;
      const asLoaded = (method: DescMethod) => {
        const service = loaded[method.parent.typeName] as ServiceDefinition;
        const parsed = service[method.name]!.options[`(${name})`] as JsonValue | undefined;
        return parsed === undefined ? undefined : toJson(option.message, fromJson(option.message, parsed));
      };
      const methods = quarryFiles.flatMap((file) => file.services.flatMap((service) => service.methods));
      const annotated = methods.filter((method) => asBuilt(method) !== undefined);
      expect(annotated.length).toBeGreaterThan(0);
      for (const method of methods) expect([method.name, asLoaded(method)]).toEqual([method.name, asBuilt(method)]);
    });
  });
});
