import { describe, expect, it } from 'vitest';
import { nodeCategories } from '../core/catalog/kind';
import { portTypes } from '../core/catalog/ports';
import { nodeCategoryColour, nodeCategoryRules, portTypeColour, portTypeRules } from './colours';

/** WCAG's relative luminance of a `#rrggbb` colour. */
function luminance(hex: string): number {
  const [r = 0, g = 0, b = 0] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG's contrast ratio of two `#rrggbb` colours (1 to 21). */
function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The rules of a generated stylesheet, by selector. */
function rulesBySelector(css: string): Map<string, string> {
  const rules = new Map<string, string>();
  for (const [, selector, body] of css.matchAll(/([^{}]+)\{([^}]*)\}/g))
    rules.set(selector!.trim(), body!.trim());
  return rules;
}

describe('port-type colours', () => {
  it('fill the handles of every port type, each type in a colour of its own', () => {
    const rules = rulesBySelector(portTypeRules);
    expect([...rules.keys()]).toEqual(portTypes.map((type) => `.fb-type-${type}`));
    for (const type of portTypes)
      // Over React Flow's own handle fill, which sits later in the page.
      expect(rules.get(`.fb-type-${type}`)).toBe(`background: ${portTypeColour[type]} !important;`);
    expect(new Set(Object.values(portTypeColour)).size).toBe(portTypes.length);
  });
});

describe('node-category colours', () => {
  it('colour the chip of every category, each in a colour of its own', () => {
    const rules = rulesBySelector(nodeCategoryRules);
    // Two classes: heavier than the chip's grey `.fb-cat`, wherever each stylesheet lands.
    expect([...rules.keys()]).toEqual(nodeCategories.map((c) => `.fb-cat.fb-cat-${c}`));
    for (const category of nodeCategories)
      expect(rules.get(`.fb-cat.fb-cat-${category}`)).toBe(
        `background: ${nodeCategoryColour[category]};`,
      );
    expect(new Set(Object.values(nodeCategoryColour)).size).toBe(nodeCategories.length);
  });

  it('keep the chip’s white text readable: a contrast of at least 4.5:1 (WCAG AA)', () => {
    const below = nodeCategories
      .map((c) => ({ category: c, ratio: contrast('#ffffff', nodeCategoryColour[c]) }))
      .filter(({ ratio }) => ratio < 4.5);
    expect(below).toEqual([]);
  });
});
