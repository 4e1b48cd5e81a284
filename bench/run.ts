/**
 * `npm run bench` — the benchmark of issues 2 and 5. Prints a markdown table per section and writes bench/RESULTS.md.
 *
 *   npm run bench                               everything (100k, 1M, 1M×384, 1M×768; generates archives once, ~8 GB)
 *   npm run bench -- --quick                    100k×768 only, shorter loops (sanity run)
 *   npm run bench -- --only peer|archive|vector|e2e|cold|responsive|answers   one section (comma-separated list allowed)
 *   npm run bench -- --no-write                 print only, leave bench/RESULTS.md and the stored results alone
 *   npm run bench -- --report-only              only recompose bench/RESULTS.md from the stored results
 *
 * Archives and results are cached in ~/.cache/msgbrowse-bench (MSGBROWSE_BENCH_DIR overrides). RESULTS.md is composed
 * from the latest stored full-run result of every section (each labelled with the command and date that produced
 * it) plus bench/analysis.md (hand-written explanations of the verdicts), so sections can be re-run one at a time.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BENCH_DIR, ensureArchive, SPECS } from './lib/data';
import { machineFacts, REPO } from './lib/proc';
import { renderReport, type ReportInput } from './lib/report';
import { gitCommit, load, store, type Stored } from './lib/results';
import { FULL_PLAN, QUICK_PLAN } from './lib/stats';
import { archiveTables, runArchiveSection, type ArchiveSectionResult } from './sections/archive';
import { coldTables, runColdSection, type ColdResult } from './sections/cold';
import { e2eTable, runE2eSection, type E2eResult } from './sections/e2e';
import { responsiveTable, runResponsiveSection, type ResponsiveResult } from './sections/responsive';
import { answersReport, answersTable, runAnswersSection, type AnswersResult } from './sections/answers';
import { peerTable, runPeerSection, type PeerResult } from './sections/peer';
import { runVectorSection, vectorColdTable, vectorTable, type VectorSectionResult } from './sections/vector';

const SECTIONS = ['peer', 'archive', 'vector', 'e2e', 'cold', 'responsive', 'answers'] as const;
type Section = (typeof SECTIONS)[number];

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const noWrite = argv.includes('--no-write');
const reportOnly = argv.includes('--report-only');
const onlyArg = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
for (const a of argv) {
  if (a.startsWith('--') && !['--quick', '--only', '--no-write', '--report-only'].includes(a)) {
    console.error(`unknown option ${a}; use --quick, --only ${SECTIONS.join('|')}, --no-write`);
    process.exit(2);
  }
}
const only = reportOnly ? [] : onlyArg ? (onlyArg.split(',') as Section[]) : [...SECTIONS];
for (const s of only) {
  if (!SECTIONS.includes(s)) {
    console.error(`unknown section ${s}; use one of ${SECTIONS.join(', ')}`);
    process.exit(2);
  }
}

const CONFIGS: Record<Section, string[]> = quick
  ? {
      peer: ['m100k_e768'],
      archive: ['m100k_e768'],
      vector: ['m100k_e768'],
      e2e: ['m100k_e768'],
      cold: ['m100k_e768'],
      responsive: ['m100k_e768'],
      answers: ['m20k_long'],
    }
  : {
      peer: ['m100k_e768'],
      archive: ['m100k_e768', 'm1m'],
      vector: ['m100k_e768', 'm1m_e384', 'm1m_e768'],
      e2e: ['m100k_e768', 'm1m_e768'],
      cold: ['m1m_e768'],
      responsive: ['m1m_e768'],
      answers: ['m20k_long', 'm40k_c20k'],
    };

const command = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;
const t0 = Date.now();
const log = (m: string) => process.stderr.write(`[bench +${((Date.now() - t0) / 1000).toFixed(0)}s] ${m}\n`);

async function main(): Promise<void> {
  const machine = machineFacts();
  log(
    `cache ${BENCH_DIR}; ${machine.cores} × ${machine.cpu}, ${machine.memGiB} GiB, load ${machine.load}; sections ${only.join(', ')}${quick ? ' (quick)' : ''}`,
  );
  const needed = [...new Set(only.flatMap((s) => CONFIGS[s]))];
  // Generate in a sensible order (small first), reusing stamped archives.
  const archives = new Map(
    Object.keys(SPECS)
      .filter((n) => needed.includes(n))
      .map((n) => [n, ensureArchive(n, log)]),
  );
  const plan = quick ? QUICK_PLAN : FULL_PLAN;
  const failures: string[] = [];
  const attempt = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (e) {
      const msg = `${what}: ${e instanceof Error ? e.message : String(e)}`;
      failures.push(msg);
      log(`FAILED ${msg}`);
      return undefined;
    }
  };

  // This run's results: the report composes them over the stored ones (a --no-write run stores nothing).
  const fresh = new Map<string, Stored<unknown>>();
  const keep = (section: Section, name: string, r: unknown) =>
    fresh.set(`${section}-${name}`, store(section, name, command, quick, r, machine, !noWrite));
  const answers: AnswersResult[] = [];
  for (const section of only) {
    for (const name of CONFIGS[section]) {
      const a = archives.get(name)!;
      let printed = '';
      if (section === 'peer') {
        const r = await attempt(`peer ${name}`, () => runPeerSection(a, { rounds: quick ? 2 : 6, log }));
        if (r) keep('peer', name, r), (printed = peerTable(r));
      } else if (section === 'archive') {
        const r = await attempt(`archive ${name}`, () => runArchiveSection(a, { plan, rounds: quick ? 1 : 2, log }));
        if (r) keep('archive', name, r), (printed = archiveTables(r));
      } else if (section === 'vector') {
        const r = await attempt(`vector ${name}`, () =>
          runVectorSection(a, { queries: 20, baselineQueries: a.spec.messages >= 1e6 ? 2 : 3, log }),
        );
        if (r) keep('vector', name, r), (printed = `${vectorTable([r])}\n\n${vectorColdTable([r])}`);
      } else if (section === 'e2e') {
        const r = await attempt(`e2e ${name}`, () => runE2eSection(a, { plan, log }));
        if (r) keep('e2e', name, r), (printed = e2eTable([r]));
      } else if (section === 'cold') {
        const r = await attempt(`cold ${name}`, () => runColdSection(a, { log }));
        if (r) keep('cold', name, r), (printed = coldTables(r));
      } else if (section === 'answers') {
        const r = await attempt(`answers ${name}`, () => runAnswersSection(a, { log }));
        if (r) answers.push(r), (printed = answersTable([r]));
      } else if (section === 'responsive') {
        const r = await attempt(`responsive ${name}`, () => runResponsiveSection(a, { log }));
        if (r) keep('responsive', name, r), (printed = responsiveTable([r]));
      }
      if (printed) process.stdout.write(`\n## ${section} — ${name}\n\n${printed}\n`);
    }
  }

  // Sizes, not times: written whole by the run that measured them (bench/ANSWERS.md), never composed from stored runs.
  if (answers.length === CONFIGS.answers.length && !quick && !noWrite) {
    fs.writeFileSync(path.join(REPO, 'bench', 'ANSWERS.md'), answersReport(answers, command, gitCommit()));
    log('bench/ANSWERS.md written');
  }
  if (!reportOnly && !only.some((s) => s !== 'answers')) return;

  // Compose the report from the stored results of the same mode (quick results never mix into the full report).
  const collect = <T>(section: Section): Stored<T>[] =>
    CONFIGS[section]
      .map((n) => (fresh.get(`${section}-${n}`) as Stored<T> | undefined) ?? load<T>(section, n, quick))
      .filter((x): x is Stored<T> => !!x);
  const input: ReportInput = {
    peer: collect<PeerResult>('peer'),
    archive: collect<ArchiveSectionResult>('archive'),
    vector: collect<VectorSectionResult>('vector'),
    e2e: collect<E2eResult>('e2e'),
    cold: collect<ColdResult>('cold'),
    responsive: collect<ResponsiveResult>('responsive'),
    notRun: [
      ...SECTIONS.filter((s) => s !== 'answers').flatMap((s) =>
        CONFIGS[s].filter((n) => !fresh.has(`${s}-${n}`) && !load(s, n, quick)).map((n) => `${s} on ${n}`),
      ),
      ...failures.map((f) => `failed in this run: ${f}`),
    ],
  };
  const analysisFile = path.join(REPO, 'bench', 'analysis.md');
  const abFile = path.join(REPO, 'bench', 'AB.md');
  const report = renderReport(input, {
    command,
    machine: `${machine.cores} × ${machine.cpu}, ${machine.memGiB} GiB RAM, ${machine.kernel}, Node ${machine.node} (harness and our code)`,
    analysis: fs.existsSync(analysisFile) ? fs.readFileSync(analysisFile, 'utf8') : undefined,
    ab: fs.existsSync(abFile) ? fs.readFileSync(abFile, 'utf8') : undefined,
  });
  if (quick || noWrite) {
    const out = path.join(BENCH_DIR, quick ? 'RESULTS-quick.md' : 'RESULTS-draft.md');
    fs.writeFileSync(out, report);
    log(`report written to ${out}${quick ? ' (quick runs never overwrite bench/RESULTS.md)' : ''}`);
  } else {
    fs.writeFileSync(path.join(REPO, 'bench', 'RESULTS.md'), report);
    log('bench/RESULTS.md written');
  }
  if (failures.length) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
