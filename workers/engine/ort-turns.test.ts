import { describe, expect, it } from 'vitest';
import { inTurn } from './ort-turns';

/** A run that records when it starts and ends, and settles when told. */
function run(name: string, log: string[]) {
  let settle!: (fail: boolean) => void;
  const body = () =>
    new Promise<string>((resolve, reject) => {
      log.push(`${name} starts`);
      settle = (fail) => {
        log.push(`${name} ends`);
        if (fail) reject(new Error(`${name} failed`));
        else resolve(name);
      };
    });
  return { body, settle: (fail = false) => settle(fail) };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('runs on one onnxruntime module', () => {
  it('take turns: a run starts once the one before it has settled, failed or not', async () => {
    const module = {};
    const log: string[] = [];
    const a = run('a', log);
    const b = run('b', log);
    const c = run('c', log);
    const ran = [inTurn(module, a.body), inTurn(module, b.body), inTurn(module, c.body)];
    await turn();
    expect(log).toEqual(['a starts']);
    a.settle(true);
    await turn();
    expect(log).toEqual(['a starts', 'a ends', 'b starts']);
    b.settle();
    await turn();
    c.settle();
    const settled = await Promise.allSettled(ran);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(log).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
  });

  it('runs on another module do not wait', async () => {
    const log: string[] = [];
    const a = run('a', log);
    const b = run('b', log);
    const ran = [inTurn({}, a.body), inTurn({}, b.body)];
    await turn();
    expect(log).toEqual(['a starts', 'b starts']);
    a.settle();
    b.settle();
    expect(await Promise.all(ran)).toEqual(['a', 'b']);
  });
});
