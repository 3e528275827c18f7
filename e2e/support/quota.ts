/**
 * The origin's storage quota, forced small through the DevTools protocol, as
 * a full disk would leave it. Chromium then refuses the app's own IndexedDB
 * writes for real: a transaction that no longer fits aborts at commit with a
 * QuotaExceededError (Dexie reports it as an AbortError around it).
 *
 * Chromium checks a write against a cached figure of the room left, which
 * fades to nothing within seconds, so a quota forced while the app is open
 * takes effect a few seconds later; lifting it takes effect at the next write.
 */
import type { CDPSession, Page } from '@playwright/test';

export class StorageQuota {
  private constructor(
    private readonly page: Page,
    private readonly cdp: CDPSession,
    private readonly origin: string,
  ) {}

  /** The quota of the origin `page` is open on. */
  static async of(page: Page): Promise<StorageQuota> {
    const cdp = await page.context().newCDPSession(page);
    return new StorageQuota(page, cdp, new URL(page.url()).origin);
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
