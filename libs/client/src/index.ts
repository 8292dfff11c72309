// @quarry/client: call Quarry's services directly over gRPC as a service account (ADR 0036).
export { createQuarryClient, type QuarryClient, type QuarryClientOptions } from './quarry-client.js';
export { QuarryCallError, type CallOptions, type ServiceClient } from './service-client.js';
export { TokenRequestError, type ServiceAccountCredentials } from './token-source.js';
export { artifactV1, extractionV1, planV1, searchV1 } from '@quarry/contracts';
