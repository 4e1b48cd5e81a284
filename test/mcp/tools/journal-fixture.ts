/**
 * What the journal and people tool tests share: the journal-people fixture, an oracle that reads it directly with
 * better-sqlite3 (the tools' contract written as SQL/JS, never anything from src/), callers and the checks.
 */
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { buildJournalArchive, type JournalArchive } from '../../fixtures/journal-people';
import { startHarness, tempDir, textOf, type Harness } from '../harness';
import { connectInMemory, startRuntime, type Connected } from '../../stress/harness/server';
import type { Hit as ToolHit } from './tool-fixture';

// ---------------------------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------------------------

type Reaction = { emoji: string; actor: string };
/** A message item as the other tool tests read it, with the reactions and attachments this fixture has. */
export type Hit = ToolHit & { reactions?: Reaction[]; attachments?: { kind: string; name: string }[] };
type Digest = {
  summary: string;
  mood: string;
  people: string[];
  themes: string[];
  highlights: { text: string; time: string }[];
  model: string;
  stale: boolean;
};
export type JournalDay = {
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
export type OnThisDay = { date: string; years: { year: number; day: string; messages: Hit[] }[]; notes?: string[] };
type ContactConversation = { id: number; name: string; source: string; message_count: number; link: string };
export type Contact = {
  contact_id: number;
  name: string;
  identifiers: { source: string; identifier: string }[];
  conversations: ContactConversation[];
  fact_count: number;
};
type Fact = { fact: string; category: string; source_ts: string; message: Hit | null };
export type ContactDetail = Contact & { facts: Fact[]; notes?: string[] };

const BASE = 'vscode://msgbrowse.msgbrowse-vscode';
const messageLink = (conv: number, id: number, hash: string) => `${BASE}/c/${conv}/at/${id}?h=${hash.slice(0, 16)}`;
export const conversationLink = (conv: number) => `${BASE}/c/${conv}`;
/** Case- and accent-insensitive form: NFD, combining marks stripped, lowercased. */
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sha = (p: string) => crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
export const noScore = (h: Hit): Hit => {
  const { score: _score, ...rest } = h;
  return rest;
};
const pick = <T extends object>(o: T, keys: readonly string[]): Record<string, unknown> =>
  Object.fromEntries(keys.map((k) => [k, (o as Record<string, unknown>)[k]]));
export const notesText = (r: { notes?: string[] }) => (r.notes ?? []).join('\n');

// ---------------------------------------------------------------------------------------------------------------
// The oracle: the fixture file read directly, the contract written as SQL/JS
// ---------------------------------------------------------------------------------------------------------------

export class Oracle {
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

export interface Caller {
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
export interface Setup {
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
export interface PrivateSetup {
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

/** Registers hooks that build the fixture at `version` before the suite's tests and check afterwards it is unchanged. */
export function journalFixture(use: (s: Setup) => void, version?: number): void {
  let s: Setup | undefined;
  before(async () => {
    s = await setup(version);
    use(s);
  });
  after(async () => {
    await teardown(s);
  });
}

/** Registers hooks that start a privacy runtime hiding `exclude` before the suite's tests and dispose of it after. */
export function privateFixture(exclude: string[], use: (p: PrivateSetup) => void): void {
  let p: PrivateSetup | undefined;
  before(async () => {
    p = await privateSetup(exclude);
    use(p);
  });
  after(async () => {
    await p?.dispose();
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Shared checks
// ---------------------------------------------------------------------------------------------------------------

/** All pages of get_journal_day at `limit` (day passed on every page). */
export async function journalPages(
  c: Caller,
  day: string,
  limit?: number,
): Promise<{ pages: JournalDay[]; messages: Hit[] }> {
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
export async function checkJournalDay(
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

export async function checkOnThisDay(
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

export async function checkSearchContacts(
  c: Caller,
  o: Oracle,
  query: string,
  exclude: readonly string[] = [],
): Promise<{ contacts: Contact[]; notes?: string[] }> {
  const r = await c.ok<{ contacts: Contact[]; notes?: string[] }>('search_contacts', { query });
  compareContacts(r.contacts, o.searchContacts(query, exclude), exclude, `search_contacts ${JSON.stringify(query)}`);
  return r;
}

export async function checkGetContact(
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
