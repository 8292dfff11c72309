// A converter in a process of its own, so that its memory is the converter's alone: the bench
// process holds the whole system. Started by documents-phase.ts; settings from measured-process.ts.
import { readFileSync } from 'node:fs';
import { convertDocument } from '@quarry/documents';
import { measuredProcessSettings } from './measured-process.js';

export interface DocumentProcessSettings {
  /** A small PDF converted before the process says it is ready (the libraries loaded, the JIT warm). */
  warmupPath: string;
  /** The PDF measured. */
  path: string;
}

export type DocumentProcessMessage =
  { type: 'ready' } | { type: 'converted'; ms: number; pages: number; figures: number; chars: number };

const settings = measuredProcessSettings<DocumentProcessSettings>();
// The deadline is the bench's, not the default's: a loaded machine must not turn a slow run into an error.
const options = { limits: { timeoutMs: 30 * 60_000 } };
const send = (message: DocumentProcessMessage) => process.send!(message);

await convertDocument({ bytes: readFileSync(settings.warmupPath) }, options);
process.on('message', (message: { type: string }) => {
  if (message.type === 'close') process.exit(0);
  if (message.type !== 'convert') return;
  const bytes = readFileSync(settings.path);
  const started = performance.now();
  void convertDocument({ bytes }, options).then((doc) =>
    send({
      type: 'converted',
      ms: performance.now() - started,
      pages: doc.units.length,
      figures: doc.figures.length,
      chars: doc.text.length,
    }),
  );
});
send({ type: 'ready' });
