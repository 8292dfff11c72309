import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

// An OpenAI-compatible chat-completions endpoint on a loopback port, for the tests of long model
// calls through the whole system (progress notifications, tasks): the extraction service's real
// OpenAI provider calls it over HTTP (EXTRACTION_PROVIDER=openai, OPENAI_BASE_URL). Each answer
// comes after `delayMs`, so a call is long enough to report progress or to be cancelled; a request
// the client aborts is seen as `aborted`.

export interface FakeModelServer {
  /** The OPENAI_BASE_URL to configure. */
  baseUrl: string;
  /** How long the next answers take. */
  delayMs: number;
  /** The JSON the model answers with. */
  answer: Record<string, unknown>;
  /** Requests received, and how many of them the client gave up on before the answer. */
  readonly requests: number;
  readonly aborted: number;
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export async function startFakeModelServer(answer: Record<string, unknown>): Promise<FakeModelServer> {
  let requests = 0;
  let aborted = 0;
  const state = { delayMs: 0, answer };
  const server = createServer(async (req, res) => {
    await readBody(req);
    requests += 1;
    let gone = false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, state.delayMs);
      res.once('close', () => {
        if (res.writableFinished) return;
        gone = true;
        aborted += 1;
        clearTimeout(timer);
        resolve();
      });
    });
    if (gone) return;
    const content = JSON.stringify(state.answer);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${requests}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: 'fake-model-1',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    get answer() {
      return state.answer;
    },
    set answer(value: Record<string, unknown>) {
      state.answer = value;
    },
    get requests() {
      return requests;
    },
    get aborted() {
      return aborted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
