/**
 * Result storage and bench/RESULTS.md. Every section result is stored as JSON under <bench cache>/results/ with the
 * command, date and commit that produced it, so sections can be (re)run one at a time (`--only`) and RESULTS.md is
 * always composed from the latest stored result of every section, each labelled with its own command and date.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BENCH_DIR } from './data';
import { type machineFacts, REPO } from './proc';

export interface Stored<T> {
  section: string;
  config: string;
  command: string;
  date: string;
  commit: string;
  dirty: boolean;
  machine: ReturnType<typeof machineFacts>;
  quick: boolean;
  result: T;
}

const DIR = path.join(BENCH_DIR, 'results');

export function gitCommit(): { commit: string; dirty: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
    const dirty =
      execFileSync(
        'git',
        ['status', '--porcelain', '--', 'src', 'bench', ':!bench/RESULTS.md', ':!bench/analysis.md'],
        { cwd: REPO, encoding: 'utf8' },
      ).trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}

export function store<T>(
  section: string,
  config: string,
  command: string,
  quick: boolean,
  result: T,
  machineAtStart: ReturnType<typeof machineFacts>,
  write = true,
): Stored<T> {
  const s: Stored<T> = {
    section,
    config,
    command,
    date: new Date().toISOString(),
    ...gitCommit(),
    machine: machineAtStart,
    quick,
    result,
  };
  // A --no-write run is kept out of the store: a later --report-only would publish it as the section's result.
  if (write) {
    fs.mkdirSync(DIR, { recursive: true });
    fs.writeFileSync(path.join(DIR, `${section}-${config}${quick ? '-quick' : ''}.json`), JSON.stringify(s));
  }
  return s;
}

export function load<T>(section: string, config: string, quick: boolean): Stored<T> | undefined {
  const f = path.join(DIR, `${section}-${config}${quick ? '-quick' : ''}.json`);
  if (!fs.existsSync(f)) return undefined;
  return JSON.parse(fs.readFileSync(f, 'utf8')) as Stored<T>;
}
