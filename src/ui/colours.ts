/**
 * The colour of each port type (a node's handles) and of each node category
 * (the palette's chips), as tables keyed by the catalog's own unions: a new
 * port type or category does not compile until it has a colour here.
 *
 * The tables become CSS in this one place, as the `fb-type-<type>` and
 * `fb-cat-<category>` classes the components already put on their elements.
 * The component that uses them renders the rules once as a `<style>` that
 * React hoists into the head (`<style href precedence>`). React puts it
 * before the bundled stylesheets, so each rule wins by weight, not by order:
 * `!important` over React Flow's handle background, two classes over the
 * chip's grey `.fb-cat`.
 */
import type { NodeCategory } from '../core/catalog/kind';
import type { PortType } from '../core/catalog/ports';

/** The fill of a handle of each port type. */
export const portTypeColour: Record<PortType, string> = {
  number: '#1565c0',
  dataset: '#00796b',
  model: '#6a1b9a',
  tensor: '#ef6c00',
  text: '#5d4037',
  environment: '#2e7d32',
  live: '#c2185b',
  windows: '#455a64',
};

/**
 * The background of a node category's chip in the palette, under white
 * text: each dark enough for a contrast of at least 4.5:1 (WCAG AA for the
 * chip's small text).
 */
export const nodeCategoryColour: Record<NodeCategory, string> = {
  data: '#00796b',
  model: '#6a1b9a',
  train: '#1565c0',
  eval: '#b84d00',
  metric: '#5d4037',
};

function rules<K extends string>(
  colours: Record<K, string>,
  rule: (key: K, colour: string) => string,
): string {
  return (Object.entries(colours) as [K, string][]).map(([k, c]) => rule(k, c)).join('\n');
}

/** One `.fb-type-<type>` rule per port type: the handle's fill. */
export const portTypeRules = rules(
  portTypeColour,
  (type, colour) => `.fb-type-${type} { background: ${colour} !important; }`,
);

/** One `.fb-cat.fb-cat-<category>` rule per node category: the chip's background. */
export const nodeCategoryRules = rules(
  nodeCategoryColour,
  (category, colour) => `.fb-cat.fb-cat-${category} { background: ${colour}; }`,
);
