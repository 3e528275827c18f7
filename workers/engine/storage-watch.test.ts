import { describe, expect, it } from 'vitest';
import { StorageWatch } from './storage-watch';

/** A watch on a fake clock whose timers fire only when the test says. */
function setup() {
  let clock = 0;
  let timers: { fire: () => void; at: number }[] = [];
  const events: string[] = [];
  const watch = new StorageWatch({
    now: () => clock,
    setTimer: (fire, ms) => {
      const timer = { fire, at: clock + ms };
      timers.push(timer);
      return () => (timers = timers.filter((t) => t !== timer));
    },
    stallMs: 1000,
    onStall: (waited) => events.push(`stall ${waited}`),
    onResume: () => events.push('resume'),
  });
  /** Move the clock on, firing the timers that come due. */
  const advance = (ms: number) => {
    const until = clock + ms;
    for (;;) {
      const due = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((t) => t !== due);
      clock = due.at;
      due.fire();
    }
    clock = until;
  };
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const write = () => {
    let answer!: () => void;
    let refuse!: (error: Error) => void;
    const promise = new Promise<void>((resolve, reject) => {
      answer = resolve;
      refuse = reject;
    });
    return { promise: watch.track(promise), answer, refuse };
  };
  return { watch, events, advance, settle, write, timers: () => timers };
}

describe('StorageWatch', () => {
  it('stays quiet while writes answer within the limit', async () => {
    const { events, advance, settle, write, timers } = setup();
    for (let i = 0; i < 5; i++) {
      const w = write();
      advance(900);
      w.answer();
      await settle();
    }
    advance(5000);
    expect(events).toEqual([]);
    expect(timers()).toEqual([]); // nothing left ticking once no write waits
  });

  it('reports a write that waits past the limit once, then its answer', async () => {
    const { events, advance, settle, write } = setup();
    const stuck = write();
    advance(900);
    expect(events).toEqual([]);
    advance(350); // checked every quarter of the limit: reported at the first check past it
    expect(events).toEqual(['stall 1000']);
    write(); // later writes queue behind it; still one report
    advance(5000);
    expect(events).toEqual(['stall 1000']);
    stuck.answer();
    await settle();
    // The write queued behind it has waited past the limit too: still stalled.
    expect(events).toEqual(['stall 1000']);
  });

  it('resumes when every write that waited too long has answered, failed ones included', async () => {
    const { events, advance, settle, write } = setup();
    const first = write();
    const second = write();
    advance(1500);
    first.refuse(new Error('QuotaExceededError'));
    await first.promise.catch(() => undefined);
    await settle();
    expect(events).toEqual(['stall 1000']);
    second.answer();
    await settle();
    expect(events).toEqual(['stall 1000', 'resume']);
    const third = write();
    advance(400);
    third.answer();
    await settle();
    expect(events).toEqual(['stall 1000', 'resume']);
  });

  it('hands each write back unchanged', async () => {
    const { watch } = setup();
    await expect(watch.track(Promise.resolve(42))).resolves.toBe(42);
    await expect(watch.track(Promise.reject(new Error('refused')))).rejects.toThrow('refused');
  });

  it('stops ticking when closed', () => {
    const { watch, events, advance, write, timers } = setup();
    write();
    watch.close();
    advance(5000);
    expect(events).toEqual([]);
    expect(timers()).toEqual([]);
  });
});
