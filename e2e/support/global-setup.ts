/**
 * Once per run, in Playwright's main process: the service that hands out
 * turns on the machine (turns.ts). Workers start after this and inherit its
 * address through the environment; the returned function stops it at the end.
 */
import { serveTurns, TURNS_URL } from './turns';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const turns = await serveTurns();
  process.env[TURNS_URL] = turns.url;
  return () => turns.close();
}
