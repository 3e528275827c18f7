/**
 * Whose turn it is to use the machine. The suite runs on several workers, but
 * a few tests must not run beside just any other:
 * - `alone`: the test has the machine to itself (it starves an engine, fills
 *   a quota or times the main thread); it waits until no other test runs,
 *   and none starts while it runs or waits, so it is never starved of a turn.
 * - `heavy`: the test takes most of a core for long (several tabs running at
 *   once, or WebGPU in software, whose shader compiles take every core): one
 *   such test at a time, beside ordinary ones, so that the machine's other
 *   core is not left idle while it runs.
 * - `shared`: every other test; any number run together.
 * fixtures.ts says how a spec asks for each. Every test takes its turn
 * before it opens a page.
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
export type Turn = 'alone' | 'heavy' | 'shared';

const turns: readonly Turn[] = ['alone', 'heavy', 'shared'];
const isTurn = (name: string): name is Turn => (turns as readonly string[]).includes(name);

/** The environment variable that tells workers where the turns are kept. */
export const TURNS_URL = 'E2E_TURNS_URL';

/** The turns service, as the process that runs it sees it. */
export interface TurnsService {
  /** Where workers ask for a turn. */
  url: string;
  /** Turns held now, by kind, and how many wait. */
  state(): Record<Turn, number> & { waiting: number };
  close(): Promise<void>;
}

/**
 * Start the service that grants turns. `log` hears of each turn granted and
 * given back (global setup passes one when E2E_TURNS_LOG is set).
 */
export async function serveTurns(log?: (line: string) => void): Promise<TurnsService> {
  const held: Record<Turn, number> = { alone: 0, heavy: 0, shared: 0 };
  const free: Record<Turn, () => boolean> = {
    alone: () => held.alone + held.heavy + held.shared === 0,
    heavy: () => held.alone + held.heavy === 0,
    shared: () => held.alone === 0,
  };
  const waiting: { turn: Turn; grant: () => void }[] = [];
  const describe = () =>
    `held: ${turns.map((t) => `${held[t]} ${t}`).join(', ')}; ${waiting.length} waiting`;
  /** Grant turns in the order asked, stopping at the first that must wait. */
  const admit = () => {
    for (let next = waiting[0]; next; next = waiting[0]) {
      if (!free[next.turn]()) return;
      waiting.shift();
      next.grant();
    }
  };
  const server = http.createServer((request, response) => {
    const turn = new URL(request.url ?? '/', 'http://turns').searchParams.get('turn') ?? '';
    if (!isTurn(turn)) {
      response.writeHead(400).end(`ask for ?turn= one of ${turns.join(', ')}\n`);
      return;
    }
    let granted = false;
    const waiter = {
      turn,
      grant: () => {
        granted = true;
        held[turn]++;
        log?.(`${new Date().toISOString()} turn ${turn} granted (${describe()})`);
        // The headers tell the worker the turn is its own; the response stays open while it holds it.
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write(`${turn}\n`);
      },
    };
    response.on('close', () => {
      if (granted) {
        held[turn]--;
        log?.(`${new Date().toISOString()} turn ${turn} given back (${describe()})`);
      } else waiting.splice(waiting.indexOf(waiter), 1);
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
