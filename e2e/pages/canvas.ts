/** The flow canvas (React Flow): nodes with their ports, edges, minimap, pan/zoom controls. */
import { expect, type Locator, type Page } from '@playwright/test';

export type Box = { x: number; y: number; width: number; height: number };

function centre(box: Box): { x: number; y: number } {
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** `node.port` → its parts. */
function portRef(ref: string): { node: string; port: string } {
  const dot = ref.indexOf('.');
  return { node: ref.slice(0, dot), port: ref.slice(dot + 1) };
}

export class Canvas {
  readonly root: Locator;
  /** Every flow node drawn on the canvas. */
  readonly nodes: Locator;
  readonly edges: Locator;
  readonly minimap: Locator;
  readonly zoomInButton: Locator;
  readonly zoomOutButton: Locator;
  readonly fitViewButton: Locator;
  /** The far view: zoomed out, the cards are drawn on this one canvas. */
  readonly farView: Locator;
  private readonly viewport: Locator;

  constructor(private readonly page: Page) {
    this.root = page.getByRole('main').getByRole('application');
    this.nodes = this.root.locator('[data-testid^="node-"]');
    this.edges = this.root.locator('.react-flow__edge');
    this.minimap = this.root.getByRole('img', { name: 'Mini map' });
    this.zoomInButton = this.root.getByRole('button', { name: 'Zoom In' });
    this.zoomOutButton = this.root.getByRole('button', { name: 'Zoom Out' });
    this.fitViewButton = this.root.getByRole('button', { name: 'Fit View' });
    this.viewport = this.root.locator('.react-flow__viewport');
    this.farView = this.root.locator('canvas.fb-far-view');
  }

  /** The far view's colour at page point (`x`, `y`), as RGBA bytes. */
  async farViewPixel(x: number, y: number): Promise<number[]> {
    return this.farView.evaluate(
      (canvas: HTMLCanvasElement, at) => {
        const box = canvas.getBoundingClientRect();
        const scale = canvas.width / box.width;
        const [px, py] = [(at.x - box.left) * scale, (at.y - box.top) * scale].map(Math.round);
        return [...canvas.getContext('2d')!.getImageData(px!, py!, 1, 1).data];
      },
      { x, y },
    );
  }

  node(id: string): Locator {
    return this.page.getByTestId(`node-${id}`);
  }

  /** The edge `from` → `to`, both `node.port`. */
  edge(from: string, to: string): Locator {
    return this.root.locator(`.react-flow__edge[data-id="${from}->${to}"]`);
  }

  /** A port's handle: `node.port`, on the output (source) or input (target) side. */
  handle(ref: string, side: 'output' | 'input'): Locator {
    const { node, port } = portRef(ref);
    const type = side === 'output' ? 'source' : 'target';
    return this.root.locator(
      `.react-flow__handle.${type}[data-nodeid="${node}"][data-handleid="${port}"]`,
    );
  }

  /** The pan offset and zoom of the view, from React Flow's viewport transform. */
  async view(): Promise<{ x: number; y: number; zoom: number }> {
    const transform = await this.viewport.evaluate((el) => getComputedStyle(el).transform);
    const m = /matrix\(([^)]+)\)/.exec(transform);
    const [a = 1, , , , e = 0, f = 0] = m?.[1]?.split(',').map(Number) ?? [];
    return { x: e, y: f, zoom: a };
  }

  private async boxOf(locator: Locator): Promise<Box> {
    const box = await locator.boundingBox();
    if (!box) throw new Error(`${locator.toString()} is not on screen`);
    return box;
  }

  /** Click a node's title bar: React Flow selects it (and the inspector shows it). */
  async select(id: string): Promise<void> {
    await this.node(id).click({ position: { x: 12, y: 8 } });
  }

  /** Select several nodes: click the first, Ctrl+click the others (React Flow's multi-select key off macOS). */
  async selectMany(ids: readonly string[]): Promise<void> {
    const [first, ...others] = ids;
    if (first === undefined) return;
    await this.select(first);
    for (const id of others)
      await this.node(id).click({ position: { x: 12, y: 8 }, modifiers: ['Control'] });
    for (const id of ids) await expect(this.node(id).locator('..')).toHaveClass(/\bselected\b/);
  }

  /** Click the empty pane near the canvas's top-left corner: clears the selection and leaves any field. */
  async clickPane(): Promise<void> {
    await this.root.locator('.react-flow__pane').click({ position: { x: 8, y: 8 } });
  }

  /** Where node `id` is drawn now, in whole screen pixels. */
  async position(id: string): Promise<{ x: number; y: number }> {
    const box = await this.boxOf(this.node(id));
    return { x: Math.round(box.x), y: Math.round(box.y) };
  }

  /** Drag a node by its title bar by (dx, dy) screen pixels. */
  async dragNodeBy(id: string, dx: number, dy: number): Promise<void> {
    const box = await this.boxOf(this.node(id));
    const from = { x: box.x + 12, y: box.y + 8 };
    await this.page.mouse.move(from.x, from.y);
    await this.page.mouse.down();
    await this.page.mouse.move(from.x + dx, from.y + dy, { steps: 12 });
    await this.page.mouse.up();
  }

  /** Whether `id` is drawn clear of every other node (so its ports can be reached). */
  async isClear(id: string): Promise<boolean> {
    const box = await this.boxOf(this.node(id));
    for (const other of await this.nodes.all()) {
      if ((await other.getAttribute('data-testid')) === `node-${id}`) continue;
      if (overlaps(box, await this.boxOf(other))) return false;
    }
    return true;
  }

  /** Whether node `id` is drawn wholly inside the canvas. */
  async shows(id: string): Promise<boolean> {
    const node = await this.boxOf(this.node(id));
    const view = await this.boxOf(this.root);
    return (
      node.x >= view.x &&
      node.y >= view.y &&
      node.x + node.width <= view.x + view.width &&
      node.y + node.height <= view.y + view.height
    );
  }

  /**
   * A point of the canvas where the empty pane itself takes the pointer (not
   * a node, an edge or a panel drawn over it), searched from the top left.
   */
  async emptyPoint(): Promise<{ x: number; y: number }> {
    const point = await this.root.evaluate((root) => {
      const box = root.getBoundingClientRect();
      for (let y = box.top + 20; y < box.bottom - 20; y += 20)
        for (let x = box.left + 20; x < box.right - 20; x += 20)
          if (document.elementFromPoint(x, y)?.classList.contains('react-flow__pane'))
            return { x, y };
      return null;
    });
    if (!point) throw new Error('the canvas has no empty pane on screen');
    return point;
  }

  /** Pan by dragging the empty pane from `at` (a point inside the canvas) by (dx, dy). */
  async panBy(at: { x: number; y: number }, dx: number, dy: number): Promise<void> {
    await this.page.mouse.move(at.x, at.y);
    await this.page.mouse.down();
    await this.page.mouse.move(at.x + dx, at.y + dy, { steps: 8 });
    await this.page.mouse.up();
  }

  /**
   * Draw a connection as a person does: press on the output handle, drag to
   * the input handle, release. Returns what the canvas said about the drop
   * while hovering the target: `valid` or `invalid` (React Flow's connection
   * line status), so a caller knows the drop landed on the port.
   */
  async connect(from: string, to: string): Promise<'valid' | 'invalid'> {
    const source = centre(await this.boxOf(this.handle(from, 'output')));
    const target = centre(await this.boxOf(this.handle(to, 'input')));
    const line = this.root.locator('.react-flow__connection');
    await this.page.mouse.move(source.x, source.y);
    await this.page.mouse.down();
    await this.page.mouse.move((source.x + target.x) / 2, (source.y + target.y) / 2, { steps: 8 });
    await this.page.mouse.move(target.x, target.y, { steps: 8 });
    await expect(line).toHaveClass(/\b(valid|invalid)\b/);
    const status = (await line.getAttribute('class'))?.includes('invalid') ? 'invalid' : 'valid';
    await this.page.mouse.up();
    await expect(line).toHaveCount(0);
    return status;
  }

  /** Open node `id`'s context menu and pick `item` (e.g. `Run to here`). */
  async menu(id: string, item: string): Promise<void> {
    await this.node(id).click({ button: 'right' });
    await this.page.getByRole('menuitem', { name: item }).click();
  }

  /** Wait until every node listed shows `status`. */
  async expectStatus(ids: readonly string[], status: string): Promise<void> {
    for (const id of ids) await expect(this.node(id)).toHaveAttribute('data-status', status);
  }
}
