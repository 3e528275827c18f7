/** `Export metrics (CSV)` / `(JSON)` in the Runs toolbar: every metric of the picked runs in long format. */
import type { Locator, Page } from '@playwright/test';
import {
  downloadJson,
  downloadText,
  type DownloadedJson,
  type DownloadedText,
} from '../support/files';

/** A row of the JSON export. */
export interface LongRow {
  run: string;
  metric: string;
  step: number;
  value: number | null;
  wall_time: number;
  nonfinite?: string;
}

export class MetricsExport {
  readonly csvButton: Locator;
  readonly jsonButton: Locator;

  constructor(private readonly page: Page) {
    this.csvButton = page.getByRole('button', { name: 'Export metrics (CSV)' });
    this.jsonButton = page.getByRole('button', { name: 'Export metrics (JSON)' });
  }

  async csv(): Promise<DownloadedText> {
    return downloadText(this.page, () => this.csvButton.click());
  }

  async json(): Promise<DownloadedJson<{ format: string; rows: LongRow[] }>> {
    return downloadJson(this.page, () => this.jsonButton.click());
  }
}
