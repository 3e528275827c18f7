/**
 * Reads that keep up with a busy writer.
 *
 * A Dexie live query throws its result away whenever a write touching what
 * it read commits while it reads, and reads again: while a run flushes
 * points faster than a multi-step read finishes (a slow or loaded machine),
 * such a query never delivers. So the live queries of the run views watch
 * something a single cursor step reads, and the real read runs outside
 * them, here: it is never thrown away, a change that lands during a read
 * asks for one more read after it, and every read that ends shows what it
 * read.
 */

/**
 * `read` now, or once more right after the read in progress: calls during a
 * read are coalesced into one, never lost, never overlapping.
 */
export function coalesced(read: () => Promise<void>, closed: () => boolean): () => Promise<void> {
  let reading = false;
  // Bumped by every call; a read covers the calls made before it began.
  let calls = 0;
  return async () => {
    calls++;
    if (reading) return;
    reading = true;
    try {
      let covered: number;
      do {
        covered = calls;
        await read();
      } while (covered !== calls && !closed());
    } finally {
      reading = false;
    }
  };
}
