// The e2e suite's promise that an `alone` spec never has a neighbour rests on
// this service: these tests hold it to that, under plain Node.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { serveTurns, takeTurn, type Turn, type TurnsService } from './turns';

let service: TurnsService;
beforeEach(async () => {
  service = await serveTurns();
});
afterEach(async () => {
  await service.close();
});

/** Ask for a turn, recording the moment it is granted in `log`. */
function ask(turn: Turn, name: string, log: string[]): Promise<() => void> {
  return takeTurn(turn, service.url).then((giveBack) => {
    log.push(name);
    return giveBack;
  });
}

/** Wait until the service has `count` requests waiting for a turn. */
const waiting = (count: number) =>
  vi.waitFor(() => {
    expect(service.state().waiting).toBe(count);
  });

describe('turns on the machine', () => {
  it('lets shared turns run together', async () => {
    const log: string[] = [];
    const [a, b] = await Promise.all([ask('shared', 'a', log), ask('shared', 'b', log)]);
    expect(log.sort()).toEqual(['a', 'b']);
    a();
    b();
  });

  it('starts an alone turn only once every shared turn is given back', async () => {
    const log: string[] = [];
    const a = await ask('shared', 'a', log);
    const b = await ask('shared', 'b', log);
    const alone = ask('alone', 'alone', log);
    await waiting(1);
    a();
    await vi.waitFor(() => {
      expect(service.state().shared).toBe(1);
    });
    expect(log).toEqual(['a', 'b']);
    expect(service.state().waiting).toBe(1);
    b();
    (await alone)();
    expect(log).toEqual(['a', 'b', 'alone']);
  });

  it('starts no shared turn beside an alone one, nor ahead of one that waits', async () => {
    const log: string[] = [];
    const first = await ask('shared', 'first', log);
    const alone = ask('alone', 'alone', log);
    await waiting(1);
    // Asked after the alone turn: waits behind it, though only a shared turn runs.
    const later = ask('shared', 'later', log);
    await waiting(2);
    expect(log).toEqual(['first']);
    first();
    const giveBackAlone = await alone;
    expect(service.state()).toEqual({ alone: 1, heavy: 0, shared: 0, waiting: 1 });
    expect(log).toEqual(['first', 'alone']);
    giveBackAlone();
    (await later)();
    expect(log).toEqual(['first', 'alone', 'later']);
  });

  it('runs one heavy turn at a time, beside shared ones, never beside an alone one', async () => {
    const log: string[] = [];
    const shared = await ask('shared', 'shared', log);
    const first = await ask('heavy', 'first', log);
    const second = ask('heavy', 'second', log);
    await waiting(1);
    expect(log).toEqual(['shared', 'first']);
    const alone = ask('alone', 'alone', log);
    await waiting(2);
    first();
    const giveBackSecond = await second;
    shared();
    giveBackSecond();
    (await alone)();
    expect(log).toEqual(['shared', 'first', 'second', 'alone']);
  });

  it('gives a turn back when its holder goes away without a word', async () => {
    const log: string[] = [];
    // A worker that dies closes its connection; giving back is exactly that.
    const crashed = await ask('alone', 'crashed', log);
    const next = ask('alone', 'next', log);
    await waiting(1);
    expect(log).toEqual(['crashed']);
    crashed();
    (await next)();
    expect(log).toEqual(['crashed', 'next']);
  });

  it('refuses a turn of no known kind', async () => {
    await expect(takeTurn('sideways' as Turn, service.url)).rejects.toThrow(/answered 400/);
  });
});
