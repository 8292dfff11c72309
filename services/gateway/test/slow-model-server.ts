import { createServer, type IncomingMessage } from 'node:http';

// An OpenAI-compatible model server on loopback that takes its time, for the extraction
// service's real OpenAI provider (OPENAI_BASE_URL=<url>): every POST /v1/chat/completions answers
// a chat.completion whose message is `answer` as JSON, after `delayMs` — unless the client hangs
// up first (a cancelled call, a stopped service), which is counted.

export interface SlowModelServer {
  /** The base URL to configure (OPENAI_BASE_URL). */
  readonly url: string;
  /** How long the next answers take. */
  delayMs: number;
  /** Requests received; those whose client hung up before the answer. */
  readonly requests: number;
  readonly abandoned: number;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += String(chunk);
  return body;
}

export async function startSlowModelServer(answer: Record<string, unknown>, delayMs: number): Promise<SlowModelServer> {
  const counts = { requests: 0, abandoned: 0 };
  let delay = delayMs;
  const server = createServer((request, response) => {
    void (async () => {
      await readBody(request);
      counts.requests += 1;
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
        response.writeHead(404).end();
        return;
      }
      const timer = setTimeout(() => {
        const body = {
          id: `chatcmpl-${counts.requests}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: 'slow-model',
          choices: [
            { index: 0, message: { role: 'assistant', content: JSON.stringify(answer) }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 200, completion_tokens: 20, total_tokens: 220 },
        };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      }, delay);
      response.on('close', () => {
        if (!response.writableFinished) {
          clearTimeout(timer);
          counts.abandoned += 1;
        }
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get delayMs() {
      return delay;
    },
    set delayMs(ms: number) {
      delay = ms;
    },
    get requests() {
      return counts.requests;
    },
    get abandoned() {
      return counts.abandoned;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
