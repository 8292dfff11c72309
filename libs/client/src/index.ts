// @quarry/client: call Quarry's services directly over gRPC as a service account (ADR 0036).
export { createQuarryClient, type QuarryClient, type QuarryClientOptions } from './quarry-client.js';
export { QuarryCallError, type CallOptions, type ServiceClient } from './service-client.js';
export { TokenRequestError, type ServiceAccountCredentials } from './token-source.js';
// The messages of the services most programs start with; every other package's (searchV1,
// extractionV1) comes from @quarry/contracts the same way.
export { artifactV1, planV1 } from '@quarry/contracts';
