/** The `Runs` table and the selected run's panel: status, charts, Export run, Re-run. */
import { expect, type Locator, type Page } from '@playwright/test';
import { downloadJson, downloadsOf, type DownloadedJson } from '../support/files';
import { readStoredRuns } from '../support/stored';
import type { RunFile } from '../support/formats';

export class Runs {
  readonly table: Locator;
  /** One row per run, newest first (the header row and the empty-table note excluded). */
  readonly rows: Locator;
  /** The note the table shows while it has no runs. */
  readonly emptyNote: Locator;
  /** The selected run's panel. */
  readonly detail: Locator;
  readonly exportButton: Locator;
  readonly rerunButton: Locator;
  /** The selected run's params: every value it ran with (`lr=0.1 steps=10 seed=0`). */
  readonly detailParams: Locator;
  /** The selected run's re-run comparison: `Compared with run …`, one line per metric. */
  readonly comparison: Locator;
  /** Above the table: text filter, status filter, sort, and actions on the picked runs. */
  readonly filterInput: Locator;
  readonly statusFilter: Locator;
  readonly sortSelect: Locator;
  readonly exportPickedButton: Locator;
  readonly deletePickedButton: Locator;
  /** The header's checkbox: picks (or unpicks) every run the table shows. */
  readonly pickAllShown: Locator;
  /** The `Delete n runs?` confirmation. */
  readonly deleteDialog: Locator;
  /** The line about this browser's storage: persistent or not, used of available. */
  readonly storage: Locator;
  /** `1,000 runs`, or `1,000 runs · 12 shown` while a filter is on (rows out of view are not in the page). */
  readonly count: Locator;
  /** The id of the run the panel shows (the heading's `Run <id tail>`, full id as its title). */
  readonly detailId: Locator;
  /** The node-output cache's line (`Node cache: n entries · size`) and `Clear cache`. */
  readonly cache: Locator;
  readonly clearCacheButton: Locator;

  constructor(private readonly page: Page) {
    this.table = page.getByRole('table', { name: 'Runs' });
    const note = page.getByRole('cell', { name: /^No runs yet/ });
    this.emptyNote = this.table.getByRole('row').locator(note);
    this.rows = this.table
      .getByRole('row')
      .filter({ has: page.getByRole('cell') })
      .filter({ hasNot: note });
    this.detail = page.getByRole('region', { name: 'Run', exact: true });
    this.exportButton = this.detail.getByRole('button', { name: 'Export run' });
    this.rerunButton = this.detail.getByRole('button', { name: 'Re-run' });
    this.detailParams = this.detail.getByTestId('run-params');
    this.comparison = this.detail.getByRole('region', { name: 'Re-run comparison' });
    this.filterInput = page.getByRole('searchbox', { name: 'Filter runs' });
    this.statusFilter = page.getByRole('combobox', { name: 'Status', exact: true });
    this.sortSelect = page.getByRole('combobox', { name: 'Sort by', exact: true });
    this.exportPickedButton = page.getByRole('button', { name: 'Export picked' });
    this.deletePickedButton = page.getByRole('button', { name: 'Delete picked' });
    this.pickAllShown = this.table.getByRole('checkbox', { name: 'Pick all shown' });
    this.deleteDialog = page.getByRole('dialog', { name: /^Delete \d+ runs?\?$/ });
    this.storage = page.getByRole('status', { name: 'Storage' });
    this.count = page.getByRole('status', { name: 'Run count' });
    this.cache = page.getByRole('status', { name: 'Node cache' });
    this.clearCacheButton = page.getByRole('button', { name: 'Clear cache' });
    this.detailId = this.detail.getByRole('heading').locator('code[title]').first();
  }

  /** Scroll the table to its last row (only the rows in view are in the page). */
  async scrollToEnd(): Promise<void> {
    await this.table.evaluate((table) => {
      const scroller = table.closest('section');
      if (scroller) scroller.scrollTop = scroller.scrollHeight;
    });
  }

  /** The newest run's row. */
  get newest(): Locator {
    return this.rows.first();
  }

  /** The row of run `id` (the table shows the id's tail; the full id is the cell's title). */
  row(id: string): Locator {
    return this.rows.filter({ has: this.page.locator(`td[title="${id}"]`) });
  }

  /** The full id of the run in `row`. */
  async idOf(row: Locator): Promise<string> {
    const id = await row.locator('td[title]').first().getAttribute('title');
    if (!id) throw new Error('the row shows no run id');
    return id;
  }

  /** A row's `Group` cell: `sweep <id tail> · done/total` for a run of a sweep. */
  groupCell(row: Locator): Locator {
    return row.getByRole('cell', { name: /^sweep \S+ · \d+\/\d+$/ });
  }

  /** The `Params` cell of every row shown, in table order (`lr=0.1 steps=10 seed=0`). */
  get paramsCells(): Locator {
    return this.rows.getByRole('cell', { name: /(^| )seed=\S+$/ });
  }

  /** The cell that holds a row's status word, alone. */
  statusCell(row: Locator, status: string): Locator {
    return row.getByRole('cell', { name: status, exact: true });
  }

  /** Wait until a row shows `status`; `timeout` for runs known to be slow (WebGPU on a software adapter). */
  async expectStatus(row: Locator, status: string, options?: { timeout?: number }): Promise<void> {
    try {
      await expect(this.statusCell(row, status)).toBeVisible(options);
    } catch (error) {
      // Say what the run shows instead, so a failure read from a CI log explains itself.
      const shown = async (what: Locator) =>
        (await what.innerText({ timeout: 2_000 }).catch(() => '(not shown)')).replace(/\s+/g, ' ');
      throw new Error(
        `the run never showed '${status}'.\n  Its row: ${await shown(row)}\n` +
          `  The run panel: ${(await shown(this.detail)).slice(0, 2_000)}\n` +
          `  Stored: ${await this.storedRuns()}\n${String(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * Every run as IndexedDB holds it now (id tail, status, lease left, node
   * statuses), read past the app: tells a page that stopped updating from an
   * engine that stopped writing.
   */
  private async storedRuns(): Promise<string> {
    const described = readStoredRuns(this.page).then(({ now, runs, nodes }) =>
      runs
        .map((run) => {
          const lease = run.leaseUntil === null ? 'no lease' : `lease ${run.leaseUntil - now} ms`;
          const outcomes = nodes
            .filter((n) => n.runId === run.id)
            .map((n) => `${n.node} ${n.status}`)
            .join(', ');
          return `${run.id.slice(-8)} ${run.status} (${lease}; ${outcomes})`;
        })
        .join(' | '),
    );
    // A write transaction that never ends would hold this read too: say so instead of waiting.
    const waited = new Promise<string>((resolve) =>
      setTimeout(
        () => resolve('no answer from IndexedDB within 5 s (a transaction holds runs)'),
        5_000,
      ),
    );
    return Promise.race([described, waited]).catch(
      (error: unknown) => `unreadable: ${String(error)}`,
    );
  }

  async select(row: Locator): Promise<void> {
    await row.click();
    await expect(row).toHaveAttribute('aria-selected', 'true');
  }

  /** Type into the filter: rows must match every word (flow, status, `lr=0.1` …). */
  async filter(text: string): Promise<void> {
    await this.filterInput.fill(text);
  }

  async filterStatus(status: string): Promise<void> {
    await this.statusFilter.selectOption(status);
  }

  /** Sort by an option of `Sort by`, by its label (`param lr`, `result accuracy`, `started` …). */
  async sortBy(label: string): Promise<void> {
    await this.sortSelect.selectOption({ label });
  }

  /** Tick a row's checkbox (picking does not select). */
  async pick(row: Locator): Promise<void> {
    await row.getByRole('checkbox').check();
  }

  /** `Delete picked`, then confirm in the dialog. */
  async deletePicked(): Promise<void> {
    await this.deletePickedButton.click();
    await expect(this.deleteDialog).toBeVisible();
    await this.deleteDialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect(this.deleteDialog).toBeHidden();
  }

  /** `Export picked`: one `<id>.run.json` download per picked run. */
  async exportPicked(count: number): Promise<DownloadedJson<RunFile>[]> {
    return downloadsOf<RunFile>(this.page, count, () => this.exportPickedButton.click());
  }

  async rerun(): Promise<void> {
    await this.rerunButton.click();
  }

  /** A metric chart of the selected run. */
  chart(metric: string): Locator {
    return this.page.getByRole('img', { name: `Chart: ${metric}` });
  }

  /** How many points a chart holds now (0 while it is not drawn yet). */
  async chartPoints(metric: string): Promise<number> {
    const chart = this.chart(metric);
    if ((await chart.count()) === 0) return 0;
    return Number((await chart.getAttribute('data-points')) ?? 'NaN');
  }

  /** Export the selected run as a bundle; resolves with where the download was saved. */
  async exportBundle(): Promise<{ filename: string; path: string }> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.detail.getByRole('button', { name: 'Export bundle' }).click(),
    ]);
    return { filename: download.suggestedFilename(), path: await download.path() };
  }

  async exportRun(): Promise<DownloadedJson<RunFile>> {
    return downloadJson<RunFile>(this.page, () => this.exportButton.click());
  }
}
