#!/usr/bin/env node
// OpenTelemetry must patch @grpc/grpc-js and pg before anything imports them, so this file
// imports nothing else statically and loads the CLI afterwards.
import { startTelemetry } from '@quarry/telemetry';

const argv = process.argv.slice(2);
const telemetry = argv[0] === 'start' ? startTelemetry({ service: 'quarry', otlpEndpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined }) : undefined;
const { runCli } = await import('./commands.js');
const code = await runCli(argv, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  telemetry,
});
if (code !== 0) process.exitCode = code;
