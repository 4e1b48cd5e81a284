/** Completion candidates matching what was typed (any case or accents): prefix matches first, then the rest. */
import { nameKey } from '../archive';

export function rankCompletions(candidates: readonly string[], typed: string): string[] {
  const q = nameKey(typed);
  const prefix: string[] = [];
  const inside: string[] = [];
  for (const c of new Set(candidates)) {
    const k = nameKey(c);
    if (k.startsWith(q)) prefix.push(c);
    else if (k.includes(q)) inside.push(c);
  }
  return [...prefix, ...inside];
}
