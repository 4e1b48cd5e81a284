/**
 * The native peer (issue 42): what a person could run instead of us — an MCP server over stdio on the same SDK and
 * zod, reading the archive with better-sqlite3 (native SQLite) and msgbrowse's own SQL (shared/reference
 * msgbrowse-archive.md §2.1, §2.4, §2.6), answering with the same hit shape and citation links. Never shipped: the
 * bench bundles it (bench/lib/peer.ts) and times it beside our CLI.
 *
 *   node peer.js --archive <msgbrowse.sqlite>
 */
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { McpServer } from '@modelcontextprotocol/server';
import Database from 'better-sqlite3';
import { z } from 'zod';

const file = process.argv[process.argv.indexOf('--archive') + 1];
const db = new Database(file, { readonly: true, fileMustExist: true });

const Hit = z.object({
  message_id: z.number().int(),
  hash: z.string(),
  conversation: z.string(),
  conversation_id: z.number().int(),
  source: z.string(),
  sender: z.string(),
  timestamp: z.string(),
  text: z.string(),
  link: z.string(),
});
type Row = { id: number; hash: string; conversation_id: number; conversation: string | null; source: string };
type MessageRow = Row & { sender: string; ts: string; text: string };

const link = (r: Row) => `msgbrowse://local/c/${r.conversation_id}/at/${r.id}?h=${r.hash.slice(0, 12)}`;
const hit = (r: MessageRow): z.infer<typeof Hit> => ({
  message_id: r.id,
  hash: r.hash,
  conversation: r.conversation ?? '',
  conversation_id: r.conversation_id,
  source: r.source,
  sender: r.sender,
  timestamp: r.ts,
  text: r.text,
  link: link(r),
});

/** msgbrowse's buildFTSQuery: every whitespace-separated token a quoted prefix term, all required. */
const ftsQuery = (q: string) =>
  q
    .split(/\s+/u)
    .filter(Boolean)
    .map((t) => `"${t.replaceAll('"', '""')}"*`)
    .join(' ');

const search = db.prepare(`SELECT m.id, m.hash, m.conversation_id, c.name AS conversation, m.source, m.sender, m.ts,
    snippet(messages_fts, 0, char(2), char(3), '…', 12) AS text,
    EXISTS (SELECT 1 FROM attachments a WHERE a.message_id = m.id) AS has_att,
    EXISTS (SELECT 1 FROM links l WHERE l.message_id = m.id) AS has_link
  FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid JOIN conversations c ON c.id = m.conversation_id
  WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?`);
const target = db.prepare('SELECT conversation_id, ts_unix FROM messages WHERE id = ?');
const columns = 'm.id, m.hash, m.conversation_id, c.name AS conversation, m.source, m.sender, m.ts, m.body AS text';
const before = db.prepare(`SELECT ${columns} FROM messages m JOIN conversations c ON c.id = m.conversation_id
  WHERE m.conversation_id = ? AND (m.ts_unix < ? OR (m.ts_unix = ? AND m.id <= ?))
  ORDER BY m.ts_unix DESC, m.id DESC LIMIT ?`);
const after = db.prepare(`SELECT ${columns} FROM messages m JOIN conversations c ON c.id = m.conversation_id
  WHERE m.conversation_id = ? AND (m.ts_unix > ? OR (m.ts_unix = ? AND m.id > ?))
  ORDER BY m.ts_unix ASC, m.id ASC LIMIT ?`);
const conversations = db.prepare(`SELECT c.id, c.name,
    (SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count,
    (SELECT m.ts FROM messages m WHERE m.conversation_id = c.id ORDER BY m.ts_unix, m.id LIMIT 1) AS first_ts,
    (SELECT m.ts FROM messages m WHERE m.conversation_id = c.id ORDER BY m.ts_unix DESC, m.id DESC LIMIT 1) AS last_ts,
    (SELECT MAX(m.ts_unix) FROM messages m WHERE m.conversation_id = c.id) AS last_unix,
    (SELECT COUNT(*) FROM attachments a WHERE a.conversation_id = c.id AND a.kind = 'image') AS images,
    (SELECT COUNT(*) FROM attachments a WHERE a.conversation_id = c.id AND a.kind = 'file') AS files,
    (SELECT COUNT(*) FROM links l WHERE l.conversation_id = c.id) AS links
  FROM conversations c ORDER BY COALESCE(last_unix, 0) DESC, c.name ASC`);

const server = new McpServer({ name: 'native-peer', version: '1.0.0' });
const answer = <T extends Record<string, unknown>>(structuredContent: T) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(structuredContent) }],
  structuredContent,
});

server.registerTool(
  'search_messages',
  {
    description: 'Keyword search across all messages, ranked snippets with citations.',
    inputSchema: z.object({ query: z.string(), limit: z.number().int().optional() }),
    outputSchema: z.object({ hits: z.array(Hit) }),
  },
  ({ query, limit }) => {
    const match = ftsQuery(query);
    const n = limit === undefined || limit <= 0 || limit > 100 ? 20 : limit;
    const rows = match ? (search.all(match, n) as MessageRow[]) : [];
    return answer({ hits: rows.map((r) => hit({ ...r, text: r.text.replace(/[\u0002\u0003]/g, '**') })) });
  },
);

server.registerTool(
  'get_context',
  {
    description: 'The messages around a message_id (window on each side).',
    inputSchema: z.object({ message_id: z.number().int(), window: z.number().int().optional() }),
    outputSchema: z.object({ messages: z.array(Hit) }),
  },
  ({ message_id, window }) => {
    const w = window === undefined || window <= 0 || window > 50 ? 5 : window;
    const t = target.get(message_id) as { conversation_id: number; ts_unix: number } | undefined;
    if (!t) return { content: [{ type: 'text', text: `message ${message_id} not found` }], isError: true };
    const args = [t.conversation_id, t.ts_unix, t.ts_unix, message_id] as const;
    const rows = [
      ...(before.all(...args, w + 1) as MessageRow[]).reverse(),
      ...(after.all(...args, w) as MessageRow[]),
    ];
    return answer({ messages: rows.map(hit) });
  },
);

server.registerTool(
  'list_conversations',
  {
    description: 'Every conversation with message counts and date range.',
    inputSchema: z.object({}),
    outputSchema: z.object({
      conversations: z.array(
        z.object({
          id: z.number().int(),
          name: z.string(),
          message_count: z.number().int(),
          first_timestamp: z.string().optional(),
          last_timestamp: z.string().optional(),
          images: z.number().int(),
          files: z.number().int(),
          links: z.number().int(),
        }),
      ),
    }),
  },
  () => {
    type C = { id: number; name: string; message_count: number; first_ts: string | null; last_ts: string | null };
    const rows = conversations.all() as (C & { images: number; files: number; links: number })[];
    return answer({
      conversations: rows.map(({ first_ts, last_ts, ...c }) => ({
        ...c,
        ...(first_ts ? { first_timestamp: first_ts } : {}),
        ...(last_ts ? { last_timestamp: last_ts } : {}),
      })),
    });
  },
);

server.connect(new StdioServerTransport()).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
