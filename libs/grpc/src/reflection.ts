import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import type * as grpc from '@grpc/grpc-js';
import {
  loadFileDescriptorSetFromBuffer,
  type AnyDefinition,
  type PackageDefinition,
  type ServiceDefinition,
} from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';

/**
 * Serve gRPC server reflection (v1 and v1alpha) of `serviceNames` from a binary
 * FileDescriptorSet, with its files as they were built.
 *
 * @grpc/reflection answers with the `fileDescriptorProtos` of the package definition it is
 * given. proto-loader's are rebuilt by protobufjs: one file per package, named after one of its
 * files, without imports and with relative type names, so a client that links what it receives
 * (grpcurl, buf curl) cannot resolve e.g. google.protobuf.Struct in plan.proto and gives up on
 * the service. Handed the files as buf built them (names, imports, fully-qualified type names),
 * the same library serves descriptors that link, each import fetched by its file name. The
 * library still re-encodes them with protobufjs, which keeps no custom option values (the
 * quarry.mcp.v1 annotations); the file that defines them is served all the same.
 */
export function addReflection(server: grpc.Server, descriptorSet: Uint8Array, serviceNames: readonly string[]): void {
  const files = fromBinary(FileDescriptorSetSchema, descriptorSet).file.map((file) =>
    Buffer.from(toBinary(FileDescriptorProtoSchema, file)),
  );
  const definition: PackageDefinition = {};
  for (const [name, entry] of Object.entries(loadFileDescriptorSetFromBuffer(Buffer.from(descriptorSet)))) {
    definition[name] = isServiceDefinition(entry) ? entry : { ...entry, fileDescriptorProtos: files };
  }
  new ReflectionService(definition, { services: [...serviceNames] }).addToServer(server);
}

/** Message and enum definitions carry a `format` (and the files); a service's entries are its methods. */
function isServiceDefinition(entry: AnyDefinition): entry is ServiceDefinition {
  return typeof entry.format !== 'string';
}
