/**
 * Once per run, in Playwright's main process: the service that hands out
 * turns on the machine (turns.ts). Workers start after this and inherit its
 * address through the environment; the returned function stops it at the end.
 * E2E_TURNS_LOG=1 prints each turn as it is granted and given back.
 */
import { serveTurns, TURNS_URL } from './turns';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const log = process.env.E2E_TURNS_LOG ? (line: string) => console.error(line) : undefined;
  const turns = await serveTurns(log);
  process.env[TURNS_URL] = turns.url;
  return () => turns.close();
}
