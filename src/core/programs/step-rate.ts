/**
 * Steps per second of a model loop, from its progress reports.
 *
 * Idea: a loop reports "done of total" as it goes; the rate a person wants
 * to see is how fast it goes *now*, so it is measured over a sliding window
 * of recent reports (the first and last report in the window), not since the
 * start — a loop that slowed down shows it within a window. A report with
 * fewer steps done than the one before means the loop started over (a retry
 * on another backend, a second request), and the window starts again.
 * Trade-off: reports arrive thinned (a few a second), so the rate is known
 * only once a window holds two reports that are apart in time.
 */

/** One progress report: steps done at a time in milliseconds. */
interface Sample {
  readonly at: number;
  readonly done: number;
}

/** A sliding-window rate over progress reports; see the module comment. */
export class StepRate {
  private samples: Sample[] = [];

  /** @param windowMs how far back the rate looks; default 2 s. */
  constructor(private readonly windowMs = 2_000) {}

  /** Adds a report and returns the rate in steps per second, or null until it is known. */
  report(done: number, at: number): number | null {
    const last = this.samples.at(-1);
    if (last !== undefined && (done < last.done || at < last.at)) this.samples = [];
    this.samples.push({ at, done });
    // Keep the newest report older than the window: the rate spans the whole window.
    while (this.samples.length > 2 && this.samples[1]!.at <= at - this.windowMs)
      this.samples.shift();
    const first = this.samples[0]!;
    const seconds = (at - first.at) / 1000;
    return seconds > 0 ? (done - first.done) / seconds : null;
  }
}
