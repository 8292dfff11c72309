import { Command, InvalidArgumentError, Option } from 'commander';
import type { Io } from './io.js';
import { ARTIFACT_TYPES, type ArtifactType } from './import-items.js';
import { openStoreSender } from './import-sender.js';
import { importLibrary } from './import.js';

interface ImportCommandDeps {
  io: Io;
  /** The access token: the file given, QUARRY_TOKEN, or the dev token of `quarry start`. */
  token: (file: string | undefined) => string;
  /** Whether a person watches stderr (a progress bar) or it is a log (plain lines). */
  interactive: boolean;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('must be a whole number from 1 to 64.');
  return n;
}

/** `quarry import <dir|file.jsonl>`. */
export function registerImportCommand(program: Command, { io, token, interactive }: ImportCommandDeps): void {
  program
    .command('import <source>')
    .description(
      'Bring an existing library into Quarry as research artifacts, through the MCP endpoint with a token of the org: a directory of .md, .txt and .html files (stored as text) and .pdf, .docx, .pptx and .xlsx files (uploaded whole, kept as source documents with their pages), or a JSONL file of {title, content, url?, tags?, artifactType?, planId?}. Resumable: rerun the same command and only what is not in yet is sent.',
    )
    .option('--url <url>', 'the MCP endpoint', `http://127.0.0.1:${io.env.PORT ?? '8080'}/mcp`)
    .option('--token-file <file>', "the access token (default: QUARRY_TOKEN, else the data directory's dev-token)")
    .addOption(
      new Option('--type <artifactType>', 'artifact type of every item (a JSONL line may say its own)')
        .choices([...ARTIFACT_TYPES])
        .default('finding'),
    )
    .option('--tags <tags>', 'comma-separated tags added to every item', (v: string) => v.split(','), [])
    .option('--plan <planId>', 'attach every item to this plan')
    .option('--state <file>', 'where stored items are remembered (default: <source>.quarry-import.jsonl beside it)')
    .option('--concurrency <n>', 'calls (of up to 100 items each) in flight at once', positive, 4)
    .action(
      async (
        source: string,
        options: {
          url: string;
          tokenFile?: string;
          type: ArtifactType;
          tags: string[];
          plan?: string;
          state?: string;
          concurrency: number;
        },
      ) => {
        const sender = await openStoreSender({ url: options.url, token: token(options.tokenFile) });
        const stop = new AbortController();
        const onSigint = () => stop.abort();
        process.once('SIGINT', onSigint);
        try {
          const summary = await importLibrary({
            source,
            sender,
            defaults: { artifactType: options.type, tags: options.tags, planId: options.plan },
            stateFile: options.state,
            concurrency: options.concurrency,
            progress: interactive ? { kind: 'bar', stream: process.stderr } : { kind: 'lines' },
            out: io.out,
            err: io.err,
            signal: stop.signal,
          });
          if (summary.interrupted) throw new Error('interrupted; nothing stored was lost');
          if (summary.failed) throw new Error(`${summary.failed} item(s) not imported (see above)`);
        } finally {
          process.off('SIGINT', onSigint);
          await sender.close();
        }
      },
    );
}
