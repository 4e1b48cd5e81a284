/** Clamps a requested count to [min, max] and records a note when it had to (instead of silently resetting). */
export function clampLimit(
  field: string,
  requested: number | undefined,
  def: number,
  max: number,
  notes: string[],
): number {
  if (requested === undefined) return def;
  if (requested > max) {
    notes.push(`${field} ${requested} is above the maximum ${max}; used ${max}`);
    return max;
  }
  return requested;
}
