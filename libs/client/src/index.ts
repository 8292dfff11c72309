// @quarry/client: call Quarry's services directly over gRPC as a service account (ADR 0036).
export { createQuarryClient, type QuarryClient, type QuarryClientOptions } from './quarry-client.js';
export { type CallOptions, type ServiceClient } from './service-client.js';
export { TokenRequestError, type ServiceAccountCredentials } from './token-source.js';
// What a refused call rejects with: the one error class of Quarry's gRPC (the code and status the
// service threw, its details), the same object the services and the gateway handle.
export { QuarryError } from '@quarry/grpc';
// The messages of the services most programs start with; every other package's (searchV1,
// extractionV1) comes from @quarry/contracts the same way.
export { artifactV1, planV1 } from '@quarry/contracts';
