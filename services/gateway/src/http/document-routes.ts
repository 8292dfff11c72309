import type { Readable } from 'node:stream';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { toolNames } from '@quarry/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { insufficientScope } from '../errors.js';
import type { Principal } from '../identity/schema.js';
import { mayUse, missingScope } from '../mcp/request-context.js';
import type { Tools } from '../mcp/tools/call.js';
import type { Authentication } from './authentication.js';
import { sendError, sendRefusal } from './error-replies.js';

export interface DocumentRoutesOptions {
  tools: Tools;
  authentication: Authentication;
  /** Largest file `POST /documents` accepts, in bytes. */
  uploadLimitBytes: number;
  rateLimitPerMinute: number;
  resourceMetadata?: string;
}

/** Thrown when an upload's body grows past the limit: it is not read further. */
class UploadTooLarge extends Error {}

/**
 * The body, read as it streams in, refused as soon as it passes `limit` bytes: reading stops there
 * (the stream is paused, not destroyed, so the refusal can still be answered on the connection,
 * which is then closed).
 */
function readLimited(body: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        body.off('data', onData);
        body.pause();
        reject(new UploadTooLarge());
        return;
      }
      parts.push(chunk);
    };
    body.on('data', onData);
    body.once('end', () => resolve(Buffer.concat(parts, size)));
    body.once('error', reject);
  });
}

const optionalText = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : undefined);

/** The HTTP status of a tool error: what the call's code says about who should act. */
/** What a tool error's structured content holds, as the HTTP routes read it. */
interface ToolErrorFields {
  code?: string;
  retryable?: boolean;
  details?: { retryAfterSeconds?: unknown };
}

function statusOfToolError(error: ToolErrorFields | undefined): number {
  const code = error?.code ?? '';
  if (code.endsWith('TOO_LARGE')) return 413;
  // A storage quota: the request is fine, the org has no room for it (RFC 4918's 507).
  if (code === 'QUOTA_EXCEEDED') return 507;
  if (code.endsWith('NOT_FOUND')) return 404;
  if (code === 'PERMISSION_DENIED') return 403;
  return error?.retryable ? 503 : 422;
}

/**
 * Source documents over HTTP, for files too large to send through a tool call as base64:
 * `POST /documents?name=paper.pdf` (optionally `title`, `planId`, `stepId`; the body is the file,
 * its Content-Type a hint) streams the body in up to the upload limit and imports it with
 * the import tool, answering that tool's result (the document's artifact id, which every tool
 * takes); `GET /documents/{id}/original` answers the original file, byte for byte, with its
 * SHA-256. Both authenticate like `/mcp`, need the tool's scope, and go through the same tool
 * call (validation, logging, the caller's org), so nothing here bypasses what a tool call checks.
 */
export function registerDocumentRoutes(app: FastifyInstance, options: DocumentRoutesOptions): void {
  const { tools, authentication } = options;

  /** The confirmed caller if it may call `toolName`; otherwise the refusal is sent and undefined returned. */
  async function callerFor(request: FastifyRequest, reply: FastifyReply, toolName: string) {
    const principal: Principal | undefined = await authentication.confirmedPrincipal(request, reply);
    if (!principal) return undefined;
    const tool = tools.catalogue.get(toolName);
    if (!tool || !mayUse(principal, tool.name)) {
      sendError(request, reply, 'NOT_FOUND', `Not found: ${request.method} ${request.url.split('?')[0]}.`);
      return undefined;
    }
    const scope = missingScope(principal, tool);
    if (scope) {
      sendRefusal(
        reply,
        insufficientScope(scope, `${tool.name} needs the scope ${scope}`, options.resourceMetadata, null),
      );
      return undefined;
    }
    const abort = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    return { principal, requestId: String(request.id), signal: abort.signal };
  }

  const sendToolResult = (reply: FastifyReply, result: CallToolResult) => {
    const structured = result.structuredContent as { error?: ToolErrorFields } | undefined;
    // A call rate past its org's quota is what HTTP has 429 and Retry-After for.
    const retryAfter = structured?.error?.details?.retryAfterSeconds;
    if (structured?.error?.code === 'QUOTA_EXCEEDED' && typeof retryAfter === 'number')
      return reply.code(429).header('retry-after', String(retryAfter)).send(structured);
    return reply
      .code(result.isError ? statusOfToolError(structured?.error) : 200)
      .header('content-type', 'application/json')
      .send(structured ?? {});
  };

  const rateLimit = {
    max: options.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request: FastifyRequest) =>
      (request.principal ?? request.unconfirmed?.principal)?.tokenId ?? request.ip,
  };

  // Its own scope: the body is any file, passed on as a stream (never buffered by a parser).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.post('/documents', {
      onRequest: [authentication.authenticate],
      preValidation: authentication.answerUncheckedToken,
      config: { rateLimit },
      handler: async (request, reply) => {
        const query = request.query as Record<string, unknown>;
        const fileName = optionalText(query.name);
        if (!fileName || fileName.length > 255)
          return sendError(request, reply, 'INVALID_REQUEST', 'Name the file: POST /documents?name=<file name>.');
        const declared = Number(request.headers['content-length']);
        if (declared > options.uploadLimitBytes)
          return sendError(
            request,
            reply,
            'PAYLOAD_TOO_LARGE',
            `The file is ${declared} bytes; uploads are limited to ${options.uploadLimitBytes} bytes.`,
          );
        const caller = await callerFor(request, reply, toolNames.importDocument);
        if (!caller) return reply;
        let bytes: Buffer;
        try {
          bytes = await readLimited(request.body as Readable, options.uploadLimitBytes);
        } catch (error) {
          if (!(error instanceof UploadTooLarge)) throw error;
          // The rest of the body is never read: the connection ends with this answer.
          return sendError(
            request,
            reply,
            'PAYLOAD_TOO_LARGE',
            `The file is larger than the upload limit of ${options.uploadLimitBytes} bytes.`,
            { connection: 'close' },
          );
        }
        const mediaType = optionalText(request.headers['content-type']?.split(';')[0]?.trim());
        const args = {
          data: bytes.toString('base64'),
          fileName,
          ...(mediaType && mediaType !== 'application/octet-stream' ? { mediaType } : {}),
          ...(optionalText(query.title) ? { title: query.title } : {}),
          ...(optionalText(query.planId) ? { planId: query.planId } : {}),
          ...(optionalText(query.stepId) ? { stepId: query.stepId } : {}),
        };
        const outcome = await tools.call(toolNames.importDocument, args, caller);
        return sendToolResult(reply, outcome.result!);
      },
    });
  });

  app.get('/documents/:id/original', {
    onRequest: [authentication.authenticate],
    preValidation: authentication.answerUncheckedToken,
    config: { rateLimit },
    handler: async (request, reply) => {
      const caller = await callerFor(request, reply, toolNames.getArtifact);
      if (!caller) return reply;
      const { id } = request.params as { id: string };
      const { result } = await tools.call(toolNames.getArtifact, { id, original: true, maxBytes: 4096 }, caller);
      if (!result || result.isError) return sendToolResult(reply, result!);
      const structured = result.structuredContent as { document?: { sha256: string; fileName: string } };
      const embedded = result.content.find((c) => c.type === 'resource');
      const resource = embedded?.type === 'resource' ? embedded.resource : undefined;
      if (!structured.document || !resource || !('blob' in resource))
        return sendError(request, reply, 'NOT_FOUND', `${id} is not a source document with an original file.`);
      return reply
        .code(200)
        .headers({
          'content-type': resource.mimeType ?? 'application/octet-stream',
          'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(structured.document.fileName)}`,
          'x-content-sha256': structured.document.sha256,
        })
        .send(Buffer.from(resource.blob, 'base64'));
    },
  });
}
