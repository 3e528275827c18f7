import { describe, expect, it } from 'vitest';
import { filesKept, keepFile } from './file-keeps';

/** A promise this test settles when it likes. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe('file keeps', () => {
  it('a run waits for every file still being kept, then goes on', async () => {
    const first = deferred();
    const second = deferred();
    void keepFile(first.promise);
    void keepFile(second.promise);
    let ran = false;
    const run = filesKept().then(() => (ran = true));
    first.resolve();
    await first.promise;
    await Promise.resolve();
    expect(ran).toBe(false);
    second.resolve();
    await run;
    expect(ran).toBe(true);
  });

  it('a keep that fails ends the wait too, and its failure stays with its caller', async () => {
    const failing = deferred();
    const kept = keepFile(failing.promise);
    const run = filesKept();
    failing.reject(new Error('quota'));
    await expect(kept).rejects.toThrow('quota');
    await expect(run).resolves.toBeUndefined();
  });

  it('a file picked while a run waits is waited for as well', async () => {
    const first = deferred();
    const later = deferred();
    void keepFile(first.promise);
    let ran = false;
    const run = filesKept().then(() => (ran = true));
    void keepFile(later.promise);
    first.resolve();
    await first.promise;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(ran).toBe(false);
    later.resolve();
    await run;
    expect(ran).toBe(true);
  });

  it('with nothing being kept, a run goes at once', async () => {
    await expect(filesKept()).resolves.toBeUndefined();
  });
});
