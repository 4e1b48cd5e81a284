/**
 * Live archive: a separate writer process (native SQLite, WAL, delete + re-insert re-imports, appends,
 * checkpoints) changes the archive while clients read continuously.
 *   - no failed tool call (transient torn reads are retried inside the archive layer);
 *   - no result mixes two committed states (every page/hit set matches exactly one committed state);
 *   - a commit the writer reported is visible to the next request;
 *   - a replaced archive (new file renamed over, new inode) is picked up;
 *   - we never change the archive's bytes or mtime and never create a file in its directory.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  ArchiveWriter,
  buildCuratedArchive,
  leaveRowsInWal,
  openWritable,
  spawnLiveWriter,
  type CuratedArchive,
  type LiveWriter,
  type LiveWriterEvent,
} from '../fixtures/index';
import { checkToolResult, textOf, trapUnhandled, withTimeout } from './harness/checks';
import { recordFigures } from './harness/figures';
import { diffSnapshots, snapshotDir } from './harness/fs-snapshot';
import { scale } from './harness/mode';
import { connectInMemory, startRuntime, type Connected } from './harness/server';
import { summarize } from './harness/stats';
import {
  committedStates,
  matchSubset,
  matchTranscript,
  type SubsetObservation,
  type TranscriptObservation,
} from './live/states';
import { workerOpener, type Runtime } from '../../src/core/index';
import { isEngineClient } from '../../src/engine/index';

/** Both engines face the writer: in-thread (the CLI) and the engine worker thread (the extension). */
type Engine = 'thread' | 'worker';
const WORKER_SCRIPT = path.join(__dirname, '../../src/engine/host.ts');

const ITERATIONS = scale(60, 1000);
const INTERVAL_MS = scale(60, 12);
const BATCH = 2;
const CHECKPOINT_EVERY = 3;
const READERS = 3;
const CALL_MS = 30_000;

type TxEvent = Extract<LiveWriterEvent, { kind: 'reimport' | 'append' }>;
const isTx = (e: LiveWriterEvent): e is TxEvent => e.kind === 'reimport' || e.kind === 'append';

interface Hit {
  message_id: number;
  hash: string;
}

describe('live archive: a concurrent writer process while clients read', { timeout: scale(180_000, 1_200_000) }, () => {
  let dir: string;
  let file: string;
  let desc: CuratedArchive;
  const runtimes: Runtime[] = [];
  const conns: Connected[] = [];
  let trap: ReturnType<typeof trapUnhandled>;
  const figures: Record<string, number | string | boolean> = {};

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-live-'));
    desc = buildCuratedArchive(dir);
    file = desc.path;
    trap = trapUnhandled();
  });

  after(async () => {
    for (const c of conns) await c.close().catch(() => {});
    for (const r of runtimes) await r.dispose().catch(() => {});
    trap.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function open(engine: Engine = 'thread'): Promise<Connected> {
    const runtime = startRuntime({
      archivePath: file,
      embedModel: 'test-embed',
      embedDim: 8,
      extra: {
        closeGraceMs: 200,
        ...(engine === 'worker' ? { openArchive: workerOpener({ workerScript: WORKER_SCRIPT }) } : {}),
      },
    });
    runtimes.push(runtime);
    const conn = await connectInMemory(runtime);
    conns.push(conn);
    return conn;
  }

  async function call(conn: Connected, tool: string, args: Record<string, unknown>) {
    const label = `${tool} ${JSON.stringify(args)}`;
    const res = await withTimeout(
      conn.client.callTool({ name: tool, arguments: args }, { timeout: CALL_MS }),
      CALL_MS + 2_000,
      label,
    );
    return { res, verdict: checkToolResult(res, label), text: textOf(res), label };
  }

  /** A varied read workload over the whole archive (used by the reader-only phases). */
  async function readMix(conn: Connected, n: number): Promise<number> {
    const lease = desc.marks.leaseAgreement;
    const calls: [string, Record<string, unknown>][] = [
      ['list_conversations', {}],
      ['get_conversation', { conversation_id: lease.conversationId, limit: 500 }],
      ['search_messages', { query: 'lease' }],
      ['semantic_search', { query: 'the lease agreement is ready', k: 5 }],
      ['get_context', { message_id: lease.id, window: 10 }],
      ['get_context', { hash: lease.hash }],
      ['list_media', {}],
      ['list_links', { domain: 'example.com' }],
    ];
    let ok = 0;
    for (let i = 0; i < n; i++) {
      const [tool, args] = calls[i % calls.length];
      const r = await call(conn, tool, args);
      assert.equal(r.verdict.kind, 'ok', `${r.label}: ${r.text.slice(0, 300)}`);
      ok++;
    }
    return ok;
  }

  it('the state checker detects mixed and stale pages (self-check)', () => {
    const ev = (
      kind: 'reimport' | 'append',
      tx: number,
      minId: number,
      maxId: number,
      count: number,
      added: number[],
    ): LiveWriterEvent => ({
      kind,
      tx,
      conversationId: 9,
      source: 'signal',
      conversation: 'Live',
      messageCount: count,
      added: added.map((id) => ({ id, hash: `h${id}`, ts: '', tsUnix: 0, sender: '', body: '' })),
      minId,
      maxId,
      maxTsUnix: 0,
    });
    const states = committedStates([
      ev('reimport', 0, 1, 3, 3, [3]),
      ev('append', 1, 4, 4, 4, [4]),
      ev('reimport', 2, 5, 9, 5, [9]),
    ]);
    assert.deepEqual(
      states.map((s) => s.ids),
      [
        [1, 2, 3],
        [1, 2, 3, 4],
        [5, 6, 7, 8, 9],
      ],
    );
    assert.deepEqual(matchTranscript(states, { seenTx: 0, ids: [1, 2, 3, 4], hasMore: false }), { tx: 1 });
    assert.deepEqual(matchTranscript(states, { seenTx: 0, ids: [5, 6], hasMore: true }), { tx: 2 });
    assert.match(
      (matchTranscript(states, { seenTx: 0, ids: [1, 2, 8, 9], hasMore: false }) as { error: string }).error,
      /^mixed/,
    );
    assert.match(
      (matchTranscript(states, { seenTx: 0, ids: [1, 2, 3, 4], hasMore: true }) as { error: string }).error,
      /^mixed/,
    );
    assert.match(
      (matchTranscript(states, { seenTx: 2, ids: [1, 2, 3, 4], hasMore: false }) as { error: string }).error,
      /^stale/,
    );
    assert.ok('error' in matchSubset(states, { seenTx: 0, ids: [3, 5], what: 'search' }));
    assert.deepEqual(matchSubset(states, { seenTx: 0, ids: [4, 2], what: 'search' }), { tx: 1 });
  });

  it('reader-only phase: rows only in the WAL are seen, and no byte, mtime or file in the directory changes', async () => {
    const wal = await leaveRowsInWal(file, {
      source: 'signal',
      conversation: 'Harper',
      messages: [{ ts: '2022-03-09 10:00:00', sender: 'Harper', body: 'xyzzy only in the write-ahead log' }],
    });
    assert.ok(wal.walBytes > 0);
    const before = snapshotDir(dir);
    assert.deepEqual([...before.keys()], ['msgbrowse.sqlite', 'msgbrowse.sqlite-shm', 'msgbrowse.sqlite-wal']);
    let calls = 0;
    for (const engine of ['thread', 'worker'] as const) {
      const conn = await open(engine);
      const found = await call(conn, 'search_messages', { query: 'xyzzy' });
      assert.equal(found.verdict.kind, 'ok', found.text);
      const hits = (found.res.structuredContent as { hits: Hit[] }).hits;
      // (It has no embedding, so in the hybrid ranking it ties with the best semantic-only hit.)
      assert.ok(
        hits.slice(0, 2).some((h) => h.message_id === wal.messages[0].id),
        `${engine}: the WAL-only row is visible: ${found.text.slice(0, 600)}`,
      );
      const ctx = await call(conn, 'get_context', { message_id: wal.messages[0].id, window: 1 });
      assert.equal(ctx.verdict.kind, 'ok', ctx.text);
      const served = await runtimes[runtimes.length - 1].context.archive();
      assert.equal(
        isEngineClient(served),
        engine === 'worker',
        `${engine}: the archive is not served by the expected engine`,
      );
      calls += 2 + (await readMix(conn, scale(150, 1500)));
    }
    await new Promise((r) => setTimeout(r, 50)); // let any (wrong) deferred write land before we look
    assert.deepEqual(diffSnapshots(before, snapshotDir(dir)), [], 'a reader changed or created files');
    figures.readerOnlyCalls = calls;
    figures.readerOnlyFilesChanged = 0;
  });

  it('a writer re-imports, appends and checkpoints while readers search, page and read context: no failure, no mixed state, fresh reads', async () => {
    // conns[0] runs in-thread, conns[1] in the engine worker; add in-thread readers up to READERS.
    const readers = [conns[0], conns[1], ...(await Promise.all(Array.from({ length: READERS - 2 }, () => open())))];
    const probeConn = await open();
    const writer: LiveWriter = spawnLiveWriter(file, {
      iterations: ITERATIONS,
      intervalMs: INTERVAL_MS,
      batch: BATCH,
      mode: 'mixed',
      checkpointEvery: CHECKPOINT_EVERY,
    });
    const first = (await writer.waitFor(isTx, 60_000)) as TxEvent;
    const liveId = first.conversationId;
    let done = false;
    void writer.finished.then(
      () => (done = true),
      () => (done = true),
    );

    // The directory may only ever hold what the writer creates.
    const allowed = new Set([
      'msgbrowse.sqlite',
      'msgbrowse.sqlite-wal',
      'msgbrowse.sqlite-shm',
      'msgbrowse.sqlite-journal',
    ]);
    const strangers = new Set<string>();
    const poll = setInterval(() => {
      for (const n of fs.readdirSync(dir)) if (!allowed.has(n)) strangers.add(n);
    }, 15);

    const latestTx = () => {
      for (let i = writer.events.length - 1; i >= 0; i--) {
        const e = writer.events[i];
        if (isTx(e)) return e;
      }
      return first;
    };
    const transcripts: TranscriptObservation[] = [];
    const subsets: SubsetObservation[] = [];
    const counts: { seenTx: number; count: number }[] = [];
    const failures: string[] = [];
    const latencies: number[] = [];
    let calls = 0;

    async function observe(conn: Connected, tool: string, args: Record<string, unknown>) {
      const started = performance.now();
      const r = await call(conn, tool, args);
      latencies.push(performance.now() - started);
      calls++;
      if (r.verdict.kind !== 'ok') failures.push(`${r.label}: ${r.text.slice(0, 300)}`);
      return r;
    }

    async function reader(conn: Connected, k: number) {
      for (let i = 0; !done; i++) {
        // In-memory transport + in-thread archive resolve in microtasks only: yield so the writer's
        // events (pipe I/O) and exit are processed.
        await new Promise((r) => setImmediate(r));
        const seen = latestTx();
        const kind = (i + k) % 4;
        if (kind === 0) {
          const r = await observe(conn, 'get_conversation', { conversation_id: liveId, limit: 500 });
          if (r.verdict.kind === 'ok') {
            const sc = r.res.structuredContent as { messages: Hit[]; has_more: boolean };
            transcripts.push({ seenTx: seen.tx, ids: sc.messages.map((m) => m.message_id), hasMore: sc.has_more });
          }
        } else if (kind === 1) {
          const r = await observe(conn, 'search_messages', {
            query: 'live message',
            conversation_id: liveId,
            limit: 100,
          });
          if (r.verdict.kind === 'ok') {
            subsets.push({
              seenTx: seen.tx,
              ids: (r.res.structuredContent as { hits: Hit[] }).hits.map((h) => h.message_id),
              what: 'search',
            });
          }
        } else if (kind === 2) {
          // Hashes survive re-imports, ids do not: ask by the hash of a message the writer already reported.
          const target = i % 2 ? seen.added[0] : first.added[0];
          const r = await observe(conn, 'get_context', { hash: target.hash, window: 3 });
          if (r.verdict.kind === 'ok') {
            const sc = r.res.structuredContent as { hash: string; messages: Hit[] };
            if (sc.hash !== target.hash) failures.push(`get_context returned ${sc.hash} for ${target.hash}`);
            subsets.push({ seenTx: seen.tx, ids: sc.messages.map((m) => m.message_id), what: 'context' });
          }
        } else {
          const r = await observe(conn, 'list_conversations', { source: 'signal' });
          if (r.verdict.kind === 'ok') {
            const live = (
              r.res.structuredContent as { conversations: { id: number; message_count: number }[] }
            ).conversations.find((c) => c.id === liveId);
            if (!live) failures.push('list_conversations lost the live conversation');
            else counts.push({ seenTx: seen.tx, count: live.message_count });
          }
        }
      }
    }

    // Freshness: right after each reported commit, the next request must see that commit's messages.
    let probes = 0;
    async function freshness() {
      let last = first.tx - 1;
      while (!done) {
        let e: TxEvent;
        try {
          e = (await writer.waitFor((x) => isTx(x) && x.tx > last, 30_000)) as TxEvent;
        } catch {
          break; // writer finished
        }
        last = e.tx;
        const target = e.added[e.added.length - 1];
        const r = await observe(probeConn, 'get_context', { hash: target.hash, window: 0 });
        probes++;
        if (r.verdict.kind === 'ok') {
          const sc = r.res.structuredContent as { messages: Hit[] };
          if (!sc.messages.some((m) => m.hash === target.hash))
            failures.push(`tx ${e.tx}: committed message not visible to the next request`);
        }
      }
    }

    const started = Date.now();
    await Promise.all([...readers.map((c, k) => reader(c, k)), freshness()]);
    const events = await writer.finished;
    clearInterval(poll);
    for (const n of fs.readdirSync(dir)) if (!allowed.has(n)) strangers.add(n);

    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failed or wrong tool calls under the writer`);
    assert.deepEqual([...strangers], [], 'files appeared in the archive directory that the writer does not create');

    const states = committedStates(events);
    const transactions = states.length;
    const checkpoints = events.filter((e) => e.kind === 'checkpoint').length;
    assert.ok(transactions >= ITERATIONS, `writer committed only ${transactions} transactions`);
    assert.ok(checkpoints >= Math.floor(ITERATIONS / CHECKPOINT_EVERY) - 1, `only ${checkpoints} checkpoints`);

    const mixed: string[] = [];
    const statesSeen = new Set<number>();
    for (const t of transcripts) {
      const m = matchTranscript(states, t);
      if ('error' in m) mixed.push(m.error);
      else statesSeen.add(m.tx);
    }
    for (const s of subsets) {
      const m = matchSubset(states, s);
      if ('error' in m) mixed.push(m.error);
    }
    for (const c of counts) {
      if (!states.some((s) => s.tx >= c.seenTx && s.ids.length === c.count))
        mixed.push(`message_count ${c.count} matches no state at or after tx ${c.seenTx}`);
    }
    assert.deepEqual(mixed.slice(0, 10), [], `${mixed.length} results were stale or mixed two committed states`);
    const runStats = `${calls} calls in ${((Date.now() - started) / 1000).toFixed(1)} s, p50 ${summarize(latencies).p50.toFixed(1)} ms`;
    assert.ok(
      transcripts.length >= 10,
      `only ${transcripts.length} transcripts were read during the writer's run (${runStats})`,
    );
    assert.ok(statesSeen.size >= Math.min(5, transactions / 4), `readers saw only ${statesSeen.size} distinct states`);
    assert.ok(probes >= transactions / 3, `only ${probes} freshness probes for ${transactions} commits`);

    // After the writer: the final state, exactly.
    const final = await call(readers[0], 'get_conversation', { conversation_id: liveId, limit: 500 });
    const finalIds = (final.res.structuredContent as { messages: Hit[] }).messages.map((m) => m.message_id);
    const last = states[states.length - 1];
    assert.deepEqual(finalIds, last.ids.slice(0, 500));

    const lat = summarize(latencies);
    Object.assign(figures, {
      writerTransactions: transactions,
      writerReimports: events.filter((e) => e.kind === 'reimport').length,
      writerCheckpoints: checkpoints,
      writerSeconds: Number(((Date.now() - started) / 1000).toFixed(1)),
      readerCalls: calls,
      readerFailures: failures.length,
      transcriptsChecked: transcripts.length,
      subsetsChecked: subsets.length + counts.length,
      mixedOrStale: mixed.length,
      distinctStatesSeen: statesSeen.size,
      freshnessProbes: probes,
      p50_ms: Number(lat.p50.toFixed(2)),
      p99_ms: Number(lat.p99.toFixed(2)),
    });
  });

  it('reader-only phase after the writer: still no change to any byte, mtime or listing', async () => {
    const before = snapshotDir(dir);
    const n = await readMix(conns[0], scale(100, 1000));
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(diffSnapshots(before, snapshotDir(dir)), []);
    figures.readerOnlyCalls = Number(figures.readerOnlyCalls ?? 0) + n;
  });

  it('a replaced archive (new file renamed over the old one: new inode) is picked up by the next request', async () => {
    const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-live-replacement-'));
    try {
      const replacement = buildCuratedArchive(staging);
      const db = openWritable(replacement.path);
      try {
        new ArchiveWriter(db).importConversation('signal', 'Replaced Marker', [
          { ts: '2025-01-01 10:00:00', sender: 'Me', body: 'replacement generation marker' },
        ]);
      } finally {
        db.close();
      }
      const oldIno = fs.statSync(file).ino;
      // What a tool replacing the archive does: write beside it, then rename over it (atomic).
      fs.copyFileSync(replacement.path, path.join(dir, 'msgbrowse.sqlite.incoming'));
      for (const side of ['-wal', '-shm']) fs.rmSync(file + side, { force: true });
      fs.renameSync(path.join(dir, 'msgbrowse.sqlite.incoming'), file);
      assert.notEqual(fs.statSync(file).ino, oldIno);

      for (const conn of conns) {
        const r = await call(conn, 'list_conversations', { name_contains: 'Replaced' });
        assert.equal(r.verdict.kind, 'ok', r.text);
        const names = (r.res.structuredContent as { conversations: { name: string }[] }).conversations.map(
          (c) => c.name,
        );
        assert.deepEqual(names, ['Replaced Marker'], 'the next request after the rename must read the new file');
        const s = await call(conn, 'search_messages', {
          query: 'generation marker',
          conversation: 'Replaced Marker',
          source: 'signal',
        });
        assert.equal(s.verdict.kind, 'ok', s.text);
        const hits = (s.res.structuredContent as { hits: (Hit & { text: string })[] }).hits;
        assert.equal(hits.length, 1, s.text.slice(0, 400));
        assert.match(hits[0].text, /generation\W+marker/);
      }
      const before = snapshotDir(dir);
      assert.deepEqual([...before.keys()], ['msgbrowse.sqlite']);
      await readMix(conns[0], 40);
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(diffSnapshots(before, snapshotDir(dir)), [], 'reading the replacement changed or created files');
      figures.replacementPickedUp = true;
      trap.assertNone();
      recordFigures('live-archive', figures);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  });
});
