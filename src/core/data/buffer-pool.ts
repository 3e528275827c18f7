/**
 * Buffers a producer gets back and writes its next episodes into. Fresh
 * memory is not free: the first write to each page of it makes the OS find
 * and zero a page, and a producer that sends every batch away (transferred
 * to the engine) would pay that for every page of every batch, which costs
 * it a large share of its speed where page faults are dear (virtual
 * machines). A buffer that comes back is already mapped, so a producer in a
 * steady state writes only into memory it has written before. The trade-off
 * is memory held in reserve: at most `maxBuffers`.
 */
export class BufferPool {
  private readonly free: ArrayBuffer[] = [];

  constructor(
    /** Buffers kept at most; one given back past that replaces the oldest. */
    readonly maxBuffers = 24,
  ) {}

  /** Buffers held now. */
  get size(): number {
    return this.free.length;
  }

  /**
   * A buffer of at least `byteLength` bytes, and not more than twice that
   * (so a small batch does not tie up a big buffer): a held one when one
   * fits, else a new one. Its contents are whatever it held last.
   */
  take(byteLength: number): ArrayBuffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const size = this.free[i]!.byteLength;
      if (size < byteLength || size > 2 * byteLength) continue;
      if (best < 0 || size < this.free[best]!.byteLength) best = i;
    }
    if (best < 0) return new ArrayBuffer(byteLength);
    return this.free.splice(best, 1)[0]!;
  }

  /** Keep `buffers` for later batches; empty (detached) ones are dropped. */
  give(buffers: Iterable<ArrayBuffer>): void {
    for (const buffer of buffers) {
      if (buffer.byteLength === 0) continue;
      this.free.push(buffer);
      if (this.free.length > this.maxBuffers) this.free.shift();
    }
  }
}
