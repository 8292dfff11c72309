import { benchCli } from './cli.js';

process.exitCode = await benchCli(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
