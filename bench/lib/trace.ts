/**
 * The archive-layer query cases, with the EXACT statements our archive layer runs for them.
 *
 * The statements are captured by running the archive layer's own query functions (src/archive/queries/*) through a
 * recording `Sql` over our connection on the same file: same code, same SQL text, same parameters. The native
 * references then replay those statements (prepared once, all rows stepped) and report each statement's key column
 * (id / url / conversation_id) so the rows can be compared with ours (`keys`); our side calls the public Archive API
 * and its ids are compared with what the query function returned here (`expected`).
 * (better-sqlite3 is not used for capturing: its SQLite 3.51 picks a pathological plan for the filtered keyword
 * search — it re-runs the FTS query per message of the conversation — which takes minutes at 1M messages.)
 */
import { ArchiveConnection, type Columns, type Param, type Row, type Sql } from '../../src/archive/connection';
import { context } from '../../src/archive/queries/message-context';
import { listConversations } from '../../src/archive/queries/conversations';
import { links } from '../../src/archive/queries/links';
import { attachments } from '../../src/archive/queries/media';
import { searchKeyword } from '../../src/archive/queries/search';
import { transcript } from '../../src/archive/queries/transcript';
import { detectSchema } from '../../src/archive/schema';
import { loadEngine } from '../../src/archive/wasm-engine';
import { buildVocabulary } from '../../test/fixtures';
import { valueColumns } from '../../test/fixtures/native-sql';
import type { BenchArchive } from './data';

export interface Statement {
  sql: string;
  params: Param[];
}

export type ArchiveCall =
  | { method: 'searchKeyword'; args: [Parameters<typeof searchKeyword>[2]] }
  | { method: 'transcript'; args: [Parameters<typeof transcript>[2]] }
  | { method: 'context'; args: [number, number] }
  | { method: 'listConversations'; args: [] }
  | { method: 'attachments'; args: [Parameters<typeof attachments>[2]] }
  | { method: 'links'; args: [Parameters<typeof links>[2]] };

export interface QueryCase {
  key: string;
  label: string;
  group: 'keyword' | 'transcript' | 'context' | 'listing';
  /** What the query is (shown in RESULTS.md). */
  detail: string;
  call: ArchiveCall;
  statements: Statement[];
  /** Ids (message ids, conversation ids or URLs) the archive layer's query function returned. */
  expected: (number | string)[];
  /** Per statement, the key column of every row (see rowKey) — natives must return the same. */
  keys: string[][];
  /** Rows the statements return in total (native). */
  rows: number;
}

/** Ids of an archive-layer result, to compare ours with native. */
export function idsOf(method: ArchiveCall['method'], result: unknown): (number | string)[] {
  switch (method) {
    case 'searchKeyword':
      return (result as { id: number }[]).map((h) => h.id);
    case 'transcript':
      return (result as { messages: { id: number }[] }).messages.map((m) => m.id);
    case 'context':
      return ((result as { id: number }[] | undefined) ?? []).map((m) => m.id);
    case 'listConversations':
      return (result as { id: number }[]).map((c) => c.id);
    case 'attachments':
      return (result as { items: { id: number }[] }).items.map((a) => a.id);
    case 'links':
      return (result as { items: { url: string; count: number }[] }).items.map((l) => `${l.url}#${l.count}`);
  }
}

/** The identifying column of a row (same rule in the native children). */
export function rowKey(r: Record<string, unknown>): string {
  if (r.id !== undefined) return String(r.id);
  if (r.url !== undefined) return `${String(r.url)}#${String(r.cnt)}`;
  if (r.conversation_id !== undefined) return `c${String(r.conversation_id)}`;
  return JSON.stringify(Object.values(r));
}

function recordingSql(
  inner: Sql,
  log: Statement[] | undefined,
  keys: string[][] | undefined,
): Sql & { rowsSeen: number } {
  const self = {
    rowsSeen: 0,
    // Rows through `all`, so they are logged and counted like every other read.
    scan(sql: string, params: readonly Param[], fn: (c: Columns) => void): void {
      for (const r of self.all(sql, params)) fn(valueColumns(Object.values(r)));
    },
    all(sql: string, params: readonly Param[] = []): Row[] {
      log?.push({ sql, params: [...params] });
      const rows = inner.all(sql, params);
      keys?.push(rows.map(rowKey));
      self.rowsSeen += rows.length;
      return rows;
    },
    get(sql: string, params: readonly Param[] = []): Row | undefined {
      log?.push({ sql, params: [...params] });
      const r = inner.get(sql, params);
      keys?.push(r ? [rowKey(r)] : []);
      if (r) self.rowsSeen++;
      return r;
    },
    value(sql: string, params: readonly Param[] = []): Row[string] | undefined {
      const r = self.get(sql, params);
      return r ? Object.values(r)[0] : undefined;
    },
  };
  return self;
}

/** The 3-letter ASCII prefix shared by the most vocabulary words (a prefix query that expands to many terms). */
export function widePrefix(seed: number): { prefix: string; terms: number } {
  const counts = new Map<string, number>();
  for (const w of buildVocabulary(40000, seed).words) {
    if (!/^[a-z]{4,}$/.test(w)) continue;
    const p = w.slice(0, 3);
    counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  const [prefix, terms] = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return { prefix, terms };
}

export async function buildCases(a: BenchArchive, only?: string[]): Promise<QueryCase[]> {
  const conn = new ArchiveConnection(await loadEngine(), a.file);
  try {
    return conn.run((inner) => casesFrom(a, inner, only));
  } finally {
    conn.close();
  }
}

function casesFrom(a: BenchArchive, inner: Sql, only: string[] | undefined): QueryCase[] {
  {
    const schema = detectSchema(inner);
    const one = <T>(sql: string, params: Param[]): T => inner.get(sql, params) as T;
    const desc = a.desc;
    const big = desc.largestConversation;
    const midRow = one<{ ts_unix: number; id: number }>(
      'SELECT ts_unix, id FROM messages WHERE conversation_id = ? ORDER BY ts_unix, id LIMIT 1 OFFSET ?',
      [big.id, Math.floor(big.messages / 2)],
    );
    const small = one<{ cid: number; n: number }>(
      'SELECT conversation_id AS cid, COUNT(*) AS n FROM messages GROUP BY conversation_id HAVING n >= 20 ORDER BY n, conversation_id LIMIT 1',
      [],
    );
    const smallMid = one<{ id: number }>(
      'SELECT id FROM messages WHERE conversation_id = ? ORDER BY ts_unix, id LIMIT 1 OFFSET ?',
      [small.cid, Math.floor(small.n / 2)],
    );
    const rare = desc.sampleWords.rare[0];
    const prefix = widePrefix(desc.seed);
    const specs: Omit<QueryCase, 'statements' | 'expected' | 'rows' | 'keys'>[] = [
      {
        key: 'kw_common',
        label: 'keyword: common word',
        group: 'keyword',
        detail: '"with" (~8% of messages)',
        call: { method: 'searchKeyword', args: [{ query: 'with', limit: 20 }] },
      },
      {
        key: 'kw_rare',
        label: 'keyword: rare word',
        group: 'keyword',
        detail: `"${rare}" (vocabulary rank ~20k)`,
        call: { method: 'searchKeyword', args: [{ query: rare, limit: 20 }] },
      },
      {
        key: 'kw_and',
        label: 'keyword: two-word AND',
        group: 'keyword',
        detail: '"coffee tonight"',
        call: { method: 'searchKeyword', args: [{ query: 'coffee tonight', limit: 20 }] },
      },
      {
        key: 'kw_prefix',
        label: 'keyword: prefix',
        group: 'keyword',
        detail: `"${prefix.prefix}" (prefix of ${prefix.terms} vocabulary words)`,
        call: { method: 'searchKeyword', args: [{ query: prefix.prefix, limit: 20 }] },
      },
      {
        key: 'kw_diacritics',
        label: 'keyword: diacritics',
        group: 'keyword',
        detail: '"cafe" must match "café"',
        call: { method: 'searchKeyword', args: [{ query: 'cafe', limit: 20 }] },
      },
      {
        key: 'kw_filtered',
        label: 'keyword: common + filters',
        group: 'keyword',
        detail: '"with" in the largest conversation, sender "Me"',
        call: { method: 'searchKeyword', args: [{ query: 'with', limit: 20, conversationId: big.id, sender: 'Me' }] },
      },
      {
        key: 'tr_first',
        label: 'transcript: first page',
        group: 'transcript',
        detail: `100 messages, largest conversation (${big.messages} messages)`,
        call: { method: 'transcript', args: [{ conversationId: big.id, limit: 100 }] },
      },
      {
        key: 'tr_mid',
        label: 'transcript: middle keyset page',
        group: 'transcript',
        detail: '100 messages after the middle message (keyset cursor)',
        call: {
          method: 'transcript',
          args: [{ conversationId: big.id, limit: 100, after: { tsUnix: midRow.ts_unix, id: midRow.id } }],
        },
      },
      {
        key: 'ctx_big',
        label: 'context: big conversation',
        group: 'context',
        detail: 'window 5 around the middle message of the largest conversation',
        call: { method: 'context', args: [midRow.id, 5] },
      },
      {
        key: 'ctx_small',
        label: 'context: small conversation',
        group: 'context',
        detail: `window 5, conversation of ${small.n} messages`,
        call: { method: 'context', args: [smallMid.id, 5] },
      },
      {
        key: 'list_conv',
        label: 'list conversations',
        group: 'listing',
        detail: `all ${desc.conversations} conversations with counts (ours: the archive layer caches this per connection)`,
        call: { method: 'listConversations', args: [] },
      },
      {
        key: 'media',
        label: 'media listing',
        group: 'listing',
        detail: 'all kinds, newest 200',
        call: { method: 'attachments', args: [{ kinds: [], limit: 200 }] },
      },
      {
        key: 'links',
        label: 'links listing',
        group: 'listing',
        detail: 'deduplicated per URL, first 200',
        call: { method: 'links', args: [{ limit: 200 }] },
      },
    ];
    return specs
      .filter((s) => !only || only.includes(s.key))
      .map((s) => {
        const log: Statement[] = [];
        const keys: string[][] = [];
        const sql = recordingSql(inner, log, keys);
        const args = s.call.args as never[];
        let result: unknown;
        switch (s.call.method) {
          case 'searchKeyword':
            result = searchKeyword(sql, schema, args[0]);
            break;
          case 'transcript':
            result = transcript(sql, schema, args[0]);
            break;
          case 'context':
            result = context(sql, schema, args[0], args[1]);
            break;
          case 'listConversations':
            result = listConversations(sql, schema);
            break;
          case 'attachments':
            result = attachments(sql, schema, args[0]);
            break;
          case 'links':
            result = links(sql, schema, args[0]);
            break;
        }
        return { ...s, statements: log, expected: idsOf(s.call.method, result), keys, rows: sql.rowsSeen };
      });
  }
}
