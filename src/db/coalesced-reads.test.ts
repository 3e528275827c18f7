import { describe, expect, it } from 'vitest';
import { coalesced } from './coalesced-reads';

describe('coalesced', () => {
  it('turns calls made during a read into one more read, never two at once', async () => {
    let running = 0;
    let most = 0;
    let reads = 0;
    const gates: (() => void)[] = [];
    const read = coalesced(
      () =>
        new Promise<void>((done) => {
          reads++;
          running++;
          most = Math.max(most, running);
          gates.push(() => {
            running--;
            done();
          });
        }),
      () => false,
    );
    const first = read();
    // Three writes land while the first read is still going.
    void read();
    void read();
    void read();
    gates.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(reads).toBe(2);
    gates.shift()!();
    await first;
    expect(reads).toBe(2);
    expect(most).toBe(1);
  });

  it('still ends its reads while calls keep coming faster than a read', async () => {
    const seen: number[] = [];
    let version = 0;
    let ticks = 0;
    let closed = false;
    const read = coalesced(
      async () => {
        const at = version;
        // Each read outlasts the next write: a live query would start over and never show anything.
        for (let i = 0; i < 3; i++) {
          version++;
          void read();
          await new Promise((r) => setTimeout(r, 0));
        }
        seen.push(at);
        if (++ticks >= 4) closed = true;
      },
      () => closed,
    );
    await read();
    expect(seen).toHaveLength(4);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });
});
