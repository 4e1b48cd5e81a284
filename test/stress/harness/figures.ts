/**
 * Figures a suite measured. Always printed (so CI output shows them); when `MSGBROWSE_FIGURES_DIR` is set
 * (by `scripts/long-tests.mjs`) also written as `<suite>.json` there, to be collected into
 * `test/stress/last-long-run.md`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LONG } from './mode';

export type FigureValue = string | number | boolean | null | FigureValue[] | { [k: string]: FigureValue };

const collected = new Map<string, Record<string, FigureValue>>();

export function recordFigures(suite: string, figures: Record<string, FigureValue>): void {
  const merged = { ...(collected.get(suite) ?? {}), ...figures };
  collected.set(suite, merged);
  console.log(`[figures ${suite}${LONG ? ' (long mode)' : ''}] ${JSON.stringify(figures)}`);
  const dir = process.env.MSGBROWSE_FIGURES_DIR;
  if (dir) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${suite}.json`), JSON.stringify({ suite, long: LONG, ...merged }, null, 2));
  }
}
