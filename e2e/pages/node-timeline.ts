/** The selected run's `Node timeline`: a lane per node, its bar in its status's colour; hovering shows its timings. */
import type { Locator, Page } from '@playwright/test';

export class NodeTimeline {
  readonly root: Locator;
  /** Every lane (an image `Timeline of <node>`), in the order the nodes started. */
  readonly lanes: Locator;
  /** What hovering or focusing a lane shows: `train · ok · started +… · took …`. */
  readonly tooltip: Locator;

  constructor(private readonly page: Page) {
    this.root = page
      .getByRole('region', { name: 'Run', exact: true })
      .getByRole('region', { name: 'Node timeline' });
    this.lanes = this.root.getByRole('img', { name: /^Timeline of / });
    this.tooltip = this.root.getByRole('tooltip');
  }

  lane(node: string): Locator {
    return this.root.getByRole('img', { name: `Timeline of ${node}`, exact: true });
  }

  /** The node each lane is of, top to bottom. */
  async order(): Promise<string[]> {
    const names = await this.lanes.evaluateAll((lanes) =>
      lanes.map((lane) => lane.getAttribute('aria-label') ?? ''),
    );
    return names.map((name) => name.replace(/^Timeline of /, ''));
  }

  async hover(node: string): Promise<void> {
    await this.lane(node).hover();
  }

  /** The duration badge a canvas node shows once the shown run's node finished. */
  canvasDuration(node: string): Locator {
    return this.page.getByTestId(`node-${node}`).getByTitle('How long it ran');
  }
}
