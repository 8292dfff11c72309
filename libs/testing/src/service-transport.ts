/**
 * The transport the one-process system's tests run on: the in-process one unless the run sets
 * QUARRY_SERVICE_TRANSPORT (the packages' `test-grpc` targets set `grpc`, so every test of the
 * one-process system also runs over loopback gRPC). Spread into the env a test hands the system.
 */
export function serviceTransportEnv(): Record<string, string> {
  const transport = process.env.QUARRY_SERVICE_TRANSPORT;
  return transport ? { QUARRY_SERVICE_TRANSPORT: transport } : {};
}
