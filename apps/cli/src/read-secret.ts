import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/**
 * Reads one line from stdin without echoing it on a terminal (a password); piped input
 * (`echo … | quarry user passwd …`) is read as is.
 */
export function readSecret(prompt: string): Promise<string> {
  const { stdin, stderr } = process;
  const tty = stdin.isTTY === true;
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: stdin, output, terminal: tty });
  return new Promise((resolve) => {
    rl.question(prompt, (answer) => {
      rl.close();
      if (tty) stderr.write('\n');
      resolve(answer);
    });
    // The prompt is written; what the user types next is not.
    muted = tty;
  });
}
