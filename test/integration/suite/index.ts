/**
 * Entry point VS Code loads in the extension host (`extensionTestsPath`): runs the mocha suites and writes the
 * counts to the results file named in the manifest (runTest.ts prints `N passed, N failed` from it).
 */
import fs from 'node:fs';
import Mocha from 'mocha';
import type { IntegrationResults } from '../manifest';
import { loadManifest } from './env';
import { defineSuites } from './tests';

export function run(): Promise<void> {
  const manifest = loadManifest();
  // Output goes through the workbench log; lines carry a prefix the host wrapper (TEST_LOG_PREFIX) prints.
  const say = (line: string) => console.log(`[msgbrowse-it] ${line}`);
  // MSGBROWSE_IT_GREP (runTest.ts passes it through): run only the tests whose full title matches, while debugging.
  const grep = process.env.MSGBROWSE_IT_GREP || undefined;
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 60_000,
    color: false,
    reporter: class {} as unknown as Mocha.ReporterConstructor,
    ...(grep ? { grep } : {}),
  });
  mocha.suite.emit('pre-require', globalThis, 'integration', mocha);
  defineSuites();
  return new Promise((resolve, reject) => {
    const results: IntegrationResults = { passed: 0, failed: 0, failures: [] };
    const runner = mocha.run(() => {
      fs.writeFileSync(manifest.resultsFile, JSON.stringify(results, null, 2));
      say(`suite finished: ${results.passed} passing, ${results.failed} failing`);
      if (results.failed > 0) reject(new Error(`${results.failed} integration tests failed`));
      else resolve();
    });
    runner.on('suite', (s) => s.title && say(s.fullTitle()));
    runner.on('pass', (test) => {
      results.passed++;
      say(`  ✔ ${test.title} (${test.duration ?? 0} ms)`);
    });
    runner.on('fail', (test, err: Error) => {
      results.failed++;
      say(`  ✘ ${test.title}: ${err?.message ?? String(err)}`);
      results.failures.push({ title: test.fullTitle(), error: err?.stack ?? String(err) });
    });
  });
}
