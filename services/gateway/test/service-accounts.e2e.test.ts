import { freePort } from './free-port.js';
import { serviceAccountClientSuite } from './service-accounts-client.suite.js';
import { serviceAccountsSuite } from './service-accounts-grpc.suite.js';
import { serviceAccountStandardToolsSuite } from './service-accounts-standard-tools.suite.js';
import { sharedSystem } from './shared-system.js';

// Service accounts through the whole system: tokens from the embedded authorization server (its
// issuer is the gateway's public URL, so the port is known before it starts), rpcs straight to
// the services over gRPC, raw, through @quarry/client, and with the standard tools (proto-loader,
// reflection, buf curl).

const system = sharedSystem(async () => {
  const port = await freePort();
  return { PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` };
});
serviceAccountsSuite(system);
serviceAccountClientSuite(system);
serviceAccountStandardToolsSuite(system);
