// @quarry/grpc: how Quarry services talk gRPC. Servers verify a signed caller identity before
// any handler runs and speak one error catalogue; clients make one unary call (unary-call.ts)
// that signs the caller's identity or carries a service account's token, sets a deadline on every
// call, and gets the same QuarryError back that the server threw. The call travels over grpc-js,
// or, to a server in the same process, through the in-process transport (transport.ts).
export { status, Metadata } from '@grpc/grpc-js';
export {
  QuarryError,
  defineErrors,
  grpcErrors,
  defaultErrorCode,
  toGrpcStatus,
  fromGrpcError,
  ERROR_CODE_METADATA_KEY,
  ERROR_DETAILS_METADATA_KEY,
  type ErrorSpec,
  type ErrorFactory,
  type ErrorFactoryOptions,
  type ErrorCatalogue,
} from './errors.js';
export {
  createIdentitySigner,
  createIdentityVerifier,
  writeIdentity,
  readIdentity,
  IDENTITY_METADATA_KEY,
  REQUEST_ID_METADATA_KEY,
  type Identity,
  type Principal,
  type IdentitySigner,
  type IdentityVerifier,
  type IdentitySignerOptions,
  type IdentityVerifierOptions,
} from './identity.js';
export {
  createGrpcServer,
  unary,
  handlersWith,
  unaryHandlerOf,
  type ServiceRegistration,
  type GrpcServerOptions,
  type GrpcServer,
} from './server.js';
export type { CallContext, UnaryHandler, GrpcLogger } from './serve-call.js';
export {
  createServiceTokenVerifier,
  bearerToken,
  SERVICE_TOKEN_AUDIENCE,
  ORG_CLAIM,
  SERVICE_ACCOUNT_CLAIM,
  type ServiceTokenVerifier,
  type ServiceTokenVerifierOptions,
  type ServiceAccountPrincipal,
  type TokenSource,
} from './service-token.js';
export { buildServiceServer, listenService, type ListeningService } from './service.js';
export {
  openUnaryChannel,
  type Authenticate,
  type CallLimits,
  type ServiceTarget,
  type UnaryChannel,
  type UnaryChannelOptions,
} from './unary-call.js';
export { DEFAULT_CHANNEL_OPTIONS } from './grpc-js-transport.js';
export type { InProcessServer, UnaryMethod } from './transport.js';
export {
  createGrpcClient,
  createRawClient,
  type RawClient,
  type CallOptions,
  type ClientOptions,
  type ClientConstructor,
  type GrpcClient,
  type UnaryMethodName,
  type RequestOf,
  type ResponseOf,
} from './client.js';
