#!/usr/bin/env node
// The `flowbench` command: the TypeScript sources run as they are, through tsx's loader, so a
// fresh clone needs no build step after `npm ci`.
import { register } from 'tsx/esm/api';

register();
// A reader that stops reading (`flowbench run … | head`) does not stop the command: the run goes
// on and its run file is still written; what it would have printed goes nowhere.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
const { main } = await import('../cli/main.ts');
const code = await main(process.argv.slice(2));
// When main resolves the command has done its work and written its output (to a file or a pipe
// Node writes synchronously on Linux and macOS). Leave now rather than when the event loop
// drains: a queue client whose Redis went away keeps reconnecting, and would hold a stopped
// worker for ever.
process.exit(code);
