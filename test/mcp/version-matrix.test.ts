/**
 * The same conversations written by msgbrowse at schema v16, v17 and v20, and by a future msgbrowse (v23: new
 * tables, a view, new columns on messages and conversations): every tool, prompt and resource answers exactly the
 * same. And an archive that lost one optional part (contacts, facts, reactions, embeddings, digests) answers the
 * rest exactly as before, while the tools that need the part say which table is missing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { buildJournalArchive, embedText, makeFutureArchive, type JournalArchive } from '../fixtures/index';
import { startEmbedServer, type TestEmbedServer } from '../embed/test-server';
import { startHarness, tempDir, type Harness } from './harness';

const MODEL = 'test-embed';

/** One archive's answers, by call label. */
type Answers = Map<string, string>;

/** Every call the matrix makes, per tool and prompt; a tool or prompt without calls here fails the test. */
function toolCalls(fx: JournalArchive): Record<string, Record<string, unknown>[]> {
  const k = fx.marks;
  const maya = fx.conversations.find((c) => c.name === 'Maya')!;
  return {
    list_conversations: [{}, { source: 'signal' }, { name_contains: 'ma' }],
    get_conversation: [
      { name: 'Maya' },
      { conversation_id: maya.id, limit: 2 },
      { name: 'Climbing Club', order: 'newest', start: '2023-05-01', end: '2023-05-02' },
    ],
    search_messages: [
      { query: 'observatory' },
      { query: 'busy day', sender: 'Ana', limit: 5 },
      { query: 'lisbon', has_link: true },
      { query: 'photo', has_attachment: true },
    ],
    semantic_search: [{ query: 'the cabin in the woods' }, { query: 'birthday', conversation: 'Maya', k: 3 }],
    get_context: [
      { message_id: k.reacted.id, hash: k.reacted.hash.slice(0, 16), window: 2 },
      { message_id: k.cabin.id },
    ],
    list_media: [{}, { kind: 'image', conversation: 'Maya' }],
    list_links: [{}, { domain: 'example.com' }],
    get_journal_day: [{ day: '2023-05-01' }, { day: '2023-05-03' }, { day: '2019-07-25', limit: 2 }],
    on_this_day: [{ date: '2026-07-25' }, { date: '2024-02-29' }],
    search_contacts: [{ query: 'maya' }, { query: '+1555000' }],
    get_contact: [{ name: 'Maya' }, { name: 'Zoë Martin' }],
  };
}

const PROMPT_CALLS: Record<string, Record<string, string>[]> = {
  find_discussion: [{ topic: 'the observatory' }, { topic: 'cabin', conversation: 'Harper' }],
  on_this_day: [{}],
  prepare_meeting: [{ person: 'Maya' }],
  what_did_they_say: [{ person: 'Ana', topic: 'the wall' }],
  summarize_conversation: [{ conversation: 'Maya' }],
};

/** Everything every tool, prompt and resource answers on one archive. */
async function answersOf(h: Harness, fx: JournalArchive): Promise<Answers> {
  const out: Answers = new Map();
  const calls = toolCalls(fx);
  const { tools } = await h.client.listTools();
  for (const t of tools) {
    const args = calls[t.name];
    assert.ok(args, `the version matrix has no calls for the tool ${t.name}: add them to toolCalls()`);
    for (const a of args) out.set(`tool ${t.name} ${JSON.stringify(a)}`, JSON.stringify(await h.call(t.name, a)));
  }
  const { prompts } = await h.client.listPrompts();
  for (const p of prompts) {
    const args = PROMPT_CALLS[p.name];
    assert.ok(args, `the version matrix has no calls for the prompt ${p.name}: add them to PROMPT_CALLS`);
    for (const a of args) {
      const r = await h.client.getPrompt({ name: p.name, arguments: a }).catch((e: Error) => ({ error: e.message }));
      out.set(`prompt ${p.name} ${JSON.stringify(a)}`, JSON.stringify(r));
    }
  }
  const { resources } = await h.client.listResources();
  out.set('resources/list', JSON.stringify(resources));
  const { resourceTemplates } = await h.client.listResourceTemplates();
  out.set('resources/templates/list', JSON.stringify(resourceTemplates));
  const messages = [fx.marks.reacted, fx.marks.cabin, fx.marks.withLink];
  // ui://msgbrowse/thread is the MCP App view: static HTML, the same whatever the archive.
  const uris = [
    ...resources.map((r) => r.uri).filter((u) => !u.startsWith('ui://')),
    ...messages.map((m) => `msgbrowse://message/${m.id}?h=${m.hash.slice(0, 16)}`),
  ];
  for (const uri of uris) {
    const r = await h.client.readResource({ uri }).catch((e: Error) => ({ error: e.message }));
    out.set(`read ${uri}`, JSON.stringify(r));
  }
  return out;
}

function assertSameAnswers(
  got: Answers,
  want: Answers,
  label: string,
  except: (call: string) => boolean = () => false,
): void {
  assert.deepEqual([...got.keys()], [...want.keys()], `${label}: the same calls`);
  for (const [call, answer] of want) {
    if (except(call)) continue;
    assert.equal(got.get(call), answer, `${label}: ${call}`);
  }
}

/** The journal archive at `version` with vectors for every embeddable message, then made future when asked. */
function build(name: string, version: number, future = false): JournalArchive {
  const fx = buildJournalArchive(tempDir(`matrix-${name}`), { version, embeddings: [{ model: MODEL, dim: 8 }] });
  if (future) makeFutureArchive(fx.path);
  return fx;
}

let embed: TestEmbedServer;
const dirs: string[] = [];
let baseline: { fx: JournalArchive; answers: Answers };

async function answersFor(fx: JournalArchive): Promise<Answers> {
  dirs.push(fx.path);
  const h = await startHarness({ archivePath: fx.path, embed: { baseUrl: embed.baseUrl, model: MODEL } });
  try {
    return await answersOf(h, fx);
  } finally {
    await h.close();
  }
}

before(async () => {
  embed = await startEmbedServer((req) => {
    const body = JSON.parse(req.body) as { input: string[] };
    return { body: { data: body.input.map((t, index) => ({ index, embedding: embedText(t, 8, MODEL) })) } };
  });
  const fx = build('v16', 16);
  baseline = { fx, answers: await answersFor(fx) };
});

after(async () => {
  await embed?.close();
  for (const f of dirs) fs.rmSync(f.replace(/[/\\]msgbrowse\.sqlite$/, ''), { recursive: true, force: true });
});

describe('the same data at every schema version answers the same', () => {
  it('the v16 baseline answers every call without an error (a matrix of errors would prove nothing)', () => {
    const failed = [...baseline.answers].filter(([, a]) => /"isError":true|"error":/.test(a)).map(([c]) => c);
    assert.deepEqual(failed, []);
    assert.ok(baseline.answers.size >= 35, `${baseline.answers.size} calls`);
  });

  for (const [name, version, future] of [
    ['v17', 17, false],
    ['v20', 20, false],
    ['a future v23', 20, true],
  ] as const) {
    it(`${name}: every tool, prompt and resource answers exactly as at v16`, async () => {
      const fx = build(name.replace(/\W/g, ''), version, future);
      assert.equal(
        new Database(fx.path, { readonly: true }).pragma('user_version', { simple: true }),
        future ? 23 : version,
      );
      assertSameAnswers(await answersFor(fx), baseline.answers, name);
    });
  }
});

/** An answer without its reactions: the `reactions` of every item (also in JSON resource text) and their text lines. */
function withoutReactions(answer: string): string {
  const strip = (v: unknown): unknown => {
    if (typeof v === 'string')
      return v.startsWith('{') ? JSON.stringify(strip(JSON.parse(v))) : v.replace(/\n\s*reactions: [^\n]*/g, '');
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .filter(([k]) => k !== 'reactions')
          .map(([k, x]) => [k, strip(x)]),
      );
    return v;
  };
  return JSON.stringify(strip(JSON.parse(answer)));
}

/**
 * Each optional part: the tables it drops, the calls whose answer may change and how they must say so; `same`
 * makes both answers comparable where only the part's own data may go (the reactions on message items).
 */
const PARTS: { part: string; tables: string[]; changes: RegExp; says?: RegExp; same?: (answer: string) => string }[] = [
  {
    part: 'contacts',
    tables: ['contact_facts', 'contact_identifiers', 'contacts'],
    changes: /^tool (search_contacts|get_contact) |^prompt prepare_meeting /,
    says: /no contacts and contact_identifiers tables/,
  },
  {
    part: 'facts',
    tables: ['contact_facts'],
    changes: /^tool (search_contacts|get_contact) |^prompt prepare_meeting /,
    says: /no contact_facts table/,
  },
  { part: 'reactions', tables: ['reactions'], changes: /^$/, same: withoutReactions },
  {
    part: 'embeddings',
    tables: ['embeddings'],
    changes: /^tool semantic_search |^tool search_messages /,
    says: /no message embeddings/,
  },
  {
    part: 'journal digests',
    tables: ['journal_digests'],
    changes: /^tool get_journal_day |^prompt on_this_day /,
    says: /no journal_digests table/,
  },
];

describe('an archive without an optional part answers the rest as before', () => {
  for (const p of PARTS) {
    it(`without ${p.part}: only the calls that need it change, and they name what is missing`, async () => {
      const fx = build(`no-${p.part.replace(/\W/g, '')}`, 20);
      const db = new Database(fx.path);
      db.pragma('foreign_keys = OFF');
      for (const t of p.tables) db.exec(`DROP TABLE ${t}`);
      db.close();
      const got = await answersFor(fx);
      const differ = (c: string, same = (a: string) => a) => same(got.get(c)!) !== same(baseline.answers.get(c)!);
      assert.ok(
        [...baseline.answers.keys()].some((c) => differ(c)),
        `dropping ${p.tables.join(', ')} changed nothing: the matrix does not reach that part`,
      );
      const changed = [...baseline.answers.keys()].filter((c) => differ(c, p.same));
      for (const c of changed) {
        assert.ok(p.changes.test(c), `${c} changed without ${p.part}:\n${got.get(c)!.slice(0, 400)}`);
        assert.doesNotMatch(got.get(c)!, /no such table|no such column|internal error/i, c);
      }
      if (p.says)
        assert.ok(
          changed.some((c) => p.says!.test(got.get(c)!)),
          `no changed answer names the missing table (${p.says})`,
        );
    });
  }
});
