import { statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import {
  countJsonlLines,
  directoryEntries,
  jsonlEntries,
  listFiles,
  type ImportDefaults,
  type ImportEntry,
} from './import-items.js';
import { createBatcher, DEFAULT_BATCH_LIMITS, requestBytes, type BatchLimits } from './import-batches.js';
import type { StoreSender } from './import-sender.js';
import { openImportState } from './import-state.js';

export interface ImportOptions {
  /** A directory of documents, or a .jsonl file. */
  source: string;
  sender: StoreSender;
  defaults: ImportDefaults;
  /** Where stored items are remembered. Default: `<source>.quarry-import.jsonl` beside the source. */
  stateFile?: string;
  /** Calls in flight at once. Default 4. */
  concurrency?: number;
  /** How many items, and bytes, one call carries. Default: DEFAULT_BATCH_LIMITS. */
  batchLimits?: Partial<BatchLimits>;
  /** A progress bar (a terminal) or a plain line now and then (a log). */
  progress: { kind: 'bar'; stream: NodeJS.WritableStream } | { kind: 'lines'; everyMs?: number };
  out: (line: string) => void;
  /** Where each failed item is reported (with a progress bar: above it, on its stream). */
  err: (line: string) => void;
  /** Stopping (Ctrl-C): no new item is sent, the ones in flight finish and are recorded. */
  signal?: AbortSignal;
}

export interface ImportSummary {
  org: string;
  /** Documents or lines found. */
  total: number;
  stored: number;
  /** Stored by an earlier run (per the state file). */
  alreadyImported: number;
  /** Refused by the server, or not importable (unsupported, unreadable, a bad line). */
  failed: number;
  interrupted: boolean;
  stateFile: string;
  ms: number;
}

/**
 * The idempotency key an item is sent with: its state-file key, so every try of the item, in this
 * run or a rerun after a crash (the server committed, the state file never heard), carries the same
 * key, and the artifact store answers a repeat with the first artifact instead of storing another.
 */
const idempotencyKeyOf = (stateKey: string) => `quarry-import:${stateKey}`;

/** The default state file: beside the source, named after it. */
function defaultStateFile(source: string): string {
  const abs = resolve(source);
  return join(dirname(abs), `${basename(abs)}.quarry-import.jsonl`);
}

/**
 * `quarry import`: read the source lazily, skip what the state file says this org already has,
 * send the rest in batches (a few calls in flight; a PDF or Office file as an upload of its own), record each stored item as soon as the server
 * confirms it, report every refused or unreadable item with its reason without stopping, and end with a
 * summary. A rerun with the same source and state file sends only what is not in yet.
 */
export async function importLibrary(options: ImportOptions): Promise<ImportSummary> {
  const began = performance.now();
  const { sender, out } = options;
  const source = resolve(options.source);
  const isDir = statSync(source).isDirectory();
  const total = isDir ? listFiles(source).length : await countJsonlLines(source);
  const entries: AsyncIterable<ImportEntry> = isDir
    ? directoryEntries(source, options.defaults)
    : jsonlEntries(source, options.defaults);
  const org = await sender.org();
  const stateFile = options.stateFile ?? defaultStateFile(source);
  const state = openImportState(stateFile, org);
  const summary: ImportSummary = {
    org,
    total,
    stored: 0,
    alreadyImported: 0,
    failed: 0,
    interrupted: false,
    stateFile,
    ms: 0,
  };
  out(
    `Importing ${total} ${isDir ? 'file(s)' : 'line(s)'} into ${org}${state.known ? ` (${state.known} stored before, per ${stateFile})` : ''}…`,
  );

  const progress = startProgress(options.progress, total, out, options.err);
  const done = () => summary.stored + summary.alreadyImported + summary.failed;
  const fail = (locator: string, reason: string) => {
    summary.failed++;
    progress.log(`  ✗ ${locator}: ${reason}`);
  };

  type Item = Extract<ImportEntry, { kind: 'item' }>;
  const limits: BatchLimits = { ...DEFAULT_BATCH_LIMITS, ...options.batchLimits };
  const batcher = createBatcher<Item>(limits);
  const inFlight = new Set<Promise<void>>();
  const concurrency = Math.max(1, options.concurrency ?? 4);
  /** Keeps at most `concurrency` calls in flight: waits for one to end when that many are. */
  const track = async (sending: Promise<void>) => {
    const tracked: Promise<void> = sending.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= concurrency) await Promise.race(inFlight);
  };
  /** A source document: one upload each, recorded once the server has it. */
  const uploadOne = async (entry: Extract<ImportEntry, { kind: 'document' }>) => {
    const result = await sender.upload(entry.upload);
    if (result.ok) {
      state.record(entry.key, result.id);
      summary.stored++;
    } else fail(entry.locator, result.error);
    progress.update(done());
  };
  const send = async (batch: Item[]) => {
    const sending = sender
      .store(batch.map((item) => item.request))
      .catch((error: unknown) =>
        batch.map(() => ({ ok: false as const, error: (error as Error).message ?? String(error) })),
      )
      .then((results) => {
        // Each item's own outcome: a refused one is reported, the others are recorded as stored.
        batch.forEach((item, i) => {
          const result = results[i];
          if (result?.ok) {
            state.record(item.key, result.id);
            summary.stored++;
          } else fail(item.locator, result?.error ?? 'no result');
        });
        progress.update(done());
      });
    await track(sending);
  };
  try {
    for await (const entry of entries) {
      if (options.signal?.aborted) {
        summary.interrupted = true;
        break;
      }
      if (entry.kind === 'problem') fail(entry.locator, entry.reason);
      else if (state.has(entry.key)) summary.alreadyImported++;
      else if (entry.kind === 'document') await track(uploadOne(entry));
      else {
        const item = { ...entry, request: { ...entry.request, idempotencyKey: idempotencyKeyOf(entry.key) } };
        const bytes = requestBytes(item.request);
        if (bytes > limits.maxItemBytes)
          fail(entry.locator, `too large to send (${bytes} bytes; one call carries at most ${limits.maxItemBytes})`);
        else for (const batch of batcher.add(item, bytes)) await send(batch);
      }
      progress.update(done());
    }
    // What was read but not sent when Ctrl-C came stays unsent (a rerun sends it).
    if (!summary.interrupted) for (const batch of batcher.flush()) await send(batch);
    await Promise.all(inFlight);
  } finally {
    progress.stop(done());
  }

  summary.ms = Math.round(performance.now() - began);
  const perSecond = summary.ms > 0 ? ` (${((summary.stored * 1000) / summary.ms).toFixed(1)}/s)` : '';
  out(
    `${summary.interrupted ? 'Interrupted' : 'Imported'}: ${summary.stored} stored${perSecond}, ` +
      `${summary.alreadyImported} already there, ${summary.failed} failed, of ${total} in ${(summary.ms / 1000).toFixed(1)} s.`,
  );
  if (summary.interrupted || summary.failed)
    out(`Run the same command again to send only what is not in yet (state: ${stateFile}).`);
  return summary;
}

interface Progress {
  update(done: number): void;
  /** A line that must not be drawn over by the bar. */
  log(line: string): void;
  stop(done: number): void;
}

function startProgress(
  kind: ImportOptions['progress'],
  total: number,
  out: (line: string) => void,
  err: (line: string) => void,
): Progress {
  if (kind.kind === 'bar') {
    const bar = new SingleBar({
      stream: kind.stream,
      format: '  {bar} {percentage}% | {value}/{total} | {eta_formatted} left',
      hideCursor: true,
      clearOnComplete: false,
    });
    bar.start(total, 0);
    return {
      update: (done) => bar.update(done),
      log: (line) => {
        // Clear the bar's line, print, and let the next update redraw it.
        kind.stream.write(`\r\x1b[2K${line}\n`);
        bar.render();
      },
      stop: (done) => {
        bar.update(done);
        bar.stop();
      },
    };
  }
  const everyMs = kind.everyMs ?? 2_000;
  let last = performance.now();
  let shown = -1;
  return {
    update(done) {
      if (performance.now() - last < everyMs || done === shown) return;
      last = performance.now();
      shown = done;
      out(`  ${done} of ${total}`);
    },
    log: err,
    stop: () => undefined,
  };
}
