// The conformance suite's server mode connects without credentials (it has no header option),
// while Quarry's /mcp requires a bearer token. This forwards every request unchanged to Quarry,
// adding `Authorization: Bearer <token>` when the request carries none. Everything else passes
// through as sent, the Host and Origin headers included (the DNS-rebinding scenario sends forged
// ones and must see Quarry's own answer), and responses stream back as they come (SSE).
import { createServer, request } from 'node:http';

/** Listens on 127.0.0.1 (a free port); resolves with its URL for `target`'s path, and `close`. */
export async function startBearerForwarder(target, token) {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const headers = { ...req.headers };
    headers.authorization ??= `Bearer ${token}`;
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`bearer forwarder: ${error.message}`);
    });
    req.pipe(forwarded);
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
