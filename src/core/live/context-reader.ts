/**
 * A consumer's side of a live source: batches of context windows, drawn
 * under a flow controller. With a plan, the controller funds the plan's
 * batches and paces them; the reader asks it to prepare one whenever the
 * chunks it funded are used up, so a consumer's own batch size need not
 * equal the plan's (the plan counts chunks, not steps). Without a plan the
 * controller only polls, so the reader itself requests a refill whenever the
 * cache cannot fill its next batch. With the `auto` refill policy the engine
 * refills itself and there is no controller (it requires `manual`): the
 * reader waits for each window with the same bounded wait the controller
 * uses, recorded the same way.
 *
 * `next` returns null once no complete batch will ever come again (the
 * production ceiling is reached and what is left cannot fill one); a partial
 * batch is dropped, since training on it would weight its windows more.
 */
import type { ContextChunk } from '../data/episode';
import { FlowController } from '../data/flow-controller';
import { waitBounded } from '../data/wait';
import { createRandom, type Random } from '../random';
import type { ContextWindows } from './live-source';
import { FlowbenchError, isFlowbenchError, isTransient } from '../errors';

export class ContextReader {
  private readonly controller: FlowController | null;
  private readonly random: Random;
  /** Chunks the last prepared batch funded that are not sampled yet. */
  private funded = 0;

  constructor(
    private readonly windows: ContextWindows,
    private readonly signal: AbortSignal,
  ) {
    const { engine, clock, telemetry } = windows.source;
    this.random = createRandom(windows.seed);
    this.controller =
      engine.config.refill_policy === 'manual'
        ? new FlowController({ engine, clock, telemetry, random: this.random, signal })
        : null;
  }

  /** The next batch of windows, or null when none will ever be complete again. */
  async next(): Promise<ContextChunk[] | null> {
    const chunks: ContextChunk[] = [];
    while (chunks.length < this.windows.batchSize) {
      const chunk = this.controller
        ? await this.nextControlled(this.controller, this.windows.batchSize - chunks.length)
        : await this.nextAuto();
      if (!chunk) return null;
      chunks.push(chunk);
    }
    this.windows.source.telemetry.consumed();
    return chunks;
  }

  private async nextControlled(
    controller: FlowController,
    wanted: number,
  ): Promise<ContextChunk | null> {
    const { engine } = this.windows.source;
    const plan = engine.config.plan;
    if (this.funded === 0) {
      if (!plan && engine.cache.unlockedRemainingChunks() < wanted) engine.requestRefill();
      if (!(await controller.prepareBatch())) return null;
      this.funded = plan ? plan.batch_size : 1;
    }
    this.funded--;
    return controller.sampleContext(this.windows.window);
  }

  private async nextAuto(): Promise<ContextChunk | null> {
    const { engine, clock, telemetry } = this.windows.source;
    const { data_wait_timeout, poll_interval } = engine.config.controller;
    try {
      return await waitBounded({
        kind: 'data_wait',
        until: clock.now() + data_wait_timeout * 1000,
        pollMs: poll_interval * 1000,
        look: () => {
          try {
            return engine.serve(this.random, this.windows.window);
          } catch (error) {
            if (isTransient(error)) return undefined;
            throw error;
          }
        },
        timeout: (waited) =>
          new FlowbenchError('data-wait-timeout', {
            problem: `No context window after ${(waited / 1000).toFixed(3)} s (data_wait_timeout): the cache has no unlocked chunks${engine.pendingGeneration === null ? '' : ` and generation ${engine.pendingGeneration} is still being produced`}`,
          }),
        clock,
        telemetry,
        signal: this.signal,
      });
    } catch (error) {
      if (isFlowbenchError(error, 'data-exhausted')) return null;
      throw error;
    }
  }
}
