/**
 * Independent oracle tests for the journal, on-this-day and people tools (get_journal_day, on_this_day,
 * search_contacts, get_contact), reactions on hits, get_conversation's `order` and search_messages' has_attachment /
 * has_link filters — driven through the SDK client over the real archive layer, against the journal-people fixture.
 *
 * Every expected answer is computed here, from the fixture file itself, with better-sqlite3 and SQL/JS written from
 * the tools' contract (never with anything from src/): counts from `messages` (UTC day of ts_unix, non-system,
 * TRIM(body) <> ''), digests from journal_digests, on-this-day windows on ts_unix, contact matching on folded names
 * and identifiers, facts with their source messages found by hash, FTS matches with the EXISTS filters.
 */
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildJournalArchive, type JournalArchive } from '../fixtures/journal-people';
import { embedText, embeddingInput, openWritable, ArchiveWriter } from '../fixtures/index';
import { startEmbedServer, type TestEmbedServer } from '../embed/test-server';
import { startHarness, tempDir, textOf, type Harness } from './harness';
import { connectInMemory, startRuntime, type Connected } from '../stress/harness/server';

// ---------------------------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------------------------

type Reaction = { emoji: string; actor: string };
type Hit = {
  message_id: number;
  hash: string;
  conversation: string;
  conversation_id: number;
  source: string;
  sender: string;
  timestamp: string;
  text: string;
  link: string;
  score?: number;
  reactions?: Reaction[];
  attachments?: { kind: string; name: string }[];
};
type Digest = {
  summary: string;
  mood: string;
  people: string[];
  themes: string[];
  highlights: { text: string; time: string }[];
  model: string;
  stale: boolean;
};
type JournalDay = {
  day: string;
  message_count: number;
  conversation_count: number;
  source_counts: Record<string, number>;
  top_senders: { name: string; count: number }[];
  digest: Digest | null;
  messages: Hit[];
  next_cursor?: string;
  notes?: string[];
};
type OnThisDay = { date: string; years: { year: number; day: string; messages: Hit[] }[]; notes?: string[] };
type ContactConversation = { id: number; name: string; source: string; message_count: number; link: string };
type Contact = {
  contact_id: number;
  name: string;
  identifiers: { source: string; identifier: string }[];
  conversations: ContactConversation[];
  fact_count: number;
};
type Fact = { fact: string; category: string; source_ts: string; message: Hit | null };
type ContactDetail = Contact & { facts: Fact[]; notes?: string[] };

const BASE = 'vscode://msgbrowse.msgbrowse-vscode';
const messageLink = (conv: number, id: number, hash: string) => `${BASE}/c/${conv}/at/${id}?h=${hash.slice(0, 16)}`;
const conversationLink = (conv: number) => `${BASE}/c/${conv}`;
/** Case- and accent-insensitive form: NFD, combining marks stripped, lowercased. */
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sha = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
const noScore = (h: Hit): Hit => {
  const { score: _score, ...rest } = h;
  return rest;
};
const pick = <T extends object>(o: T, keys: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(keys.map((k) => [k, (o as Record<string, unknown>)[k]]));
const notesText = (r: { notes?: string[] }) => (r.notes ?? []).join('\n');

// ---------------------------------------------------------------------------------------------------------------
// The oracle: the fixture file read directly, the contract written as SQL/JS
// ---------------------------------------------------------------------------------------------------------------

class Oracle {
  readonly db: Database.Database;
  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
  }
  close(): void {
    this.db.close();
  }
  hasTable(name: string): boolean {
    return !!this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(name);
  }
  hasColumn(table: string, col: string): boolean {
    return !!this.db.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE name = ?`).get(table, col);
  }
  private get msgSource(): string {
    return this.hasColumn('messages', 'source') ? 'm.source' : `'signal'`;
  }
  private get convSource(): string {
    return this.hasColumn('conversations', 'source') ? 'c.source' : `'signal'`;
  }

  /** Conversation ids hidden by privacy entries: an exact name in any source, or `source:name`. */
  hiddenIds(exclude: readonly string[]): Set<number> {
    const rows = this.db.prepare(`SELECT c.id, c.name, ${this.convSource} AS source FROM conversations c`).all() as {
      id: number;
      name: string;
      source: string;
    }[];
    return new Set(
      rows.filter((c) => exclude.some((e) => e === c.name || e === `${c.source}:${c.name}`)).map((c) => c.id),
    );
  }

  reactions(hash: string): Reaction[] {
    if (!this.hasTable('reactions')) return [];
    return this.db
      .prepare(`SELECT emoji, actor FROM reactions WHERE message_hash = ? ORDER BY id`)
      .all(hash) as Reaction[];
  }

  private hitFrom(r: {
    id: number;
    hash: string;
    cid: number;
    conv: string;
    src: string;
    sender: string;
    ts: string;
    body: string;
  }): Hit {
    const hit: Hit = {
      message_id: r.id,
      hash: r.hash,
      conversation: r.conv,
      conversation_id: r.cid,
      source: r.src,
      sender: r.sender,
      timestamp: r.ts,
      text: r.body,
      link: messageLink(r.cid, r.id, r.hash),
    };
    const re = this.reactions(r.hash);
    if (re.length) hit.reactions = re;
    const at = this.db
      .prepare(`SELECT kind, original_name AS name FROM attachments WHERE message_id = ? ORDER BY id`)
      .all(r.id) as { kind: string; name: string }[];
    if (at.length) hit.attachments = at;
    return hit;
  }
  private hitSql(where: string): string {
    return `SELECT m.id, m.hash, m.conversation_id AS cid, c.name AS conv, ${this.msgSource} AS src, m.sender, m.ts, m.body
            FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE ${where}`;
  }
  hit(id: number): Hit {
    const r = this.db.prepare(this.hitSql('m.id = ?')).get(id) as Parameters<Oracle['hitFrom']>[0] | undefined;
    if (!r) throw new Error(`oracle: no message ${id}`);
    return this.hitFrom(r);
  }
  hitByHash(hash: string): Hit | null {
    const r = this.db.prepare(this.hitSql('m.hash = ?')).get(hash) as Parameters<Oracle['hitFrom']>[0] | undefined;
    return r ? this.hitFrom(r) : null;
  }

  /** The day's counted messages (UTC day of ts_unix, non-system, TRIM(body) <> ''), in (conversation_id, ts_unix, id). */
  counted(day: string, exclude: readonly string[] = []): { id: number; cid: number; sender: string; src: string }[] {
    const hidden = this.hiddenIds(exclude);
    const rows = this.db
      .prepare(
        `SELECT m.id, m.conversation_id AS cid, m.sender, ${this.msgSource} AS src FROM messages m
         WHERE m.is_system = 0 AND TRIM(m.body) <> '' AND date(m.ts_unix, 'unixepoch') = ?
         ORDER BY m.conversation_id, m.ts_unix, m.id`,
      )
      .all(day) as { id: number; cid: number; sender: string; src: string }[];
    return rows.filter((r) => !hidden.has(r.cid));
  }

  /** Every day that has counted messages, ascending. */
  countedDays(exclude: readonly string[] = []): string[] {
    const hidden = this.hiddenIds(exclude);
    const rows = this.db
      .prepare(
        `SELECT DISTINCT date(ts_unix, 'unixepoch') AS day, conversation_id AS cid FROM messages WHERE is_system = 0 AND TRIM(body) <> ''`,
      )
      .all() as { day: string; cid: number }[];
    return [...new Set(rows.filter((r) => !hidden.has(r.cid)).map((r) => r.day))].sort();
  }

  digestRow(
    day: string,
  ): { body: string; structured: string; mood: string; model: string; message_count?: number } | undefined {
    if (!this.hasTable('journal_digests')) return undefined;
    return this.db.prepare(`SELECT * FROM journal_digests WHERE day = ?`).get(day) as never;
  }

  /** What get_journal_day must answer for `day` (messages: every counted message, all pages together). */
  journal(
    day: string,
    exclude: readonly string[] = [],
  ): Omit<JournalDay, 'next_cursor' | 'notes'> & { why: 'no-tables' | 'no-row' | 'withheld' | 'shown' } {
    const rows = this.counted(day, exclude);
    const source_counts: Record<string, number> = {};
    for (const r of rows) source_counts[r.src] = (source_counts[r.src] ?? 0) + 1;
    const bySender = new Map<string, number>();
    for (const r of rows) if (r.sender !== 'Me') bySender.set(r.sender, (bySender.get(r.sender) ?? 0) + 1);
    const top_senders = [...bySender]
      .map(([name, count]) => ({ name, count }))
      .sort((a, b) => b.count - a.count || cmp(a.name, b.name))
      .slice(0, 5);
    const all = this.counted(day);
    const hiddenThatDay = all.length !== rows.length;
    let digest: Digest | null = null;
    let why: 'no-tables' | 'no-row' | 'withheld' | 'shown';
    if (!this.hasTable('journal_digests')) why = 'no-tables';
    else {
      const d = this.digestRow(day);
      if (!d) why = 'no-row';
      else if (hiddenThatDay) why = 'withheld';
      else {
        why = 'shown';
        const s = d.structured === '' ? {} : (JSON.parse(d.structured) as Partial<Digest>);
        const known = this.hasColumn('journal_digests', 'message_count') ? (d.message_count ?? 0) : 0;
        digest = {
          summary: d.body,
          mood: d.mood,
          people: s.people ?? [],
          themes: s.themes ?? [],
          highlights: s.highlights ?? [],
          model: d.model,
          stale: known > 0 && known !== rows.length,
        };
      }
    }
    return {
      day,
      message_count: rows.length,
      conversation_count: new Set(rows.map((r) => r.cid)).size,
      source_counts,
      top_senders,
      digest,
      messages: rows.map((r) => this.hit(r.id)),
      why,
    };
  }

  /** on_this_day: same month+day in each earlier year, newest first, length(body) DESC, id ASC. */
  onThisDay(date: string, perYear = 3, limit = 12, exclude: readonly string[] = []): OnThisDay['years'] {
    const [Y, M, D] = date.split('-').map(Number);
    const hidden = this.hiddenIds(exclude);
    const first = Number(
      (
        this.db.prepare(`SELECT strftime('%Y', MIN(ts_unix), 'unixepoch') AS y FROM messages`).get() as {
          y: string | null;
        }
      ).y,
    );
    const low = Math.max(first, Y - 20);
    const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
    const pick = this.db.prepare(
      `SELECT id, conversation_id AS cid FROM messages WHERE ts_unix >= ? AND ts_unix < ? AND is_system = 0 AND TRIM(body) <> ''
       ORDER BY length(body) DESC, id ASC`,
    );
    const out: OnThisDay['years'] = [];
    let left = limit;
    for (let y = Y - 1; y >= low && left > 0; y--) {
      if (M === 2 && D === 29 && !isLeap(y)) continue;
      const start = Date.UTC(y, M - 1, D) / 1000;
      const ids = (pick.all(start, start + 86400) as { id: number; cid: number }[])
        .filter((r) => !hidden.has(r.cid))
        .slice(0, Math.min(perYear, left))
        .map((r) => r.id);
      if (!ids.length) continue;
      left -= ids.length;
      out.push({
        year: y,
        day: `${y}-${String(M).padStart(2, '0')}-${String(D).padStart(2, '0')}`,
        messages: ids.map((id) => this.hit(id)),
      });
    }
    return out;
  }

  private contactView(c: { id: number; display_name: string }, exclude: readonly string[]): Contact {
    const hidden = this.hiddenIds(exclude);
    const identifiers = (
      this.db
        .prepare(`SELECT source, identifier FROM contact_identifiers WHERE contact_id = ?`)
        .all(c.id) as Contact['identifiers']
    ).sort((a, b) => cmp(a.source, b.source) || cmp(a.identifier, b.identifier));
    const conversations = (
      this.db
        .prepare(
          `SELECT c.id, c.name, ${this.convSource} AS source, (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count
           FROM conversations c WHERE c.contact_id = ? ORDER BY c.id`,
        )
        .all(c.id) as Omit<ContactConversation, 'link'>[]
    )
      .filter((x) => !hidden.has(x.id))
      .map((x) => ({ ...x, link: conversationLink(x.id) }));
    return {
      contact_id: c.id,
      name: c.display_name,
      identifiers,
      conversations,
      fact_count: this.facts(c.id, exclude).length,
    };
  }

  facts(contactId: number, exclude: readonly string[] = []): Fact[] {
    if (!this.hasTable('contact_facts')) return [];
    const hidden = this.hiddenIds(exclude);
    const rows = this.db
      .prepare(
        `SELECT fact, category, source_ts, source_message_hash AS h FROM contact_facts WHERE contact_id = ? ORDER BY source_ts_unix ASC, id ASC`,
      )
      .all(contactId) as { fact: string; category: string; source_ts: string; h: string }[];
    const out: Fact[] = [];
    for (const r of rows) {
      const message = this.hitByHash(r.h);
      if (message && hidden.has(message.conversation_id)) continue;
      out.push({ fact: r.fact, category: r.category, source_ts: r.source_ts, message });
    }
    return out;
  }

  /** search_contacts: substring of the folded name or any folded identifier; exact name, then prefix, then the rest. */
  searchContacts(query: string, exclude: readonly string[] = []): Contact[] {
    const q = fold(query);
    const contacts = this.db.prepare(`SELECT id, display_name FROM contacts`).all() as {
      id: number;
      display_name: string;
    }[];
    const idents = this.db.prepare(`SELECT contact_id, identifier FROM contact_identifiers`).all() as {
      contact_id: number;
      identifier: string;
    }[];
    const rank = (n: string) => (fold(n) === q ? 0 : fold(n).startsWith(q) ? 1 : 2);
    return contacts
      .filter(
        (c) =>
          fold(c.display_name).includes(q) ||
          idents.some((i) => i.contact_id === c.id && fold(i.identifier).includes(q)),
      )
      .sort(
        (a, b) =>
          rank(a.display_name) - rank(b.display_name) || cmp(fold(a.display_name), fold(b.display_name)) || a.id - b.id,
      )
      .map((c) => this.contactView(c, exclude));
  }

  contact(id: number, exclude: readonly string[] = []): Contact & { facts: Fact[] } {
    const c = this.db.prepare(`SELECT id, display_name FROM contacts WHERE id = ?`).get(id) as
      | { id: number; display_name: string }
      | undefined;
    if (!c) throw new Error(`oracle: no contact ${id}`);
    return { ...this.contactView(c, exclude), facts: this.facts(id, exclude) };
  }

  /** FTS matches of a one-word query ("word"* prefix term), with the attachment / link EXISTS filters. */
  fts(word: string, f: { has_attachment?: boolean; has_link?: boolean } = {}): number[] {
    const cond: string[] = [];
    if (f.has_attachment !== undefined)
      cond.push(`${f.has_attachment ? '' : 'NOT '}EXISTS (SELECT 1 FROM attachments a WHERE a.message_id = m.id)`);
    if (f.has_link !== undefined)
      cond.push(`${f.has_link ? '' : 'NOT '}EXISTS (SELECT 1 FROM links l WHERE l.message_id = m.id)`);
    const rows = this.db
      .prepare(
        `SELECT m.id FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ? ${cond.map((c) => `AND ${c}`).join(' ')} ORDER BY m.id`,
      )
      .all(`"${word.replace(/"/g, '""')}"*`) as { id: number }[];
    return rows.map((r) => r.id);
  }

  /** A conversation's transcript in (ts_unix, id) order. */
  transcript(conv: number): number[] {
    return (
      this.db.prepare(`SELECT id FROM messages WHERE conversation_id = ? ORDER BY ts_unix, id`).all(conv) as {
        id: number;
      }[]
    ).map((r) => r.id);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Callers: the test harness (no privacy) and the production runtime (privacy settings)
// ---------------------------------------------------------------------------------------------------------------

interface Caller {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  ok<T>(name: string, args?: Record<string, unknown>): Promise<T>;
  err(name: string, args?: Record<string, unknown>): Promise<string>;
}

function callerOf(client: Client): Caller {
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    call,
    async ok<T>(name: string, args: Record<string, unknown> = {}) {
      const r = await call(name, args);
      if (r.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${textOf(r)}`);
      return r.structuredContent as T;
    },
    async err(name: string, args: Record<string, unknown> = {}) {
      const r = await call(name, args);
      if (!r.isError)
        throw new Error(
          `${name} ${JSON.stringify(args)} unexpectedly succeeded: ${JSON.stringify(r.structuredContent).slice(0, 400)}`,
        );
      return textOf(r);
    },
  };
}

/** A fixture at `version`, its oracle, and a harness client (output schemas cached, so the client validates them). */
interface Setup {
  dir: string;
  fx: JournalArchive;
  o: Oracle;
  h: Harness;
  c: Caller;
  digest: string;
}
async function setup(version?: number): Promise<Setup> {
  const dir = tempDir(`journal-people-v${version ?? 'latest'}`);
  const fx = buildJournalArchive(dir, version === undefined ? {} : { version });
  const digest = sha(fx.path);
  const o = new Oracle(fx.path);
  const h = await startHarness({ archivePath: fx.path });
  await h.client.listTools();
  return { dir, fx, o, h, c: callerOf(h.client), digest };
}
async function teardown(s: Setup | undefined): Promise<void> {
  if (!s) return;
  await s.h.close();
  s.o.close();
  assert.equal(sha(s.fx.path), s.digest, 'the archive file must be byte-for-byte unchanged');
  fs.rmSync(s.dir, { recursive: true, force: true });
}

/** A privacy runtime (the production one) hiding `exclude`, on its own copy of the fixture. */
interface PrivateSetup {
  dir: string;
  fx: JournalArchive;
  o: Oracle;
  conn: Connected;
  c: Caller;
  dispose(): Promise<void>;
}
async function privateSetup(exclude: string[]): Promise<PrivateSetup> {
  const dir = tempDir('journal-people-private');
  const fx = buildJournalArchive(dir);
  const o = new Oracle(fx.path);
  const runtime = startRuntime({ archivePath: fx.path, extra: { privacy: { excludeConversations: exclude } } });
  const conn = await connectInMemory(runtime, 'journal-people-privacy');
  return {
    dir,
    fx,
    o,
    conn,
    c: callerOf(conn.client),
    async dispose() {
      await conn.close();
      await runtime.dispose();
      o.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Shared checks
// ---------------------------------------------------------------------------------------------------------------

/** All pages of get_journal_day at `limit` (day passed on every page). */
async function journalPages(c: Caller, day: string, limit?: number): Promise<{ pages: JournalDay[]; messages: Hit[] }> {
  const pages: JournalDay[] = [];
  let cursor: string | undefined;
  do {
    const args: Record<string, unknown> = { day };
    if (limit !== undefined) args.limit = limit;
    if (cursor) args.cursor = cursor;
    const r = await c.ok<JournalDay>('get_journal_day', args);
    pages.push(r);
    cursor = r.next_cursor;
    assert.ok(pages.length < 200, 'get_journal_day paging does not terminate');
  } while (cursor);
  return { pages, messages: pages.flatMap((p) => p.messages) };
}

/** get_journal_day(day) against the oracle: counts, senders, digest (and its note), every message in order. */
async function checkJournalDay(
  c: Caller,
  o: Oracle,
  day: string,
  exclude: readonly string[] = [],
  limit = 500,
): Promise<JournalDay> {
  const exp = o.journal(day, exclude);
  const { pages, messages } = await journalPages(c, day, limit);
  const r = pages[0];
  const label = `get_journal_day ${day}${exclude.length ? ` hiding ${exclude.join(', ')}` : ''}`;
  assert.equal(r.day, day, label);
  assert.equal(r.message_count, exp.message_count, `${label}: message_count`);
  assert.equal(r.conversation_count, exp.conversation_count, `${label}: conversation_count`);
  assert.deepEqual(r.source_counts, exp.source_counts, `${label}: source_counts`);
  assert.deepEqual(r.top_senders, exp.top_senders, `${label}: top_senders`);
  if (exp.digest === null) assert.equal(r.digest, null, `${label}: digest must be null (${exp.why})`);
  else {
    assert.ok(r.digest, `${label}: digest expected`);
    assert.deepEqual(pick(r.digest, Object.keys(exp.digest)), exp.digest, `${label}: digest`);
  }
  if (exp.why === 'no-row')
    assert.match(notesText(r), /msgbrowse journal/, `${label}: a missing digest says how to build one`);
  if (exp.why === 'no-tables') assert.match(notesText(r), /v11|11/, `${label}: digests need schema v11+`);
  if (exp.why === 'withheld') assert.ok((r.notes ?? []).length > 0, `${label}: a withheld digest comes with a note`);
  assert.deepEqual(messages.map(noScore), exp.messages, `${label}: messages`);
  return r;
}

async function checkOnThisDay(
  c: Caller,
  o: Oracle,
  args: { date: string; per_year?: number; limit?: number },
  exclude: readonly string[] = [],
): Promise<OnThisDay> {
  const r = await c.ok<OnThisDay>('on_this_day', args);
  const label = `on_this_day ${JSON.stringify(args)}`;
  assert.equal(r.date, args.date, label);
  const exp = o.onThisDay(args.date, Math.min(args.per_year ?? 3, 10), Math.min(args.limit ?? 12, 50), exclude);
  assert.deepEqual(
    r.years.map((y) => ({ year: y.year, day: y.day, messages: y.messages.map(noScore) })),
    exp,
    label,
  );
  return r;
}

const CONTACT_KEYS = ['contact_id', 'name', 'identifiers', 'conversations', 'fact_count'] as const;
/** A contact's listed fields; identifiers and conversations (whose order the contract leaves open) sorted. */
function normContact(x: Contact): Record<string, unknown> {
  const p = pick(x, CONTACT_KEYS) as unknown as Contact;
  return {
    ...p,
    identifiers: [...(p.identifiers ?? [])]
      .map((i) => pick(i, ['source', 'identifier']))
      .sort((a, b) => cmp(String(a.source), String(b.source)) || cmp(String(a.identifier), String(b.identifier))),
    conversations: [...(p.conversations ?? [])]
      .map((v) => pick(v, ['id', 'name', 'source', 'message_count', 'link']))
      .sort((a, b) => Number(a.id) - Number(b.id)),
  };
}
function normFacts(facts: Fact[]): Record<string, unknown>[] {
  return facts.map((f) => ({
    ...pick(f, ['fact', 'category', 'source_ts']),
    message: f.message === null ? null : noScore(f.message),
  }));
}

/**
 * With conversations hidden, the contract leaves open whether an identifier that is itself a hidden conversation's
 * name (e.g. imessage:+15550001111) is shown: only those may be missing; every other identifier must be there.
 */
function compareContacts(actual: Contact[], expected: Contact[], exclude: readonly string[], label: string): void {
  if (!exclude.length) {
    assert.deepEqual(actual.map(normContact), expected.map(normContact), label);
    return;
  }
  const withoutIds = (x: Contact) => ({ ...normContact(x), identifiers: undefined });
  assert.deepEqual(actual.map(withoutIds), expected.map(withoutIds), label);
  const key = (i: { source: string; identifier: string }) => `${i.source}:${i.identifier}`;
  for (const [n, a] of actual.entries()) {
    const want = expected[n].identifiers.map(key);
    const got = (a.identifiers ?? []).map(key);
    for (const g of got) assert.ok(want.includes(g), `${label}: identifier ${g} is the contact's`);
    for (const w of want) if (!exclude.includes(w)) assert.ok(got.includes(w), `${label}: identifier ${w} is listed`);
  }
}

async function checkSearchContacts(
  c: Caller,
  o: Oracle,
  query: string,
  exclude: readonly string[] = [],
): Promise<{ contacts: Contact[]; notes?: string[] }> {
  const r = await c.ok<{ contacts: Contact[]; notes?: string[] }>('search_contacts', { query });
  compareContacts(r.contacts, o.searchContacts(query, exclude), exclude, `search_contacts ${JSON.stringify(query)}`);
  return r;
}

async function checkGetContact(
  c: Caller,
  o: Oracle,
  args: Record<string, unknown>,
  id: number,
  exclude: readonly string[] = [],
): Promise<ContactDetail> {
  const r = await c.ok<ContactDetail>('get_contact', args);
  const exp = o.contact(id, exclude);
  const label = `get_contact ${JSON.stringify(args)}`;
  compareContacts([r], [exp], exclude, label);
  assert.deepEqual(normFacts(r.facts), normFacts(exp.facts), `${label}: facts`);
  if (exp.facts.some((f) => f.message === null))
    assert.ok((r.notes ?? []).length > 0, `${label}: a fact whose message is gone comes with a note`);
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// The oracle checks itself against facts about the fixture (so a wrong oracle cannot pass silently)
// ---------------------------------------------------------------------------------------------------------------

describe('oracle self-check (fixture facts, no tools)', () => {
  let s: { dir: string; fx: JournalArchive; o: Oracle };
  before(() => {
    const dir = tempDir('journal-people-oracle');
    const fx = buildJournalArchive(dir);
    s = { dir, fx, o: new Oracle(fx.path) };
  });
  after(() => {
    s?.o.close();
    if (s) fs.rmSync(s.dir, { recursive: true, force: true });
  });

  test('busy day, outdated day, digests', () => {
    const { o, fx } = s;
    const busy = o.journal('2023-05-01');
    assert.equal(busy.message_count, 19);
    assert.equal(busy.conversation_count, 4);
    assert.deepEqual(busy.source_counts, { signal: 16, imessage: 2, whatsapp: 1 });
    assert.deepEqual(
      busy.top_senders.map((x) => `${x.name}:${x.count}`),
      ['Ana:3', 'Maya:3', 'Ben:2', 'Cleo:2', 'Zed:2'],
    );
    assert.equal(busy.messages[0].message_id, fx.marks.busyFirst.id);
    assert.equal(busy.digest?.stale, true);
    assert.deepEqual(busy.messages.find((m) => m.message_id === fx.marks.reacted.id)?.reactions, [
      { emoji: '🔭', actor: 'Me' },
      { emoji: '❤️', actor: 'Maya' },
    ]);
    const outdated = o.journal(fx.outdatedDay!);
    assert.equal(outdated.message_count, 2);
    assert.deepEqual(outdated.top_senders, [{ name: 'Maya', count: 1 }]);
    const stored = o.db.prepare(`SELECT message_count FROM journal_days WHERE day = ?`).get(fx.outdatedDay) as {
      message_count: number;
    };
    assert.notEqual(
      stored.message_count,
      outdated.message_count,
      'the fixture stores a wrong count for the outdated day',
    );
    assert.equal(o.journal('2023-05-03').digest?.stale, false);
    assert.deepEqual(o.journal('2019-07-25').digest, {
      summary: 'Harper booked the cabin.',
      mood: 'neutral',
      people: [],
      themes: [],
      highlights: [],
      model: 'llama3.1:8b',
      stale: false,
    });
    assert.deepEqual(
      o.journal('2019-07-25').messages.map((m) => m.message_id),
      [fx.marks.shortOne.id, fx.marks.cabin.id],
    );
    const club = o.journal('2023-05-01', ['signal:Climbing Club']);
    assert.equal(club.message_count, 7);
    assert.equal(club.digest, null);
    assert.equal(club.why, 'withheld');
  });

  test('on this day', () => {
    const { o, fx } = s;
    const ids = (ys: OnThisDay['years']) => ys.map((y) => [y.day, ...y.messages.map((m) => m.message_id)]);
    assert.deepEqual(ids(o.onThisDay('2026-07-25')), [
      ['2021-07-25', fx.marks.secretDay.id, fx.marks.lunch.id],
      ['2019-07-25', fx.marks.cabin.id, fx.marks.shortOne.id],
    ]);
    assert.deepEqual(ids(o.onThisDay('2026-07-25', 3, 12, ['Secret'])), [
      ['2021-07-25', fx.marks.lunch.id],
      ['2019-07-25', fx.marks.cabin.id, fx.marks.shortOne.id],
    ]);
    assert.equal(o.onThisDay('2025-07-25').at(-1)?.day, '2005-07-25');
    assert.deepEqual(ids(o.onThisDay('2024-02-29')), [['2020-02-29', fx.marks.leapDay.id]]);
  });

  test('contacts', () => {
    const { o, fx } = s;
    assert.deepEqual(
      o.searchContacts('zoe').map((c) => c.contact_id),
      [fx.contacts!.zoe],
    );
    assert.deepEqual(
      o.searchContacts('maya@EXAMPLE').map((c) => c.contact_id),
      [fx.contacts!.maya],
    );
    assert.deepEqual(
      o.searchContacts('+1555000').map((c) => c.contact_id),
      [fx.contacts!.maya],
    );
    const maya = o.contact(fx.contacts!.maya);
    assert.equal(maya.conversations.length, 2);
    assert.equal(maya.fact_count, 4);
    assert.equal(maya.facts[0].message, null);
    assert.equal(o.contact(fx.contacts!.maya, ['imessage:+15550001111']).fact_count, 3);
    assert.deepEqual(o.fts('photo', { has_attachment: true }), [fx.marks.withPhoto.id]);
    assert.deepEqual(o.fts('trail', { has_link: true }), [fx.marks.withLink.id]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The latest schema
// ---------------------------------------------------------------------------------------------------------------

describe('journal and people tools (schema v16)', () => {
  let s: Setup;
  before(async () => {
    s = await setup();
  });
  after(async () => {
    await teardown(s);
  });

  test('tools/list: the new tools and parameters are there, read-only', async () => {
    const { tools } = await s.h.client.listTools();
    const props = (name: string) => {
      const t = tools.find((x) => x.name === name);
      assert.ok(t, `tool ${name} is listed`);
      assert.equal(t.annotations?.readOnlyHint, true, name);
      return Object.keys(t.inputSchema.properties ?? {});
    };
    for (const p of ['day', 'limit', 'cursor']) assert.ok(props('get_journal_day').includes(p), `get_journal_day.${p}`);
    for (const p of ['date', 'per_year', 'limit']) assert.ok(props('on_this_day').includes(p), `on_this_day.${p}`);
    assert.ok(props('search_contacts').includes('query'));
    for (const p of ['contact_id', 'name']) assert.ok(props('get_contact').includes(p), `get_contact.${p}`);
    assert.ok(props('get_conversation').includes('order'));
    for (const p of ['has_attachment', 'has_link'])
      assert.ok(props('search_messages').includes(p), `search_messages.${p}`);
  });

  describe('get_journal_day', () => {
    test('every day with messages: counts from messages, digest, messages in (conversation, ts, id) order', async () => {
      for (const day of s.o.countedDays()) await checkJournalDay(s.c, s.o, day);
    });

    test('the busy day: stale digest with its structured fields; Me excluded from top senders', async () => {
      const r = await checkJournalDay(s.c, s.o, '2023-05-01');
      assert.equal(r.message_count, 19);
      assert.equal(r.digest?.stale, true);
      assert.equal(r.digest?.mood, 'upbeat');
      assert.deepEqual(r.digest?.people, ['Maya', 'Ana']);
      assert.deepEqual(r.digest?.highlights, [
        { text: 'Maya works at the observatory now', time: '08:03' },
        { text: 'club meets at the wall', time: '' },
      ]);
      assert.ok(r.top_senders.every((x) => x.name !== 'Me'));
    });

    test('fresh digest is not stale; a digest without structured JSON has empty lists', async () => {
      assert.equal((await checkJournalDay(s.c, s.o, s.fx.digests.fresh[0])).digest?.stale, false);
      const old = await checkJournalDay(s.c, s.o, '2019-07-25');
      assert.deepEqual([old.digest?.people, old.digest?.themes, old.digest?.highlights], [[], [], []]);
      assert.equal(old.digest?.stale, false);
      assert.equal(old.message_count, 2, 'the system row and the blank body do not count');
    });

    test('the out-of-date journal_days row is ignored: true counts from messages', async () => {
      const r = await checkJournalDay(s.c, s.o, s.fx.outdatedDay!);
      assert.equal(r.message_count, 2);
      assert.deepEqual(r.top_senders, [{ name: 'Maya', count: 1 }]);
    });

    test('days without a digest: digest null and a note naming `msgbrowse journal`', async () => {
      for (const day of s.fx.digests.missing) {
        const r = await checkJournalDay(s.c, s.o, day);
        assert.equal(r.digest, null);
        assert.match(notesText(r), /msgbrowse journal/);
      }
    });

    test('paging: next_cursor only when more; pages concatenate to the whole day, no gaps or repeats', async () => {
      const exp = s.o.journal('2023-05-01').messages;
      for (const limit of [1, 5, 18, 19, 20]) {
        const { pages, messages } = await journalPages(s.c, '2023-05-01', limit);
        assert.deepEqual(messages.map(noScore), exp, `limit ${limit}`);
        assert.equal(pages.length, Math.ceil(exp.length / limit), `limit ${limit}: pages`);
        for (const [i, p] of pages.entries()) {
          assert.equal(p.messages.length, Math.min(limit, exp.length - i * limit), `limit ${limit}: page ${i} size`);
          assert.equal(p.next_cursor !== undefined, i < pages.length - 1, `limit ${limit}: page ${i} next_cursor`);
          assert.equal(p.message_count, exp.length, 'every page carries the day counts');
        }
      }
    });

    test('default limit answers the whole 19-message day in one page; above 500 is clamped with a note', async () => {
      const r = await s.c.ok<JournalDay>('get_journal_day', { day: '2023-05-01' });
      assert.deepEqual(r.messages.map(noScore), s.o.journal('2023-05-01').messages);
      assert.equal(r.next_cursor, undefined);
      const big = await s.c.ok<JournalDay>('get_journal_day', { day: '2023-05-01', limit: 600 });
      assert.equal(big.messages.length, 19);
      assert.match(notesText(big), /500/);
    });

    test('a day without counted messages: error naming the nearest earlier and later days', async () => {
      const days = s.o.countedDays();
      for (const day of ['2022-06-15', '2019-07-27', '2023-04-30', '2000-01-01', '2030-01-01']) {
        const msg = await s.c.err('get_journal_day', { day });
        const earlier = days.filter((d) => d < day).at(-1);
        const later = days.find((d) => d > day);
        if (earlier) assert.ok(msg.includes(earlier), `${day}: error names ${earlier}: ${msg}`);
        if (later) assert.ok(msg.includes(later), `${day}: error names ${later}: ${msg}`);
      }
    });

    test('malformed or impossible days are errors', async () => {
      for (const day of ['2023-13-01', 'yesterday', '2023-5-1', '2023-02-30', '2023-05-01T00:00:00']) {
        const msg = await s.c.err('get_journal_day', { day });
        assert.match(msg, /YYYY-MM-DD|calendar|valid|date/i, `${JSON.stringify(day)}: ${msg}`);
      }
      assert.match(await s.c.err('get_journal_day', { day: 'yesterday' }), /YYYY-MM-DD/);
      assert.match(await s.c.err('get_journal_day', { day: '2023-5-1' }), /YYYY-MM-DD/);
      assert.match(await s.c.err('get_journal_day', { day: '2023-13-01' }), /YYYY-MM-DD|2023-13-01|calendar/);
      await s.c.err('get_journal_day', { day: '' });
      await s.c.err('get_journal_day', {});
    });
  });

  describe('on_this_day', () => {
    test('2026-07-25: 2021 then 2019, longest body first, decoys never, 2005 outside the 20-year window', async () => {
      const r = await checkOnThisDay(s.c, s.o, { date: '2026-07-25' });
      assert.deepEqual(
        r.years.map((y) => y.year),
        [2021, 2019],
      );
      assert.deepEqual(
        r.years[1].messages.map((m) => m.message_id),
        [s.fx.marks.cabin.id, s.fx.marks.shortOne.id],
      );
      const ids = r.years.flatMap((y) => y.messages.map((m) => m.message_id));
      for (const k of ['decoyBefore', 'decoyAfter'] as const) assert.ok(!ids.includes(s.fx.marks[k].id), k);
    });

    test('2025-07-25 reaches back to 2005 (year − 20)', async () => {
      const r = await checkOnThisDay(s.c, s.o, { date: '2025-07-25' });
      assert.deepEqual(
        r.years.map((y) => y.year),
        [2021, 2019, 2005],
      );
    });

    test('per_year and limit', async () => {
      const one = await checkOnThisDay(s.c, s.o, { date: '2026-07-25', per_year: 1 });
      assert.deepEqual(
        one.years.map((y) => y.messages.map((m) => m.message_id)),
        [[s.fx.marks.secretDay.id], [s.fx.marks.cabin.id]],
      );
      const lim = await checkOnThisDay(s.c, s.o, { date: '2026-07-25', limit: 1 });
      assert.deepEqual(
        lim.years.map((y) => y.year),
        [2021],
      );
      await checkOnThisDay(s.c, s.o, { date: '2026-07-25', per_year: 1, limit: 1 });
      await checkOnThisDay(s.c, s.o, { date: '2026-07-25', limit: 3 });
      await checkOnThisDay(s.c, s.o, { date: '2025-07-25', per_year: 10, limit: 4 });
    });

    test('per_year above 10 and limit above 50 are clamped with notes', async () => {
      const a = await checkOnThisDay(s.c, s.o, { date: '2025-07-25', per_year: 11 });
      assert.match(notesText(a), /10/);
      const b = await checkOnThisDay(s.c, s.o, { date: '2025-07-25', limit: 51 });
      assert.match(notesText(b), /50/);
    });

    test('Feb 29, Feb 28, Mar 1: only real calendar days match', async () => {
      const leap = await checkOnThisDay(s.c, s.o, { date: '2024-02-29' });
      assert.deepEqual(
        leap.years.map((y) => y.day),
        ['2020-02-29'],
      );
      const feb28 = await checkOnThisDay(s.c, s.o, { date: '2025-02-28' });
      assert.deepEqual(
        feb28.years.map((y) => y.day),
        ['2021-02-28'],
      );
      const mar1 = await checkOnThisDay(s.c, s.o, { date: '2022-03-01' });
      assert.deepEqual(
        mar1.years.map((y) => y.day),
        ['2021-03-01'],
      );
      const same = await checkOnThisDay(s.c, s.o, { date: '2021-03-01' });
      assert.deepEqual(same.years, [], 'the asked year itself is never searched');
    });

    test('2025-02-29 (not a real date): an error, or no results with a note', async () => {
      const r = await s.c.call('on_this_day', { date: '2025-02-29' });
      if (r.isError) assert.match(textOf(r), /2025-02-29|calendar|leap|valid|YYYY-MM-DD/i);
      else {
        const sc = r.structuredContent as OnThisDay;
        assert.deepEqual(sc.years, []);
        assert.ok((sc.notes ?? []).length > 0, 'no results come with a note');
      }
    });

    test('malformed date is an error; no date means today', async () => {
      for (const date of ['tomorrow', '2026-7-25', '2026-13-01'])
        assert.match(await s.c.err('on_this_day', { date }), /YYYY-MM-DD|calendar|valid|date/i, date);
      const today = await s.c.ok<OnThisDay>('on_this_day', {});
      assert.match(today.date, /^\d{4}-\d{2}-\d{2}$/);
      const now = new Date();
      const utc = now.toISOString().slice(0, 10);
      const local = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
      assert.ok([utc, local].includes(today.date), `date ${today.date} is today`);
      await checkOnThisDay(s.c, s.o, { date: today.date });
    });
  });

  describe('search_contacts', () => {
    test('accent- and case-insensitive name and identifier substrings; merged contact is one', async () => {
      const zoe = await checkSearchContacts(s.c, s.o, 'zoe');
      assert.deepEqual(
        zoe.contacts.map((c) => c.name),
        ['Zoë Martin'],
      );
      const byMail = await checkSearchContacts(s.c, s.o, 'maya@EXAMPLE');
      assert.deepEqual(
        byMail.contacts.map((c) => c.contact_id),
        [s.fx.contacts!.maya],
      );
      assert.equal(byMail.contacts[0].conversations.length, 2, "Maya's signal and iMessage threads");
      const byPhone = await checkSearchContacts(s.c, s.o, '+1555000');
      assert.deepEqual(
        byPhone.contacts.map((c) => c.contact_id),
        [s.fx.contacts!.maya],
      );
      await checkSearchContacts(s.c, s.o, 'ZOË MARTIN');
      await checkSearchContacts(s.c, s.o, '+33 6 12');
    });

    test('order: exact name, then name prefix, then the rest by folded name', async () => {
      for (const q of ['e', 'c', 'r', 'ma', 'maya', 'a', 'Climbing Club', 'CLIMB'])
        await checkSearchContacts(s.c, s.o, q);
      const e = await s.c.ok<{ contacts: Contact[] }>('search_contacts', { query: 'c' });
      assert.equal(e.contacts[0]?.name, 'Climbing Club', 'a name prefix comes before identifier matches');
    });

    test('conversation message_count counts every message (system rows too) and links the conversation', async () => {
      const r = await s.c.ok<{ contacts: Contact[] }>('search_contacts', { query: 'harper' });
      const harper = r.contacts.find((c) => c.name === 'Harper')!;
      assert.ok(harper);
      assert.equal(harper.conversations[0].message_count, 10);
      assert.equal(harper.conversations[0].link, conversationLink(harper.conversations[0].id));
    });

    test('no match: empty list plus a note', async () => {
      const r = await checkSearchContacts(s.c, s.o, 'nobody-by-this-name');
      assert.deepEqual(r.contacts, []);
      assert.ok((r.notes ?? []).length > 0, 'an empty answer says so');
    });
  });

  describe('get_contact', () => {
    test('by id: facts oldest first, source messages as hits (with reactions), the deleted one null with a note', async () => {
      const r = await checkGetContact(s.c, s.o, { contact_id: s.fx.contacts!.maya }, s.fx.contacts!.maya);
      assert.equal(r.fact_count, 4);
      assert.equal(r.facts[0].message, null);
      assert.equal(r.facts[2].message?.message_id, s.fx.marks.reacted.id);
      assert.equal(r.facts[2].message?.reactions?.length, 2);
    });

    test('by name, case- and accent-insensitively', async () => {
      await checkGetContact(s.c, s.o, { name: 'zoe martin' }, s.fx.contacts!.zoe);
      await checkGetContact(s.c, s.o, { name: 'MAYA' }, s.fx.contacts!.maya);
      const harper = s.o.searchContacts('Harper')[0].contact_id;
      const r = await checkGetContact(s.c, s.o, { name: 'Harper' }, harper);
      assert.deepEqual(r.facts, []);
      assert.equal(r.fact_count, 0);
    });

    test('errors: unknown id, unknown name, neither, both', async () => {
      assert.match(await s.c.err('get_contact', { contact_id: 9999 }), /9999/);
      assert.match(await s.c.err('get_contact', { name: 'Nobody Atall' }), /Nobody Atall/);
      const neither = await s.c.err('get_contact', {});
      assert.match(neither, /contact_id/);
      assert.match(neither, /name/);
      const both = await s.c.err('get_contact', { contact_id: s.fx.contacts!.maya, name: 'Maya' });
      assert.match(both, /contact_id/);
      assert.match(both, /name/);
    });
  });

  describe('reactions on hits', () => {
    const REACTIONS = [
      { emoji: '🔭', actor: 'Me' },
      { emoji: '❤️', actor: 'Maya' },
    ];
    test('get_journal_day', async () => {
      const r = await s.c.ok<JournalDay>('get_journal_day', { day: '2023-05-01', limit: 500 });
      const reacted = r.messages.find((m) => m.message_id === s.fx.marks.reacted.id);
      assert.deepEqual(reacted?.reactions, REACTIONS);
      for (const m of r.messages)
        if (m.message_id !== s.fx.marks.reacted.id)
          assert.equal(m.reactions, undefined, `message ${m.message_id} has no reactions`);
    });

    test('get_context', async () => {
      const t = s.fx.marks.reacted;
      const r = await s.c.ok<{ messages: Hit[] }>('get_context', { message_id: t.id, window: 1 });
      const tr = s.o.transcript(t.conversationId);
      const i = tr.indexOf(t.id);
      assert.deepEqual(
        r.messages.map(noScore),
        tr.slice(i - 1, i + 2).map((id) => s.o.hit(id)),
      );
      assert.deepEqual(r.messages.find((m) => m.message_id === t.id)?.reactions, REACTIONS);
    });

    test('get_conversation', async () => {
      const t = s.fx.marks.reacted;
      const r = await s.c.ok<{ messages: Hit[] }>('get_conversation', {
        conversation_id: t.conversationId,
        limit: 500,
      });
      assert.deepEqual(
        r.messages.map(noScore),
        s.o.transcript(t.conversationId).map((id) => s.o.hit(id)),
      );
    });

    test('search_messages', async () => {
      const r = await s.c.ok<{ hits: Hit[] }>('search_messages', { query: 'observatory' });
      assert.deepEqual(
        r.hits.map((x) => x.message_id).sort((a, b) => a - b),
        s.o.fts('observatory'),
      );
      for (const x of r.hits) assert.deepEqual(x.reactions, s.o.hit(x.message_id).reactions, `message ${x.message_id}`);
      assert.deepEqual(r.hits.find((x) => x.message_id === s.fx.marks.reacted.id)?.reactions, REACTIONS);
    });
  });

  describe('get_conversation order', () => {
    const pages = async (first: Record<string, unknown>, next: (cursor: string) => Record<string, unknown>) => {
      const out: Hit[][] = [];
      let r = await s.c.ok<{ messages: Hit[]; next_cursor?: string }>('get_conversation', first);
      out.push(r.messages);
      while (r.next_cursor) {
        r = await s.c.ok('get_conversation', next(r.next_cursor));
        out.push(r.messages);
        assert.ok(out.length < 50, 'paging does not terminate');
      }
      return out;
    };

    test('newest: newest first, next_cursor continues to older messages, pages = transcript reversed', async () => {
      const maya = s.fx.marks.mayaLast.conversationId;
      const reversed = s.o.transcript(maya).reverse();
      const got = await pages({ conversation_id: maya, order: 'newest', limit: 2 }, (cursor) => ({
        cursor,
        order: 'newest',
        limit: 2,
      }));
      assert.deepEqual(
        got.map((p) => p.map((m) => m.message_id)),
        [reversed.slice(0, 2), reversed.slice(2, 4), reversed.slice(4, 6), reversed.slice(6)],
      );
      assert.equal(got[0][0].message_id, s.fx.marks.mayaLast.id);
      assert.deepEqual(
        got.flat().map(noScore),
        reversed.map((id) => s.o.hit(id)),
      );
    });

    test('newest: the cursor alone keeps the order', async () => {
      const maya = s.fx.marks.mayaLast.conversationId;
      const got = await pages({ name: 'Maya', order: 'newest', limit: 2 }, (cursor) => ({ cursor, limit: 2 }));
      assert.deepEqual(
        got.flat().map((m) => m.message_id),
        s.o.transcript(maya).reverse(),
      );
    });

    test('newest within date bounds: the newest of the range first, paging down to its oldest', async () => {
      const maya = s.fx.marks.mayaLast.conversationId;
      const day = s.o
        .transcript(maya)
        .filter((id) => s.o.hit(id).timestamp.startsWith('2023-05-01'))
        .reverse();
      const args = { conversation_id: maya, order: 'newest', start: '2023-05-01', end: '2023-05-01', limit: 3 };
      const got = await pages(args, (cursor) => ({ ...args, cursor }));
      assert.deepEqual(
        got.map((p) => p.map((m) => m.message_id)),
        [day.slice(0, 3), day.slice(3)],
      );
    });

    test('oldest (explicit and default) is chronological; an unknown order is an error', async () => {
      const maya = s.fx.marks.mayaLast.conversationId;
      for (const extra of [{}, { order: 'oldest' }]) {
        const got = await pages({ name: 'Maya', limit: 2, ...extra }, (cursor) => ({ cursor, limit: 2, ...extra }));
        assert.deepEqual(
          got.flat().map((m) => m.message_id),
          s.o.transcript(maya),
          JSON.stringify(extra),
        );
      }
      assert.match(await s.c.err('get_conversation', { name: 'Maya', order: 'sideways' }), /oldest|newest/);
    });
  });

  describe('search_messages has_attachment / has_link', () => {
    const cases: [string, { has_attachment?: boolean; has_link?: boolean }][] = [
      ['photo', { has_attachment: true }],
      ['photo', { has_attachment: false }],
      ['trail', { has_link: true }],
      ['trail', { has_link: false }],
      ['the', {}],
      ['the', { has_attachment: true }],
      ['the', { has_attachment: false }],
      ['the', { has_link: true }],
      ['the', { has_link: false }],
      ['the', { has_attachment: true, has_link: false }],
      ['the', { has_attachment: false, has_link: false }],
      ['maps', { has_link: true }],
      ['hike', { has_attachment: false }],
    ];
    for (const [query, f] of cases) {
      test(`${query} ${JSON.stringify(f)}`, async () => {
        const r = await s.c.ok<{ hits: Hit[] }>('search_messages', { query, limit: 100, ...f });
        const exp = s.o.fts(query, f);
        const got = r.hits.map((x) => x.message_id);
        assert.equal(new Set(got).size, got.length, 'no duplicates');
        assert.deepEqual(
          [...got].sort((a, b) => a - b),
          exp,
          'the FTS matches that satisfy the filter',
        );
        for (const x of r.hits) {
          const { text: _t, score: _s, ...rest } = x;
          const { text: _et, ...want } = s.o.hit(x.message_id);
          assert.deepEqual(rest, want, `hit ${x.message_id}`);
        }
      });
    }

    test('the filters narrow the unfiltered results; limit still applies', async () => {
      const all = s.o.fts('the');
      assert.ok(all.length > 3);
      const r = await s.c.ok<{ hits: Hit[] }>('search_messages', { query: 'the', has_attachment: false, limit: 3 });
      assert.equal(r.hits.length, 3);
      const allowed = new Set(s.o.fts('the', { has_attachment: false }));
      for (const x of r.hits) assert.ok(allowed.has(x.message_id), `hit ${x.message_id} satisfies the filter`);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Privacy (the production runtime with conversations hidden from models)
// ---------------------------------------------------------------------------------------------------------------

describe('privacy: hidden conversations', () => {
  describe('hiding "Secret"', () => {
    const EX = ['Secret'];
    let p: PrivateSetup;
    before(async () => {
      p = await privateSetup(EX);
    });
    after(async () => {
      await p?.dispose();
    });

    test('get_journal_day leaves it out of counts and messages', async () => {
      const r = await checkJournalDay(p.c, p.o, '2021-07-25', EX);
      assert.equal(r.message_count, 1);
      assert.deepEqual(r.source_counts, { signal: 1 });
      const json = JSON.stringify(r);
      assert.ok(!json.includes(p.fx.marks.secretDay.body), 'hidden text never shown');
      assert.ok(!json.includes(p.fx.marks.secretDay.hash), 'hidden hash never shown');
      for (const day of p.o.countedDays(EX)) await checkJournalDay(p.c, p.o, day, EX);
    });

    test('on_this_day never shows its message', async () => {
      const r = await checkOnThisDay(p.c, p.o, { date: '2026-07-25' }, EX);
      assert.deepEqual(
        r.years[0].messages.map((m) => m.message_id),
        [p.fx.marks.lunch.id],
      );
      await checkOnThisDay(p.c, p.o, { date: '2026-07-25', per_year: 1, limit: 1 }, EX);
      assert.ok(!JSON.stringify(r).includes(p.fx.marks.secretDay.hash));
    });
  });

  describe('hiding the Climbing Club (signal:Climbing Club)', () => {
    const EX = ['signal:Climbing Club'];
    let p: PrivateSetup;
    before(async () => {
      p = await privateSetup(EX);
    });
    after(async () => {
      await p?.dispose();
    });

    test('the busy day: counts without the club; the digest is withheld with a note', async () => {
      const r = await checkJournalDay(p.c, p.o, '2023-05-01', EX);
      assert.equal(r.message_count, 7);
      assert.equal(r.conversation_count, 3);
      assert.equal(r.digest, null);
      assert.ok((r.notes ?? []).length > 0);
      assert.ok(r.messages.every((m) => m.conversation !== 'Climbing Club'));
      for (const limit of [1, 2, 6, 7]) await checkJournalDay(p.c, p.o, '2023-05-01', EX, limit);
    });

    test('a day with a digest but no hidden messages keeps its digest', async () => {
      const r = await checkJournalDay(p.c, p.o, '2019-07-25', EX);
      assert.ok(r.digest);
    });

    test('days that only the club had are days without messages (nearest visible days named)', async () => {
      for (const day of ['2023-05-02', '2023-05-03']) {
        const msg = await p.c.err('get_journal_day', { day });
        assert.ok(msg.includes('2023-05-01'), `${day}: ${msg}`);
        assert.ok(msg.includes('2024-03-10'), `${day}: ${msg}`);
      }
    });
  });

  describe("hiding Maya's iMessage thread (imessage:+15550001111)", () => {
    const EX = ['imessage:+15550001111'];
    let p: PrivateSetup;
    before(async () => {
      p = await privateSetup(EX);
    });
    after(async () => {
      await p?.dispose();
    });

    test('get_contact: the hidden conversation is not listed and its fact is left out (and not counted)', async () => {
      const maya = p.fx.contacts!.maya;
      const r = await checkGetContact(p.c, p.o, { contact_id: maya }, maya, EX);
      assert.equal(r.fact_count, 3);
      assert.deepEqual(
        r.conversations.map((c) => c.id),
        [p.fx.marks.mayaBirthday.conversationId],
      );
      assert.ok(!JSON.stringify(r).includes(p.fx.marks.mayaImessage.hash));
      assert.ok(!r.facts.some((f) => f.fact === 'Has a night tour at the observatory'));
    });

    test('search_contacts agrees', async () => {
      const r = await checkSearchContacts(p.c, p.o, 'maya', EX);
      assert.equal(r.contacts[0].fact_count, 3);
      assert.equal(r.contacts[0].conversations.length, 1);
    });

    test('get_journal_day leaves the thread out; digest withheld', async () => {
      const r = await checkJournalDay(p.c, p.o, '2023-05-01', EX);
      assert.equal(r.message_count, 17);
      assert.equal(r.digest, null);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Older schemas
// ---------------------------------------------------------------------------------------------------------------

describe('schema v14 (digests without message_count)', () => {
  let s: Setup;
  before(async () => {
    s = await setup(14);
  });
  after(async () => {
    await teardown(s);
  });

  test('digests are never stale; counts and messages as usual', async () => {
    for (const day of s.o.countedDays()) await checkJournalDay(s.c, s.o, day);
    const r = await checkJournalDay(s.c, s.o, '2023-05-01');
    assert.equal(r.digest?.stale, false);
    assert.equal(r.message_count, 19);
  });

  test('on_this_day and people', async () => {
    await checkOnThisDay(s.c, s.o, { date: '2026-07-25' });
    await checkSearchContacts(s.c, s.o, 'zoe');
    await checkGetContact(s.c, s.o, { contact_id: s.fx.contacts!.maya }, s.fx.contacts!.maya);
  });
});

describe('schema v10 (no journal tables)', () => {
  let s: Setup;
  before(async () => {
    s = await setup(10);
  });
  after(async () => {
    await teardown(s);
  });

  test('get_journal_day answers counts and messages, digest null with a note that digests need v11+', async () => {
    for (const day of ['2023-05-01', '2019-07-25', '2024-03-10']) {
      const r = await checkJournalDay(s.c, s.o, day);
      assert.equal(r.digest, null);
      assert.match(notesText(r), /v11|11/);
    }
    const msg = await s.c.err('get_journal_day', { day: '2022-06-15' });
    assert.ok(msg.includes('2021-07-25') && msg.includes('2023-05-01'), msg);
  });

  test('on_this_day, people, reactions (v6+) still work', async () => {
    await checkOnThisDay(s.c, s.o, { date: '2026-07-25' });
    await checkOnThisDay(s.c, s.o, { date: '2024-02-29' });
    await checkSearchContacts(s.c, s.o, '+1555000');
    await checkGetContact(s.c, s.o, { name: 'Maya' }, s.fx.contacts!.maya);
    const r = await s.c.ok<JournalDay>('get_journal_day', { day: '2023-05-01' });
    assert.equal(r.messages.find((m) => m.message_id === s.fx.marks.reacted.id)?.reactions?.length, 2);
  });
});

describe('schema v3 (contacts without facts, no reactions)', () => {
  let s: Setup;
  before(async () => {
    s = await setup(3);
  });
  after(async () => {
    await teardown(s);
  });

  test('get_contact: facts [] and fact_count 0; search_contacts still finds the merged contact', async () => {
    const r = await checkGetContact(s.c, s.o, { contact_id: s.fx.contacts!.maya }, s.fx.contacts!.maya);
    assert.deepEqual(r.facts, []);
    assert.equal(r.fact_count, 0);
    const found = await checkSearchContacts(s.c, s.o, 'maya@EXAMPLE');
    assert.equal(found.contacts[0]?.fact_count, 0);
    await checkSearchContacts(s.c, s.o, 'e');
  });

  test('get_journal_day without journal tables or reactions; on_this_day', async () => {
    const r = await checkJournalDay(s.c, s.o, '2023-05-01');
    assert.ok(r.messages.every((m) => m.reactions === undefined));
    assert.match(notesText(r), /v11|11/);
    await checkOnThisDay(s.c, s.o, { date: '2026-07-25' });
  });
});

describe('schema v1 (no contacts, no sources)', () => {
  let s: Setup;
  before(async () => {
    s = await setup(1);
  });
  after(async () => {
    await teardown(s);
  });

  test('get_contact is an error saying people need a newer schema', async () => {
    assert.match(await s.c.err('get_contact', { contact_id: 1 }), /schema|newer|version|v2/i);
    assert.match(await s.c.err('get_contact', { name: 'Maya' }), /schema|newer|version|v2/i);
  });

  test('search_contacts: an error (or an empty list with a note) about the schema', async () => {
    const r = await s.c.call('search_contacts', { query: 'maya' });
    if (r.isError) assert.match(textOf(r), /schema|newer|version|v2/i);
    else {
      const sc = r.structuredContent as { contacts: Contact[]; notes?: string[] };
      assert.deepEqual(sc.contacts, []);
      assert.match(notesText(sc), /schema|newer|version|v2/i);
    }
  });

  test('get_journal_day and on_this_day still answer from messages', async () => {
    for (const day of ['2023-05-01', '2019-07-25']) await checkJournalDay(s.c, s.o, day);
    await checkOnThisDay(s.c, s.o, { date: '2026-07-25' });
    await checkOnThisDay(s.c, s.o, { date: '2025-07-25', per_year: 1 });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The filters on the semantic half too (the fixture plus test-embed vectors for every embeddable message)
// ---------------------------------------------------------------------------------------------------------------

describe('search_messages has_attachment / has_link with the semantic half on', () => {
  let dir: string;
  let fx: JournalArchive;
  let o: Oracle;
  let embed: TestEmbedServer;
  let h: Harness;
  before(async () => {
    dir = tempDir('journal-people-hybrid');
    fx = buildJournalArchive(dir);
    const db = openWritable(fx.path);
    try {
      const w = new ArchiveWriter(db);
      db.transaction(() => {
        for (const m of fx.messages)
          if (!m.isSystem && m.body.trim() !== '')
            w.putEmbedding(m.hash, 'test-embed', embedText(embeddingInput(m.body), 8, 'test-embed'));
      })();
    } finally {
      db.close();
    }
    o = new Oracle(fx.path);
    embed = await startEmbedServer((req) => {
      const body = JSON.parse(req.body) as { input: string[] };
      return { body: { data: body.input.map((t, index) => ({ index, embedding: embedText(t, 8, 'test-embed') })) } };
    });
    h = await startHarness({ archivePath: fx.path, embed: { baseUrl: embed.baseUrl, model: 'test-embed' } });
    await h.client.listTools();
  });
  after(async () => {
    await h?.close();
    await embed?.close();
    o?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const withAtt = () =>
    new Set(
      (o.db.prepare('SELECT DISTINCT message_id AS id FROM attachments').all() as { id: number }[]).map((r) => r.id),
    );
  const withLink = () =>
    new Set((o.db.prepare('SELECT DISTINCT message_id AS id FROM links').all() as { id: number }[]).map((r) => r.id));
  for (const [query, f] of [
    ['photo from the hike', { has_attachment: true }],
    ['photo from the hike', { has_attachment: false }],
    ['trail map', { has_link: true }],
    ['trail map', { has_link: false }],
    ['the observatory', { has_attachment: false, has_link: false }],
  ] as [string, { has_attachment?: boolean; has_link?: boolean }][]) {
    test(`${query} ${JSON.stringify(f)}: every hit, keyword or semantic, satisfies the filter`, async () => {
      const r = await h.ok<{ hits: Hit[]; semantic: { used: boolean } }>('search_messages', { query, limit: 50, ...f });
      assert.equal(r.semantic.used, true);
      assert.ok(r.hits.length > 0);
      const att = withAtt();
      const lnk = withLink();
      for (const x of r.hits) {
        if (f.has_attachment !== undefined)
          assert.equal(att.has(x.message_id), f.has_attachment, `hit ${x.message_id} attachment`);
        if (f.has_link !== undefined) assert.equal(lnk.has(x.message_id), f.has_link, `hit ${x.message_id} link`);
      }
      if (f.has_attachment === true)
        assert.deepEqual(
          r.hits.map((x) => x.message_id),
          [...att],
        );
      if (f.has_link === true)
        assert.deepEqual(
          r.hits.map((x) => x.message_id),
          [...lnk],
        );
      if (f.has_attachment === false || f.has_link === false) {
        // semantic hits fill up with every other embeddable message that satisfies the filter
        const eligible = fx.messages.filter(
          (m) =>
            !m.isSystem &&
            m.body.trim() !== '' &&
            (f.has_attachment !== false || !att.has(m.id)) &&
            (f.has_link !== false || !lnk.has(m.id)),
        );
        assert.ok(
          r.hits.length >= Math.min(50, eligible.length),
          `${r.hits.length} hits of ${eligible.length} eligible`,
        );
      }
    });
  }
});
