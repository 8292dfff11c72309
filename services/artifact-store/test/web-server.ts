import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { pagedPdf } from '@quarry/testing';

// A real HTTP server on 127.0.0.1 for import_url's tests: an HTML article, a PDF, redirects
// (to itself, to private and metadata addresses, to a host name, in a loop), a body over the
// size limit (declared and streamed), one that never ends, an error status, an image served as
// HTML and a gzip-encoded page.

const ARTICLE_HTML = `<!doctype html>
<html lang="en"><head>
<title>Harbour ledgers of 1887</title>
<meta name="author" content="Ada Quay">
<link rel="canonical" href="https://harbour.example/ledgers-1887">
</head><body>
<nav>Home | Archive | About</nav>
<article>
<h1>Harbour ledgers of 1887</h1>
<p>The harbour master's ledgers of 1887 record that the schooner Petrel unloaded 412 barrels of
salted herring on the ninth of March, the largest single cargo of the season.</p>
<p>Across the whole year the ledgers count 2,318 arrivals and 2,301 departures, with the
difference explained by ships wintering in the inner basin.</p>
<p>The ledgers were kept in iron-gall ink, and several pages water-damaged in the flood of 1903
were recopied by the clerk's successor.</p>
</article>
<footer>Copyright the harbour archive</footer>
</body></html>`;

/** The smallest valid PNG (1×1), served as text/html to show the header is only a hint. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export interface TestWebServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  port: number;
  pdf: Buffer;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startWebServer(options: { bigBytes: number }): Promise<TestWebServer> {
  const pdf = await pagedPdf(3, 'Harbour tonnage report');
  const requests: string[] = [];
  const stalled = new Set<ServerResponse>();
  let port = 0;
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/article.html': (_req, res) => {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        etag: '"ledgers-v1"',
        'last-modified': 'Tue, 01 Dec 2026 10:00:00 GMT',
      });
      res.end(ARTICLE_HTML);
    },
    // Served as octet-stream with a .bin name: the format is read from the bytes.
    '/download/report.bin': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(pdf);
    },
    '/go/article': (_req, res) => {
      res.writeHead(302, { location: '/article.html' });
      res.end();
    },
    '/go/private': (_req, res) => {
      res.writeHead(301, { location: 'http://10.0.0.1/admin' });
      res.end();
    },
    '/go/metadata': (_req, res) => {
      res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/iam/' });
      res.end();
    },
    '/go/loopback-name': (_req, res) => {
      res.writeHead(302, { location: `http://rebind.test:${port}/article.html`, connection: 'close' });
      res.end();
    },
    '/loop': (_req, res) => {
      res.writeHead(302, { location: '/loop' });
      res.end();
    },
    '/big': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(options.bigBytes) });
      res.end(Buffer.alloc(options.bigBytes, 'a'));
    },
    '/big-streamed': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'b');
      let sent = 0;
      const more = () => {
        while (sent < options.bigBytes) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    },
    '/slow': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body><p>The first words of a page that never ends');
      stalled.add(res);
    },
    '/gone': (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<p>Not here</p>');
    },
    '/picture': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PNG);
    },
    '/compressed.html': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(gzipSync(ARTICLE_HTML.replace('1887', '1888').replaceAll('1887', '1888')));
    },
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    const route = routes[path];
    if (route) route(req, res);
    else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    pdf,
    requests,
    async close() {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
