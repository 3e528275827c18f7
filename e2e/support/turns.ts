/**
 * Whose turn it is to use the machine. The suite runs on several workers, but
 * a few specs must have the machine to themselves (they starve an engine, fill
 * a quota, time the main thread, or run WebGPU in software): those are tagged
 * `alone` (fixtures.ts). Every test takes a turn before it opens a page: any number of
 * ordinary tests share the machine; an `alone` test waits until none runs,
 * and none starts while it runs or waits (so it is never starved of a turn).
 *
 * The turns are kept by one small HTTP service that global-setup.ts starts in
 * Playwright's main process. A turn is held for as long as its request stays
 * open: when a worker ends its test (or dies), its connection closes and the
 * turn is given back, so a crashed worker can never keep the machine. Being a
 * scheduler inside the fixtures, not a Playwright project, it holds for any
 * subset of specs a run selects.
 */
import http from 'node:http';

/** How a test uses the machine. */
export type Turn = 'alone' | 'shared';

/** The environment variable that tells workers where the turns are kept. */
export const TURNS_URL = 'E2E_TURNS_URL';

/** The turns service, as the process that runs it sees it. */
export interface TurnsService {
  /** Where workers ask for a turn. */
  url: string;
  /** Turns held now, by kind, and how many wait. */
  state(): { alone: number; shared: number; waiting: number };
  close(): Promise<void>;
}

/** Start the service that grants turns. */
export async function serveTurns(): Promise<TurnsService> {
  const held: Record<Turn, number> = { alone: 0, shared: 0 };
  const waiting: { turn: Turn; grant: () => void }[] = [];
  /** Grant turns in the order asked, stopping at the first that must wait. */
  const admit = () => {
    for (let next = waiting[0]; next; next = waiting[0]) {
      const free = next.turn === 'alone' ? held.alone + held.shared === 0 : held.alone === 0;
      if (!free) return;
      waiting.shift();
      next.grant();
    }
  };
  const server = http.createServer((request, response) => {
    const asked = new URL(request.url ?? '/', 'http://turns').searchParams.get('turn');
    if (asked !== 'alone' && asked !== 'shared') {
      response.writeHead(400).end('ask for ?turn=alone or ?turn=shared\n');
      return;
    }
    const turn: Turn = asked;
    let granted = false;
    const waiter = {
      turn,
      grant: () => {
        granted = true;
        held[turn]++;
        // The headers tell the worker the turn is its own; the response stays open while it holds it.
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write(`${turn}\n`);
      },
    };
    response.on('close', () => {
      if (granted) held[turn]--;
      else waiting.splice(waiting.indexOf(waiter), 1);
      admit();
    });
    waiting.push(waiter);
    admit();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the turns service has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    state: () => ({ ...held, waiting: waiting.length }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Wait for a turn of this kind; the function it resolves to gives the turn back. */
export function takeTurn(turn: Turn, url = process.env[TURNS_URL]): Promise<() => void> {
  if (!url)
    return Promise.reject(
      new Error(`${TURNS_URL} is not set: run the suite through playwright.config.ts`),
    );
  return new Promise((resolve, reject) => {
    // A connection of its own (no agent): closing it is what gives the turn back.
    const request = http.get(`${url}/?turn=${turn}`, { agent: false }, (response) => {
      response.on('error', () => undefined);
      if (response.statusCode !== 200) {
        request.destroy();
        reject(new Error(`the turns service answered ${response.statusCode} to ?turn=${turn}`));
        return;
      }
      resolve(() => request.destroy());
    });
    request.on('error', reject);
  });
}
