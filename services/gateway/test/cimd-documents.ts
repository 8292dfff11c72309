import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest, createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Client ID Metadata Documents for tests: a loopback HTTPS server with a self-signed certificate
// serves each document at its path, and a fetch that trusts only that certificate is handed to
// oidc-provider (its `fetch` option, which also replaces its refusal of loopback hosts).

/** A fetch over node:https that trusts only the given certificate. */
const trustingFetch =
  (ca: Buffer): typeof fetch =>
  (input, init = {}) =>
    new Promise((resolve, reject) => {
      const url = input instanceof Request ? input.url : String(input);
      const headers = Object.fromEntries(new Headers(init.headers).entries());
      const req = httpsRequest(url, { method: init.method ?? 'GET', headers, ca, signal: init.signal ?? undefined });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            if (typeof value === 'string') responseHeaders.set(name, value);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 502, headers: responseHeaders }));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });

/** The document server: `serve` puts a document at a path and returns its URL (the client's id). */
export async function startCimdDocuments() {
  const certDir = mkdtempSync(join(tmpdir(), 'quarry-cimd-'));
  const [key, cert] = [join(certDir, 'key.pem'), join(certDir, 'cert.pem')];
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1',
  ], { stdio: 'ignore' }); // prettier-ignore
  const served = new Map<string, Record<string, unknown>>();
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (request, response) => {
    const body = served.get(request.url ?? '');
    response.statusCode = body ? 200 : 404;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    base,
    fetch: trustingFetch(readFileSync(cert)),
    /** Serves `fields` at `path`, with `client_id` its own URL unless `fields` names another. */
    serve(path: string, fields: Record<string, unknown>) {
      const url = `${base}${path}`;
      served.set(path, { client_id: url, ...fields });
      return url;
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}
