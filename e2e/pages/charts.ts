/**
 * The selected run's charts: the shared controls (Smoothing, Y axis, X axis,
 * Ignore outliers, Group by, Compare sweep), and per metric the chart (role
 * `img`, `Chart: <metric>`), its legend (`Legend: <metric>`) and downloads.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import {
  downloadJson,
  downloadText,
  type DownloadedJson,
  type DownloadedText,
} from '../support/files';

/** A chart's JSON download (`flowbench.chart/1`): one series per run, `[x, y]` points. */
export interface ChartFile {
  format: string;
  metric: string;
  x: string;
  series: { label: string; run?: string; points: [number, number | null, string?][] }[];
}

/**
 * What the plot's canvas shows: its image, how many of its pixels are painted
 * (not transparent), and how many are in each colour asked about.
 */
export interface ChartPicture {
  image: string;
  painted: number;
  inColour: number[];
}

export class Charts {
  readonly root: Locator;
  readonly smoothing: Locator;
  readonly yAxis: Locator;
  readonly xAxis: Locator;
  /** The x axis's scale, `linear` or `log` (step and relative time). */
  readonly xScale: Locator;
  readonly ignoreOutliers: Locator;
  readonly groupBy: Locator;
  /** `Compare sweep (n runs)`: picks every run of the selected run's sweep. */
  readonly compareSweepButton: Locator;

  constructor(private readonly page: Page) {
    this.root = page.getByRole('region', { name: 'Charts', exact: true });
    this.smoothing = this.root.getByLabel('Smoothing');
    this.yAxis = this.root.getByLabel('Y axis');
    this.xAxis = this.root.getByLabel('X axis');
    this.xScale = this.root.getByLabel('X scale');
    this.ignoreOutliers = this.root.getByLabel('Ignore outliers');
    this.groupBy = this.root.getByLabel('Group by');
    this.compareSweepButton = this.root.getByRole('button', { name: /^Compare sweep\b/ });
  }

  /** The chart of `metric`: role `img`, named exactly `Chart: <metric>`. */
  chart(metric: string): Locator {
    return this.page.getByRole('img', { name: `Chart: ${metric}`, exact: true });
  }

  /**
   * The lane of one kind of wait (`data_wait` …) under the loss: role `img`
   * named `Timeline: <kind>`, described by its count and total wait, with
   * `data-intervals` counting its bars.
   */
  timeline(kind: string): Locator {
    return this.page.getByRole('img', { name: `Timeline: ${kind}`, exact: true });
  }

  /** Every timeline lane shown, one per kind of wait. */
  timelines(): Locator {
    return this.page.getByRole('img', { name: /^Timeline: / });
  }

  /** The list named `Legend: <metric>`. */
  legend(metric: string): Locator {
    return this.page.getByRole('list', { name: `Legend: ${metric}`, exact: true });
  }

  /** One legend entry per run (or group) drawn. */
  legendEntries(metric: string): Locator {
    return this.legend(metric).getByRole('listitem');
  }

  /**
   * Wait, inside the page, until the chart of `metric` counts `points`: one
   * attribute read per frame, where polling a role locator from the test
   * would run accessibility queries on the page's main thread while it is
   * being measured.
   */
  async waitForPointsInPage(metric: string, points: number): Promise<void> {
    await this.page.waitForFunction(
      ([name, count]) =>
        document
          .querySelector(`[role="img"][aria-label="Chart: ${name}"]`)
          ?.getAttribute('data-points') === count,
      [metric, String(points)] as const,
      { polling: 'raf', timeout: 60_000 },
    );
  }

  /** Set the smoothing weight (0 to 0.99) on its slider. */
  async setSmoothing(weight: number): Promise<void> {
    await this.smoothing.fill(String(weight));
  }

  async setYAxis(scale: 'linear' | 'log'): Promise<void> {
    await this.yAxis.selectOption(scale);
  }

  /** The colour of each legend entry's swatch, as `rgb(r, g, b)`, in legend order. */
  async legendColours(metric: string): Promise<string[]> {
    return this.legendEntries(metric)
      .locator('.fb-chart__swatch')
      .evaluateAll((swatches) => swatches.map((s) => getComputedStyle(s).backgroundColor));
  }

  /**
   * The plot's canvas as drawn now: its PNG data URL, its count of painted
   * pixels, and its count of pixels in each of `colours` (`rgb(r, g, b)`), to
   * tell a drawn curve from a blank plot and one drawing from another.
   */
  async picture(metric: string, colours: readonly string[] = []): Promise<ChartPicture> {
    return this.chart(metric)
      .locator('canvas')
      .first()
      .evaluate(
        (canvas: HTMLCanvasElement, wanted: string[]) => {
          const ctx = canvas.getContext('2d');
          if (!ctx) throw new Error('the chart has no 2d canvas');
          const rgb = wanted.map((c) => (c.match(/\d+/g) ?? []).map(Number));
          const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
          let painted = 0;
          const inColour = wanted.map(() => 0);
          for (let i = 0; i < data.length; i += 4) {
            if (data[i + 3]! === 0) continue;
            painted++;
            rgb.forEach(([r = -1, g = -1, b = -1], k) => {
              const near =
                Math.abs(data[i]! - r) + Math.abs(data[i + 1]! - g) + Math.abs(data[i + 2]! - b);
              if (near <= 24 && data[i + 3]! > 200) inColour[k]!++;
            });
          }
          return { image: canvas.toDataURL('image/png'), painted, inColour };
        },
        [...colours],
      );
  }

  /**
   * Wait until every curve of the chart is drawn: each legend colour has
   * pixels on the canvas. Returns the picture.
   */
  async expectDrawn(metric: string): Promise<ChartPicture> {
    await expect(this.chart(metric).locator('canvas').first()).toBeVisible();
    const colours = await this.legendColours(metric);
    expect(colours.length, `${metric}'s legend has entries`).toBeGreaterThan(0);
    await expect
      .poll(async () => Math.min(...(await this.picture(metric, colours)).inColour), {
        message: `every curve of ${metric} is drawn in its legend colour`,
      })
      .toBeGreaterThan(0);
    return this.picture(metric, colours);
  }

  /** `Download CSV of <metric>`: the file's name and text. */
  async downloadCsv(metric: string): Promise<DownloadedText> {
    return downloadText(this.page, () =>
      this.page.getByRole('button', { name: `Download CSV of ${metric}`, exact: true }).click(),
    );
  }

  /** `Download JSON of <metric>`. */
  async downloadJson(metric: string): Promise<DownloadedJson<ChartFile>> {
    return downloadJson<ChartFile>(this.page, () =>
      this.page.getByRole('button', { name: `Download JSON of ${metric}`, exact: true }).click(),
    );
  }
}
