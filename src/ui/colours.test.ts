import { describe, expect, it } from 'vitest';
import { nodeCategories } from '../core/catalog/kind';
import { portTypes } from '../core/catalog/ports';
import { nodeCategoryColour, nodeCategoryRules, portTypeColour, portTypeRules } from './colours';

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
});
