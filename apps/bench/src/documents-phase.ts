import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sizeLabel } from './content-phase.js';
import { benchPdf, FIGURE_EVERY } from './document-pdf.js';
import type { DocumentProcessMessage, DocumentProcessSettings } from './document-process.js';
import { childCommand } from './measured-process.js';
import { percentile } from './measure.js';
import type { Phase } from './phase.js';
import { memoryOf, peakMemoryDuring } from './process-memory.js';
import { compared, type Results } from './report.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function next<T extends DocumentProcessMessage['type']>(
  child: ChildProcess,
  type: T,
): Promise<Extract<DocumentProcessMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: DocumentProcessMessage) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as Extract<DocumentProcessMessage, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`the converter process exited (${code})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * PDF conversion as `@quarry/documents` does it for every import (a worker thread with the
 * default limits), on a generated PDF of `documentPages` pages of running text with a figure on
 * every 25th: pages converted per second, and the converter process's peak memory (RSS, worker
 * thread included) against the same process idle with the libraries loaded. The converter runs
 * in a process of its own so its memory is its own. Linux only (/proc).
 */
export const documentsPhase: Phase = {
  name: 'documents',
  async run({ system, sizes, progress }) {
    const pages = sizes.documentPages;
    const dir = mkdtempSync(join(system.scratchDir, 'documents-'));
    try {
      progress(`generating a ${pages}-page PDF`);
      const settings: DocumentProcessSettings = { warmupPath: join(dir, 'warmup.pdf'), path: join(dir, 'bench.pdf') };
      writeFileSync(settings.warmupPath, await benchPdf(FIGURE_EVERY));
      writeFileSync(settings.path, await benchPdf(pages));
      const { script, execArgv } = childCommand('document-process');
      const child = fork(script, [], {
        cwd: REPO_ROOT,
        execArgv,
        env: { ...process.env, QUARRY_BENCH_PROCESS: JSON.stringify(settings) },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      try {
        await next(child, 'ready');
        const idle: number[] = [];
        for (let i = 0; i < 3; i++) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          idle.push(memoryOf(child.pid!).quarry);
        }
        progress(`converting ${pages} pages`);
        const { result, peak } = await peakMemoryDuring(child.pid!, () => {
          const converted = next(child, 'converted');
          child.send({ type: 'convert' });
          return converted;
        });
        const figures = Math.floor(pages / FIGURE_EVERY);
        if (result.pages !== pages || result.figures !== figures) {
          throw new Error(
            `documents: converted ${result.pages} pages and ${result.figures} figures of ${pages} and ${figures}`,
          );
        }
        progress(
          `${pages} pages in ${(result.ms / 1000).toFixed(1)} s, ${result.chars} characters, peak ${peak.quarry.toFixed(0)} MB`,
        );
        const label = sizeLabel(pages);
        const rate = { value: pages / (result.ms / 1000), unit: 'pages/s' };
        const memory = compared(peak.quarry, percentile(idle, 50), 'MB');
        return {
          [`documents_pdf_${label}_pages_per_s`]: rate,
          [`documents_pdf_${label}_peak_rss_mb`]: memory,
          documents_pdf_pages_per_s: rate,
          documents_pdf_peak_rss_mb: memory,
        } satisfies Results;
      } finally {
        if (child.exitCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.send({ type: 'close' });
          await exited;
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
