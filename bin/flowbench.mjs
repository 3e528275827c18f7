#!/usr/bin/env node
// The `flowbench` command: the TypeScript sources run as they are, through tsx's loader, so a
// fresh clone needs no build step after `npm ci`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
