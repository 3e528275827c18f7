/** Finding a node kind by words of its title, name or description (the palette and quick add). */
import type { NodeKind } from '../../core/catalog/kind';
import { builtinKinds } from '../../core/nodes';

export function findKinds(query: string): readonly NodeKind[] {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean);
  return builtinKinds.filter((k) => {
    const text = `${k.title} ${k.kind} ${k.description}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}
