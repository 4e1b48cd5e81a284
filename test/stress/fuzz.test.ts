/**
 * Property-based fuzzing of every tool through the SDK Client (in-memory transport) against the
 * curated fixture archive. CI: ≥ 10,000 calls; long mode (MSGBROWSE_LONG=1): ≥ 100,000.
 * Seeded and reproducible: a failure prints the seed and path; replay with MSGBROWSE_SEED=<seed>.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { buildCuratedArchive, type CuratedArchive } from '../fixtures/index';
import {
  describeCall,
  nonObjectArguments,
  TOOL_NAMES,
  toolCall,
  type ToolCall,
  type ToolName,
} from './fuzz/arbitraries';
import { vocabularyOf } from './fuzz/vocabulary';
import { checkToolResult, findLeak, trapUnhandled, withTimeout } from './harness/checks';
import { recordFigures } from './harness/figures';
import { diffSnapshots, snapshotDir, type DirSnapshot } from './harness/fs-snapshot';
import { fuzzSeed, LONG, scale } from './harness/mode';
import { connectInMemory, startRuntime, type Connected } from './harness/server';
import { summarize } from './harness/stats';
import { workerOpener, type Runtime } from '../../src/core/index';

const BATCH = 8;
const WORKER_SCRIPT = path.join(__dirname, '../../src/engine/host.ts');

/**
 * The in-thread engine (the CLI's) gets the full count; the engine worker (the extension's) a smaller run
 * of the same generators — valid calls there cross the thread boundary, hostile ones stop at validation.
 */
const ENGINES = [
  {
    engine: 'thread' as const,
    sequential: scale(8_000, 80_000),
    batches: scale(300, 3_000),
    minCalls: scale(10_000, 100_000),
  },
  {
    engine: 'worker' as const,
    sequential: scale(1_200, 8_000),
    batches: scale(100, 500),
    minCalls: scale(2_000, 12_000),
  },
];
const PER_CALL_MS = 15_000;
const SEED = fuzzSeed();

for (const { engine, sequential: SEQUENTIAL_RUNS, batches: CONCURRENT_BATCHES, minCalls: MIN_CALLS } of ENGINES)
  describe(`fuzz (${engine} engine): every tool with valid, boundary and hostile arguments`, {
    timeout: scale(240_000, 1_800_000),
  }, () => {
    const suite = engine === 'thread' ? 'fuzz' : 'fuzz-worker';
    let dir: string;
    let desc: CuratedArchive;
    let runtime: Runtime;
    let conn: Connected;
    let snapshot: DirSnapshot;
    const stats = {
      calls: 0,
      ok: 0,
      errors: 0,
      byTool: Object.fromEntries(TOOL_NAMES.map((t) => [t, { calls: 0, ok: 0, errors: 0 }])) as Record<
        string,
        { calls: number; ok: number; errors: number }
      >,
      latencies: [] as number[],
      valid: 0,
      validOk: 0,
      validErrors: new Map<string, number>(),
    };

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-fuzz-'));
      desc = buildCuratedArchive(dir);
      snapshot = snapshotDir(dir);
      runtime = startRuntime({
        archivePath: desc.path,
        embedModel: 'test-embed',
        embedDim: 8,
        extra: engine === 'worker' ? { openArchive: workerOpener({ workerScript: WORKER_SCRIPT }) } : {},
      });
      conn = await connectInMemory(runtime);
    });

    after(async () => {
      await conn?.close();
      await runtime?.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    async function run(call: { name: string; arguments: Record<string, unknown>; flavour?: string }, label: string) {
      const started = performance.now();
      const res = await withTimeout(
        conn.client.callTool({ name: call.name, arguments: call.arguments }, { timeout: PER_CALL_MS }),
        PER_CALL_MS + 2_000,
        label,
      );
      stats.latencies.push(performance.now() - started);
      const verdict = checkToolResult(res, label);
      const t = stats.byTool[call.name] ?? (stats.byTool[call.name] = { calls: 0, ok: 0, errors: 0 });
      stats.calls++;
      t.calls++;
      if (verdict.kind === 'ok') {
        stats.ok++;
        t.ok++;
      } else {
        stats.errors++;
        t.errors++;
      }
      if (call.flavour === 'valid') {
        stats.valid++;
        if (verdict.kind === 'ok') stats.validOk++;
        else {
          const key = `${call.name}: ${verdict.message.slice(0, 60)}`;
          stats.validErrors.set(key, (stats.validErrors.get(key) ?? 0) + 1);
        }
      }
      return verdict;
    }

    it('the leak detector recognises stack traces, source locations and paths (self-check)', () => {
      for (const leak of [
        'Error: boom\n    at Object.<anonymous> (/work/main/src/mcp/server.ts:10:5)',
        'failed    at run (node:internal/process/task_queues:95:5)',
        'see /home/u/proj/src/archive/open.ts',
        'in archive.js:120:7',
        "TypeError: Cannot read properties of undefined (reading 'id')",
        'node_modules/zod/v4/core.js',
      ]) {
        assert.notEqual(findLeak(leak), undefined, leak);
      }
      for (const clean of [
        'conversation "at home" not found',
        'start 2024-02-30 is not a real calendar date',
        'query is too long (at most 2000 characters)',
      ]) {
        assert.equal(findLeak(clean), undefined, clean);
      }
    });

    it(`${SEQUENTIAL_RUNS + CONCURRENT_BATCHES * BATCH} generated calls: a valid result or a clean isError, never a crash, hang or leak`, async () => {
      const trap = trapUnhandled();
      const vocab = vocabularyOf(desc);
      try {
        await fc.assert(
          fc.asyncProperty(toolCall(vocab), async (call: ToolCall) => {
            await run(call, describeCall(call));
          }),
          { seed: SEED, numRuns: SEQUENTIAL_RUNS, endOnFailure: true },
        );
        // Concurrent batches: interleaved calls on one session must not disturb each other.
        await fc.assert(
          fc.asyncProperty(fc.array(toolCall(vocab), { minLength: BATCH, maxLength: BATCH }), async (calls) => {
            await Promise.all(calls.map((c) => run(c, `concurrent ${describeCall(c)}`)));
          }),
          { seed: SEED + 1, numRuns: CONCURRENT_BATCHES, endOnFailure: true },
        );
        trap.assertNone();
      } finally {
        trap.dispose();
      }

      const minCalls = MIN_CALLS;
      assert.ok(stats.calls >= minCalls, `only ${stats.calls} calls ran (need ${minCalls})`);
      for (const tool of TOOL_NAMES) {
        const t = stats.byTool[tool];
        assert.ok(t.calls >= stats.calls / 14, `${tool}: only ${t.calls} of ${stats.calls} calls`);
        assert.ok(
          t.ok > 0,
          `${tool}: no call succeeded (the generators never produced a valid call, or the tool always fails)`,
        );
        assert.ok(t.errors > 0, `${tool}: no hostile call was refused (the generators are not hostile)`);
      }
      const topValidErrors = [...stats.validErrors].sort((a, b) => b[1] - a[1]).slice(0, 5);
      assert.ok(
        stats.validOk >= 0.7 * stats.valid,
        `only ${stats.validOk} of ${stats.valid} valid calls succeeded; most common errors: ${JSON.stringify(topValidErrors)}`,
      );
      const lat = summarize(stats.latencies);
      recordFigures(suite, {
        engine,
        seed: SEED,
        calls: stats.calls,
        ok: stats.ok,
        isError: stats.errors,
        validCalls: stats.valid,
        validOk: stats.validOk,
        crashes: 0,
        hangs: 0,
        unhandledRejections: 0,
        p50_ms: Number(lat.p50.toFixed(2)),
        p99_ms: Number(lat.p99.toFixed(2)),
        max_ms: Number(lat.max.toFixed(1)),
        byTool: stats.byTool,
      });
    });

    it('non-object arguments and unknown tools are answered cleanly', async () => {
      const trap = trapUnhandled();
      try {
        const values = fc.sample(nonObjectArguments, { seed: SEED, numRuns: 30 });
        for (const tool of [...TOOL_NAMES, 'drop_table', '', '../list_conversations', 'list_conversations\u0000']) {
          for (const args of [...new Set(values)]) {
            const label = `${tool} ${JSON.stringify(args)}`;
            try {
              const res = await withTimeout(
                conn.client.request(
                  { method: 'tools/call', params: { name: tool, arguments: args as Record<string, unknown> } },
                  { timeout: PER_CALL_MS },
                ),
                PER_CALL_MS + 2_000,
                label,
              );
              const verdict = checkToolResult(res, label);
              assert.equal(verdict.kind, 'error', `${label}: accepted`);
            } catch (e) {
              // A JSON-RPC error (invalid params) is a clean answer too, as long as it leaks nothing.
              assert.ok(e instanceof Error && !/timeout/.test(e.message), `${label}: ${String(e)}`);
              assert.equal(findLeak(e.message), undefined, `${label}: ${e.message}`);
            }
          }
        }
        trap.assertNone();
      } finally {
        trap.dispose();
      }
    });

    it('afterwards a normal query still works and the archive is byte-for-byte unchanged', async () => {
      const lease = desc.marks.leaseAgreement;
      const res = await conn.client.callTool({ name: 'search_messages', arguments: { query: 'lease agreement' } });
      assert.equal(checkToolResult(res, 'search after fuzz').kind, 'ok');
      const hits = (res.structuredContent as { hits: { message_id: number }[] }).hits;
      assert.ok(
        hits.some((h) => h.message_id === lease.id),
        'the lease agreement message is found after fuzzing',
      );
      const ctx = await conn.client.callTool({ name: 'get_context', arguments: { message_id: lease.id, window: 2 } });
      assert.equal(checkToolResult(ctx, 'context after fuzz').kind, 'ok');
      const sem = await conn.client.callTool({
        name: 'semantic_search',
        arguments: { query: 'the lease agreement is ready', k: 3 },
      });
      assert.equal(checkToolResult(sem, 'semantic after fuzz').kind, 'ok');
      assert.equal((sem.structuredContent as { hits: { message_id: number }[] }).hits[0]?.message_id, lease.id);
      assert.deepEqual(diffSnapshots(snapshot, snapshotDir(dir)), [], 'the archive directory changed');
      if (LONG) recordFigures(suite, { archiveUnchanged: true });
    });
  });

export type { ToolName };
