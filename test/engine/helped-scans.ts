/** The scans this thread helps the engine worker with (ScanHelper.help, as VectorIndexProxy shares them), from now on. */
import { ScanHelper } from '../../src/search/vector/scan-share';

interface Helped {
  searches: number;
  rows: number;
}
const counters = new Set<Helped>();
const help = ScanHelper.prototype.help;
ScanHelper.prototype.help = function (this: ScanHelper, ...args: Parameters<ScanHelper['help']>) {
  const scan = help.apply(this, args);
  for (const c of counters) {
    c.searches++;
    c.rows += scan.scanned;
  }
  return scan;
};

export function helpedScans(): Helped {
  const c = { searches: 0, rows: 0 };
  counters.add(c);
  return c;
}
