/** Completion candidates matching what was typed (any case or accents): prefix matches first, then the rest. */
import { nameKey } from '../archive';

export function rankCompletions(candidates: readonly string[], typed: string): string[] {
  const q = nameKey(typed);
  const prefix: string[] = [];
  const inside: string[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c)) continue;
    seen.add(c);
    const k = nameKey(c);
    if (k.startsWith(q)) prefix.push(c);
    else if (k.includes(q)) inside.push(c);
  }
  return [...prefix, ...inside];
}
