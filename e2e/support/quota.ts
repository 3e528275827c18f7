/**
 * The origin's storage quota, forced small through the DevTools protocol, as
 * a full disk would leave it. Chromium then refuses the app's own IndexedDB
 * writes for real: a transaction that no longer fits aborts at commit with a
 * QuotaExceededError (Dexie reports it as an AbortError around it).
 *
 * Chromium checks a write against a cached figure of the room left, which
 * fades to nothing over 30 s; only a write bigger than what is left of it
 * makes Chromium ask the quota again. So a quota forced while the app is open
 * takes effect up to 30 s later, unless the figure was bounded before the app
 * first wrote (`bound`) and a write of that much is then tried (`enforce`);
 * lifting it takes effect at the next write.
 */
import type { CDPSession, Page } from '@playwright/test';

export class StorageQuota {
  private constructor(
    private readonly page: Page,
    private readonly cdp: CDPSession,
    private readonly origin: string,
  ) {}

  /** The room `bound` gave the origin before it first wrote, if it did. */
  private room: number | null = null;

  /** The quota of the origin `page` is open on, or of `origin` (a page not yet there). */
  static async of(page: Page, origin = new URL(page.url()).origin): Promise<StorageQuota> {
    const cdp = await page.context().newCDPSession(page);
    return new StorageQuota(page, cdp, origin);
  }

  /**
   * Before the origin first writes: give it `room` bytes, so that Chromium's
   * cached figure of the room left can never be more (`enforce` relies on it).
   */
  async bound(room: number): Promise<void> {
    await this.force(room);
    this.room = room;
  }

  /**
   * After `force`, make it bite now rather than when Chromium's cached figure
   * fades: try one write of the room `bound` gave (more than the figure can
   * hold), in a database of its own, which makes Chromium ask the quota anew.
   * The write is refused, and so is every write after it while the quota
   * stays forced.
   */
  async enforce(): Promise<void> {
    const room = this.room;
    if (room === null)
      throw new Error('enforce needs the room bound before the origin first wrote');
    const refused = await this.page.evaluate(
      (bytes) =>
        new Promise<string>((resolve) => {
          const open = indexedDB.open('quota-probe');
          open.onupgradeneeded = () => open.result.createObjectStore('bytes');
          open.onerror = () => resolve(open.error?.name ?? 'error');
          open.onsuccess = () => {
            const db = open.result;
            const tx = db.transaction('bytes', 'readwrite');
            tx.objectStore('bytes').put(new Uint8Array(bytes), 'room');
            const end = (result: string) => {
              db.close();
              resolve(result);
            };
            tx.oncomplete = () => end('written');
            tx.onabort = () => end(tx.error?.name ?? 'aborted');
          };
        }),
      room,
    );
    if (refused === 'written')
      throw new Error(`a write of ${room} bytes still fitted: the quota was not enforced`);
  }

  /** Bytes the origin uses now, as the page's `navigator.storage.estimate()` reports them. */
  async usage(): Promise<number> {
    const { usage } = await this.page.evaluate(() => navigator.storage.estimate());
    if (usage === undefined) throw new Error('navigator.storage.estimate() gave no usage');
    return usage;
  }

  /** Give the origin no more than `bytes` of storage. */
  async force(bytes: number): Promise<void> {
    await this.cdp.send('Storage.overrideQuotaForOrigin', {
      origin: this.origin,
      quotaSize: bytes,
    });
  }

  /** Give the origin its ordinary quota back. */
  async lift(): Promise<void> {
    await this.cdp.send('Storage.overrideQuotaForOrigin', { origin: this.origin });
  }
}
