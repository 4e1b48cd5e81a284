/**
 * Answers that reach the model (issue 39): what each tool's answer weighs as the model receives it (the compact JSON
 * of structuredContent), through the production CLI over stdio, once with the default answer budget (8 KiB, what
 * VS Code passes inline) and once with the budget out of the way (--max-result-bytes 10000000: the whole answer,
 * as before paging). Sizes and page counts, not times.
 */
import * as path from 'node:path';
import type { BenchArchive } from '../lib/data';
import { BENCH_DIR } from '../lib/data';
import Database from 'better-sqlite3';
import { callTool, ensureCliBundle, startCliSession, startEmbedServer, toolText } from '../lib/mcp';
import { table } from '../lib/stats';

export const DEFAULT_BUDGET = 8192;
const WHOLE = 10_000_000;

export interface AnswerRow {
  call: string;
  /** The answer with no budget (the whole list, as before paging). */
  wholeBytes: number;
  /** The first page at the default budget. */
  firstPageBytes: number;
  /** The largest page of the walk at the default budget. */
  largestPageBytes: number;
  /** Pages the walk took at the default budget (following next_cursor to the end). */
  pages: number;
  items: number;
}

export interface AnswersResult {
  archive: string;
  messages: number;
  conversations: number;
  budget: number;
  rows: AnswerRow[];
  errors: string[];
}

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v ?? null), 'utf8');

/** The number of items a page holds (on_this_day's are per year). */
function itemCount(s: Record<string, unknown>): number {
  if (Array.isArray(s.years)) return (s.years as { messages: unknown[] }[]).reduce((n, y) => n + y.messages.length, 0);
  const list = ['hits', 'messages', 'conversations', 'media', 'links', 'contacts', 'facts']
    .map((k) => s[k])
    .find(Array.isArray);
  return Array.isArray(list) ? list.length : 0;
}

export async function runAnswersSection(a: BenchArchive, opts: { log: (m: string) => void }): Promise<AnswersResult> {
  const { log } = opts;
  const cli = ensureCliBundle(log);
  const emb = a.desc.embeddings;
  const embed = emb ? await startEmbedServer(emb.dim) : undefined;
  const session = (budget: number) =>
    startCliSession(cli, a.file, {
      cacheDir: path.join(BENCH_DIR, 'index-caches', `${a.spec.name}-answers`),
      embedBaseUrl: embed?.baseUrl,
      embedModel: emb?.model ?? '',
      extraArgs: ['--max-result-bytes', String(budget)],
    });
  const errors: string[] = [];
  const rows: AnswerRow[] = [];
  const whole = await session(WHOLE);
  const paged = await session(DEFAULT_BUDGET);
  try {
    const busiest = a.desc.largestConversation;
    const day = busiestDay(a.file);
    const hit = (await callTool(whole.client, 'search_messages', { query: a.desc.sampleWords.frequent[1], limit: 1 }))
      .structuredContent as { hits: { message_id: number }[] } | undefined;
    const calls: [string, Record<string, unknown>][] = [
      ['list_conversations', {}],
      ['get_conversation', { conversation_id: busiest.id }],
      ['get_conversation', { conversation_id: busiest.id, limit: 500 }],
      ['search_messages', { query: a.desc.sampleWords.frequent[0] }],
      ['search_messages', { query: a.desc.sampleWords.frequent[0], limit: 50 }],
      ...(emb
        ? ([['semantic_search', { query: a.desc.sampleWords.medium[0], k: 50 }]] as [string, Record<string, unknown>][])
        : []),
      ['get_context', { message_id: hit?.hits[0]?.message_id ?? 1, window: 5 }],
      ['get_context', { message_id: hit?.hits[0]?.message_id ?? 1, window: 50 }],
      ['list_media', {}],
      ['list_links', {}],
      ['get_journal_day', { day, limit: 500 }],
      // A year after the busiest day, so that day is among the years looked back on.
      ['on_this_day', { date: `${Number(day.slice(0, 4)) + 1}${day.slice(4)}`, per_year: 10, limit: 50 }],
      ['search_contacts', { query: 'a' }],
    ];
    for (const [tool, args] of calls) {
      const label = `\`${tool} ${JSON.stringify(args)}\``;
      const w = await callTool(whole.client, tool, args);
      if (w.isError || !w.structuredContent) {
        errors.push(`${label}: ${toolText(w)}`);
        continue;
      }
      let cursor: string | undefined;
      let pages = 0;
      let first = 0;
      let largest = 0;
      let items = 0;
      do {
        const p = await callTool(
          paged.client,
          tool,
          cursor === undefined ? args : tool === 'get_conversation' ? { cursor } : { ...args, cursor },
        );
        if (p.isError || !p.structuredContent) {
          errors.push(`${label} page ${pages + 1}: ${toolText(p)}`);
          break;
        }
        const b = bytes(p.structuredContent);
        if (pages === 0) first = b;
        largest = Math.max(largest, b);
        items += itemCount(p.structuredContent);
        pages++;
        cursor = typeof p.structuredContent.next_cursor === 'string' ? p.structuredContent.next_cursor : undefined;
      } while (cursor !== undefined && pages < 2000);
      rows.push({
        call: label,
        wholeBytes: bytes(w.structuredContent),
        firstPageBytes: first,
        largestPageBytes: largest,
        pages,
        items,
      });
      log(
        `answers ${a.spec.name}: ${label} whole ${bytes(w.structuredContent)} B, ${pages} page(s), largest ${largest} B`,
      );
    }
  } finally {
    await whole.close();
    await paged.close();
    await embed?.close();
  }
  return {
    archive: a.spec.name,
    messages: a.desc.messages,
    conversations: a.desc.conversations,
    budget: DEFAULT_BUDGET,
    rows,
    errors,
  };
}

/** The day with the most messages (read natively: the bench's own reference, not the code under test). */
function busiestDay(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return (
      db
        .prepare("SELECT date(ts_unix, 'unixepoch') AS d FROM messages GROUP BY d ORDER BY COUNT(*) DESC, d LIMIT 1")
        .get() as { d: string }
    ).d;
  } finally {
    db.close();
  }
}

export function answersTable(results: AnswersResult[]): string {
  return results
    .map(
      (r) =>
        `${r.archive}: ${r.messages.toLocaleString('en-US')} messages in ${r.conversations.toLocaleString('en-US')} conversations; answer budget ${r.budget} bytes\n\n` +
        table(
          ['call', 'whole answer (bytes)', 'first page', 'largest page', 'pages to the end', 'items'],
          r.rows.map((x) => [
            x.call,
            x.wholeBytes.toLocaleString('en-US'),
            x.firstPageBytes.toLocaleString('en-US'),
            x.largestPageBytes.toLocaleString('en-US'),
            String(x.pages),
            String(x.items),
          ]),
        ) +
        (r.errors.length ? `\n\nErrors: ${r.errors.join('; ')}` : ''),
    )
    .join('\n\n');
}

/** bench/ANSWERS.md: the tables with the command, date and commit that produced them. */
export function answersReport(
  results: AnswersResult[],
  command: string,
  git: { commit: string; dirty: boolean },
): string {
  return [
    '# Answers that reach the model (`npm run bench -- --only answers`)',
    '',
    `Produced by \`${command}\` at ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on commit ${git.commit}${git.dirty ? ' (+ uncommitted changes)' : ''}.`,
    '',
    'What each tool answer weighs as the model receives it: the compact JSON of structuredContent, in bytes, through the CLI over ' +
      'stdio. "Whole" is the answer with the budget out of the way (`--max-result-bytes 10000000`, the answers before paging); the ' +
      "pages are at the default budget of 8,192 bytes (VS Code's inline limit), walked by next_cursor to the end. Sizes, not times: " +
      'they do not depend on the machine.',
    '',
    answersTable(results),
    '',
  ].join('\n');
}
