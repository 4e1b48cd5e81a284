/**
 * The archive layer against a live msgbrowse writer: rows only in `-wal` are visible, nothing is
 * ever written next to the archive, changes (new frames, checkpoints, a replaced file) are picked
 * up, and transient failures are retried so queries keep succeeding with consistent snapshots.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import { openArchive, type Archive } from '../../src/archive';
import { ArchiveConnection } from '../../src/archive/connection';
import { loadEngine } from '../../src/archive/wasm-engine';
import {
  archivePathIn,
  buildArchive,
  buildCuratedArchive,
  buildMsgbrowseMcpFixture,
  embedText,
  leaveRowsInWal,
  openWalWriter,
  spawnLiveWriter,
  type LiveWriterEvent,
} from '../fixtures';
import { connectionState } from './conn-probe';

let tmp: string;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'archive-live-'));
});
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface DirState {
  names: string[];
  files: Record<string, { sha: string; mtimeNs: bigint; size: bigint }>;
}

function dirState(dir: string): DirState {
  const names = fs.readdirSync(dir).sort();
  const files: DirState['files'] = {};
  for (const n of names) {
    const p = path.join(dir, n);
    const st = fs.statSync(p, { bigint: true });
    files[n] = {
      sha: createHash('sha256').update(fs.readFileSync(p)).digest('hex'),
      mtimeNs: st.mtimeNs,
      size: st.size,
    };
  }
  return { names, files };
}

/** Run every query family once (results unused: this is about side effects). */
function exerciseAll(a: Archive): void {
  a.summary();
  const convs = a.listConversations();
  a.resolveConversation('MJ');
  a.resolveConversation('nobody');
  for (const c of convs) {
    const p = a.transcript({ conversationId: c.id, limit: 500 });
    if (p.messages.length) a.context(p.messages[Math.floor(p.messages.length / 2)].id, 5);
    a.hitMessagesBundle(p.messages.slice(0, 10).map((m) => m.id));
    a.hitExtras(
      [],
      p.messages.map((m) => m.id),
    );
    a.hitExtras(
      p.messages.map((m) => m.hash),
      [],
    );
  }
  for (const q of ['lease', 'the', 'café', '東京', 'x"y', 'NEAR('])
    a.searchKeyword({ query: q, limit: 50, hasAttachment: q === 'the' });
  a.attachments({ kinds: ['image', 'file', 'video'], limit: 1000 });
  a.links({ limit: 1000, domain: 'example.com' });
  for (const m of a.embeddingModels()) for (const _ of a.embeddings(m.model)) void _;
}

describe('WAL visibility and read-only guarantees', () => {
  it('sees rows that exist only in -wal, and never touches db, -wal, -shm or the directory', async () => {
    const dir = path.join(tmp, 'walonly');
    const desc = buildCuratedArchive(dir);
    const wal = await leaveRowsInWal(desc.path, {
      source: 'signal',
      conversation: 'Harper',
      messages: [
        { ts: '2025-01-01 10:00:00', sender: 'Harper', body: 'walonly zanzibar appendix' },
        {
          ts: '2025-01-01 10:01:00',
          sender: 'Me',
          body: 'walonly second row https://wal.example.com/p',
          links: ['https://wal.example.com/p'],
        },
      ],
    });
    assert.ok(wal.walBytes > 0);
    const beforeState = dirState(dir);
    assert.deepEqual(beforeState.names, ['msgbrowse.sqlite', 'msgbrowse.sqlite-shm', 'msgbrowse.sqlite-wal']);

    const a = await openArchive(dir);
    try {
      const hits = a.searchKeyword({ query: 'zanzibar', limit: 5 });
      assert.deepEqual(
        hits.map((h) => h.id),
        [wal.messages[0].id],
      );
      const harper = a.listConversations().find((c) => c.name === 'Harper' && c.source === 'signal');
      assert.equal(harper?.lastTs, '2025-01-01 10:01:00');
      assert.ok(a.links({ domain: 'wal.example.com', limit: 5 }).items.length === 1);
      assert.equal(a.summary().messages, desc.messages.length + 2);
      exerciseAll(a);
    } finally {
      a.close();
    }
    // Immutable mode (the fallback) sees only checkpointed data — proving the rows really are WAL-only.
    const imm = await openArchive(dir, { mode: 'immutable' });
    try {
      assert.deepEqual(imm.searchKeyword({ query: 'zanzibar', limit: 5 }), []);
      assert.equal(imm.summary().messages, desc.messages.length);
    } finally {
      imm.close();
    }
    assert.deepEqual(dirState(dir), beforeState, 'bytes, mtimes and listing unchanged');
  });

  it('a clean archive (no -wal/-shm) gains no files after every query', async () => {
    const dir = path.join(tmp, 'clean');
    buildCuratedArchive(dir);
    const beforeState = dirState(dir);
    const a = await openArchive(dir);
    try {
      exerciseAll(a);
    } finally {
      a.close();
    }
    assert.deepEqual(dirState(dir), beforeState);
  });
});

/** Every live-writer test runs on a connection that reads page by page and on one that reads ahead (index builds). */
const READ_MODES: { label: string; tag: string; options: { readAhead?: boolean } }[] = [
  { label: 'page by page', tag: 'pages', options: {} },
  { label: 'read ahead', tag: 'ahead', options: { readAhead: true } },
];

for (const mode of READ_MODES)
  describe(`changes while open (${mode.label})`, () => {
    it('picks up commits of an open writer, then its checkpoint, without reopening the Archive', async () => {
      const dir = path.join(tmp, `growing-${mode.tag}`);
      const desc = buildMsgbrowseMcpFixture(dir);
      const a = await openArchive(dir, mode.options);
      const w = openWalWriter(desc.path);
      try {
        const fp0 = a.summary().fingerprint;
        assert.equal(connectionState(a).readAhead, mode.options.readAhead === true);
        assert.equal(a.summary().messages, 3);
        w.writer.importConversation('signal', 'Harper', [
          ...desc.messages.map((m) => ({ ts: m.ts, sender: m.sender, body: m.body })),
          { ts: '2022-03-02 10:00:00', sender: 'Harper', body: 'quokka sighting' },
        ]);
        assert.deepEqual(a.searchKeyword({ query: 'quokka', limit: 5 }).length, 1);
        const fp1 = a.summary().fingerprint;
        assert.notEqual(fp1, fp0);
        assert.equal(a.summary().messages, 4);
        w.writer.importConversation('whatsapp', 'Newbie', [
          { ts: '2022-03-03 10:00:00', sender: 'Newbie', body: 'hello quokka' },
        ]);
        assert.equal(a.searchKeyword({ query: 'quokka', limit: 5 }).length, 2);
        assert.equal(a.resolveConversation('newbie').kind, 'found');
      } finally {
        w.close(); // checkpoints into the main file and removes -wal
      }
      try {
        assert.equal(fs.existsSync(`${desc.path}-wal`), false);
        assert.equal(a.searchKeyword({ query: 'quokka', limit: 5 }).length, 2);
        assert.equal(a.summary().messages, 5);
      } finally {
        a.close();
      }
    });

    it('a replaced file (new inode) is picked up by the next query', async () => {
      const dir = path.join(tmp, `replaced-${mode.tag}`);
      buildMsgbrowseMcpFixture(dir);
      const a = await openArchive(dir, mode.options);
      try {
        assert.equal(a.listConversations().length, 1);
        const ino0 = fs.statSync(path.join(dir, 'msgbrowse.sqlite')).ino;
        const other = path.join(tmp, `replacement-${mode.tag}`);
        const next = buildCuratedArchive(other);
        fs.renameSync(next.path, path.join(dir, 'msgbrowse.sqlite'));
        assert.notEqual(fs.statSync(path.join(dir, 'msgbrowse.sqlite')).ino, ino0);
        assert.equal(a.listConversations().length, next.conversations.length);
        assert.equal(a.summary().messages, next.messages.length);
        assert.equal(
          connectionState(a).readAhead,
          mode.options.readAhead === true,
          'the reopened connection reads as the first did',
        );
      } finally {
        a.close();
      }
    });
  });

describe("read-ahead (the index build's scanning connection)", () => {
  it('answers exactly what reading page by page answers, and scans with a fifth of the read calls or fewer', async () => {
    const curated = buildCuratedArchive(path.join(tmp, 'read-ahead'));
    // A scan worth reading ahead: 3,000 messages with 256-d vectors (3 MB of embeddings, one row per 1 KiB).
    const big = buildArchive({
      file: archivePathIn(path.join(tmp, 'read-ahead-big')),
      conversations: [0, 1, 2].map((c) => ({
        source: 'signal',
        name: `Group ${c}`,
        messages: Array.from({ length: 1000 }, (_, i) => ({
          sender: i % 3 ? 'Ada' : 'Me',
          body: `message ${c}-${i} about the lease and the café`,
          ts: `2024-0${1 + (i % 9)}-1${i % 10} 1${i % 10}:00:00`,
        })),
      })),
      embeddings: [{ model: 'scan-embed', dim: 256 }],
    });
    // The layout real archives get from `msgbrowse embed` after each import: every conversation's messages, their
    // full-text rows and their embeddings written one conversation after another, so the embeddings' pages lie
    // scattered between the other tables' pages.
    const interleaved = buildArchive({
      file: archivePathIn(path.join(tmp, 'read-ahead-interleaved')),
      conversations: [
        { source: 'signal', name: 'First', messages: [{ sender: 'Me', body: 'first', ts: '2024-01-01 10:00:00' }] },
      ],
    });
    const w = openWalWriter(interleaved.path);
    try {
      for (let c = 0; c < 30; c++) {
        const imported = w.writer.importConversation(
          'whatsapp',
          `Chat ${c}`,
          Array.from({ length: 100 }, (_, i) => ({
            sender: i % 2 ? 'Bo' : 'Me',
            body: `chat ${c} line ${i} about the lease`,
            ts: `2024-02-${10 + (i % 18)} 12:${10 + (i % 50)}:00`,
          })),
        );
        for (const m of imported.messages)
          w.writer.putEmbedding(m.hash, 'scan-embed', embedText(m.body, 256, 'scan-embed'));
      }
    } finally {
      w.close();
    }
    // The VFS reads through node:fs's readSync (a CommonJS import here): counted while each archive answers.
    const nodeFs = require('node:fs') as typeof fs;
    const readSync = nodeFs.readSync;
    let reads = 0;
    nodeFs.readSync = ((...args: Parameters<typeof fs.readSync>) => {
      reads++;
      return readSync.apply(nodeFs, args);
    }) as typeof fs.readSync;
    const answers = async (file: string, options: { readAhead?: boolean }) => {
      // The scan first, on a fresh connection (no page cached yet): what an index build does.
      const scanner = await openArchive(file, options);
      const all: unknown[] = [];
      let scanReads: number;
      try {
        scanner.summary();
        assert.equal(connectionState(scanner).readAhead, options.readAhead === true);
        reads = 0;
        for (const m of scanner.embeddingModels()) {
          all.push(
            m,
            [...scanner.embeddings(m.model)].map((r) => ({
              hash: r.hash,
              id: r.messageId,
              conv: r.conversationId,
              vec: Array.from(r.vec),
            })),
          );
        }
        scanReads = reads;
      } finally {
        scanner.close();
      }
      const a = await openArchive(file, options);
      try {
        all.push(a.summary(), a.listConversations());
        for (const c of a.listConversations()) {
          const page = a.transcript({ conversationId: c.id, limit: 500 });
          all.push(
            page,
            a.hitMessagesBundle(page.messages.map((m) => m.id).reverse()).messages,
            a.hitExtras(
              page.messages.map((m) => m.hash),
              [],
            ).reactions,
          );
        }
        for (const q of ['lease', 'the', 'café', '東京']) all.push(a.searchKeyword({ query: q, limit: 50 }));
        all.push(a.attachments({ kinds: ['image', 'file', 'video'], limit: 1000 }), a.links({ limit: 1000 }));
      } finally {
        a.close();
      }
      return { all, scanReads };
    };
    try {
      for (const file of [curated.path, big.path, interleaved.path]) {
        const pages = await answers(file, {});
        const ahead = await answers(file, { readAhead: true });
        assert.deepEqual(ahead.all, pages.all, file);
        assert.ok(
          ahead.scanReads <= pages.scanReads,
          `${file}: ${ahead.scanReads} reads ahead, ${pages.scanReads} page by page`,
        );
        if (file === big.path) {
          assert.ok(pages.scanReads > 500, `page by page: ${pages.scanReads} reads`);
          assert.ok(
            ahead.scanReads * 5 < pages.scanReads,
            `read ahead: ${ahead.scanReads} reads, page by page: ${pages.scanReads}`,
          );
        }
      }
    } finally {
      nodeFs.readSync = readSync;
    }
  });
});

describe('snapshots', () => {
  for (const mode of READ_MODES)
    it(`one run() is one read snapshot: a commit (and a checkpoint) between two statements is not mixed in (${mode.label})`, async () => {
      const dir = path.join(tmp, `snapshot-${mode.tag}`);
      const desc = buildMsgbrowseMcpFixture(dir);
      const conn = new ArchiveConnection(await loadEngine(), desc.path, mode.options);
      const w = openWalWriter(desc.path);
      try {
        let attempts = 0;
        let writes = 0;
        const [n1, n2] = conn.run((sql) => {
          attempts++;
          const first = Number(sql.value('SELECT COUNT(*) FROM messages'));
          if (writes === 0) {
            writes++;
            w.writer.importConversation('signal', 'Snap', [{ ts: '2023-01-01 00:00:00', sender: 'X', body: 'snap' }]);
          }
          const second = Number(sql.value('SELECT COUNT(*) FROM messages'));
          return [first, second];
        });
        assert.equal(n1, n2, 'both statements saw the same state');
        assert.equal(connectionState(conn).readAhead, mode.options.readAhead === true);
        assert.equal(attempts, 1, 'appending WAL frames cannot tear a read: no retry');
        assert.equal(
          conn.run((sql) => Number(sql.value('SELECT COUNT(*) FROM messages'))),
          4,
          'the next run sees the commit',
        );

        // A checkpoint that rewrites db pages during a run makes the run retry on a fresh snapshot.
        attempts = 0;
        let checkpointed = false;
        const counts = conn.run((sql) => {
          attempts++;
          const before = Number(sql.value('SELECT COUNT(*) FROM messages'));
          if (!checkpointed) {
            checkpointed = true;
            w.writer.importConversation('signal', 'Snap2', [{ ts: '2023-01-02 00:00:00', sender: 'X', body: 'snap2' }]);
            w.db.pragma('wal_checkpoint(TRUNCATE)');
          }
          return [before, Number(sql.value('SELECT COUNT(*) FROM messages'))];
        });
        assert.equal(attempts, 2, 'retried after the db file changed under the read');
        assert.deepEqual(counts, [5, 5]);
      } finally {
        w.close();
        conn.close();
      }
    });
});

describe('retries', () => {
  it('a corrupt/busy/short-read first attempt is retried after a reopen and the query succeeds', async () => {
    const dir = path.join(tmp, 'retry');
    const desc = buildMsgbrowseMcpFixture(dir);
    for (const [rc, msg] of [
      [11, 'database disk image is malformed'],
      [5, 'database is locked'],
      [522, 'disk I/O error'],
      [26, 'file is not a database'],
    ] as const) {
      let calls = 0;
      let retries = 0;
      const a = await openArchive(dir, {
        onAttempt: (attempt) => {
          calls++;
          if (attempt > 0) retries++;
          if (attempt < 2 && calls > 1) throw Object.assign(new Error(msg), { resultCode: rc });
        },
      });
      try {
        const opens0 = connectionState(a).opens;
        assert.deepEqual(
          a.context(desc.marks.lease.id, 1)?.map((m) => m.id),
          [desc.marks.lease.id, desc.marks.link.id],
        );
        assert.equal(retries, 2, `rc ${rc}`);
        assert.equal(connectionState(a).opens, opens0 + 2, 'reopened for each retry');
      } finally {
        a.close();
      }
    }
  });

  it('persistent corruption on unchanged files ends quickly with a clear "damaged" ArchiveError', async () => {
    const dir = path.join(tmp, 'retry');
    let armed = false;
    let attempts = 0;
    const a = await openArchive(dir, {
      onAttempt: () => {
        if (!armed) return;
        attempts++;
        throw Object.assign(new Error('database disk image is malformed'), { resultCode: 11 });
      },
    });
    try {
      armed = true;
      assert.throws(
        () => a.listConversations(),
        (e: unknown) =>
          e instanceof Error &&
          e.name === 'ArchiveError' &&
          (e as { code?: string }).code === 'corrupt' &&
          /is damaged \(database disk image is malformed\).*did not change between attempts.*msgbrowse doctor/.test(
            e.message,
          ),
      );
      assert.ok(attempts >= 3 && attempts <= 5, `gave up after ${attempts} attempts on unchanged files`);
      armed = false;
      assert.equal(a.listConversations().length, 1, 'usable again afterwards');
    } finally {
      a.close();
    }
  });

  for (const mode of READ_MODES)
    it(`keeps answering with consistent snapshots while a writer re-imports and checkpoints (${mode.label})`, async () => {
      const dir = path.join(tmp, `stress-${mode.tag}`);
      const desc = buildMsgbrowseMcpFixture(dir);
      const a = await openArchive(dir, mode.options);
      const writer = spawnLiveWriter(desc.path, {
        conversation: 'Live',
        iterations: 60,
        intervalMs: 15,
        batch: 25,
        mode: 'mixed',
        checkpointEvery: 2,
      });
      let queries = 0;
      const counts = new Set<number>();
      try {
        await writer.waitFor((e) => e.kind === 'reimport' || e.kind === 'append');
        let done = false;
        writer.finished.then(
          () => (done = true),
          () => (done = true),
        );
        while (!done) {
          const live = a.resolveConversation('Live', 'signal');
          assert.equal(live.kind, 'found');
          if (live.kind !== 'found') break;
          const page = a.transcript({ conversationId: live.conversation.id, limit: 5000 });
          const hashes = new Set(page.messages.map((m) => m.hash));
          assert.equal(hashes.size, page.messages.length, 'no message twice (no mixed re-import states)');
          counts.add(page.messages.length);
          a.searchKeyword({ query: 'lease', limit: 10 });
          queries += 3;
          await tick();
        }
        const events = await writer.finished;
        const committed = new Set(
          events.flatMap((e: LiveWriterEvent) =>
            e.kind === 'reimport' || e.kind === 'append' ? [e.messageCount] : [],
          ),
        );
        for (const c of counts) assert.ok(committed.has(c), `count ${c} is a committed state`);
        const final = a.resolveConversation('Live', 'signal');
        const last = [...events].reverse().find((e) => e.kind === 'reimport' || e.kind === 'append');
        assert.ok(final.kind === 'found' && last && 'messageCount' in last);
        assert.equal(
          final.kind === 'found' && final.conversation.messageCount,
          last && 'messageCount' in last ? last.messageCount : -1,
        );
        assert.ok(queries > 10, `ran ${queries} queries`);
        assert.equal(connectionState(a).readAhead, mode.options.readAhead === true);
        console.log(
          `stress: ${queries} queries, ${counts.size} distinct states, stats ${JSON.stringify(connectionState(a))}`,
        );
      } finally {
        await writer.stop().catch(() => undefined);
        a.close();
      }
    });
});
