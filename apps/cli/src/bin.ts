#!/usr/bin/env node
// OpenTelemetry must patch @grpc/grpc-js and pg before anything imports them, so this file
// imports nothing else statically and loads the CLI afterwards.
import { startTelemetry } from '@quarry/telemetry';

const argv = process.argv.slice(2);
// On a laptop nothing collects traces; the SDK would cost ~77 MB RSS and ~1 s of start-up for
// span ids alone (ADR 0006). With an OTLP endpoint configured, `quarry start` traces everything.
const otlpEndpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
const telemetry = argv[0] === 'start' && otlpEndpoint ? startTelemetry({ service: 'quarry', otlpEndpoint }) : undefined;
const { runCli } = await import('./commands.js');
const { readSecret } = await import('./read-secret.js');
const code = await runCli(argv, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  telemetry,
  readSecret,
  interactive: process.stderr.isTTY === true,
});
if (code !== 0) process.exitCode = code;
