/** Messages between the viewer webview (media/viewer/main.ts) and the host; what the webview sends is validated. */
import { z } from 'zod';

export interface ViewerMessage {
  id: number;
  /** Stable across re-imports: the viewer's citations carry it. */
  hash: string;
  sender: string;
  ts: string;
  tsUnix: number;
  /** Rendered as text only. */
  body: string;
  isSystem: boolean;
  /** `src`: webview URI of an image file inside the archive root. */
  attachments: { kind: string; name: string; relPath: string; src?: string }[];
  reactions: { emoji: string; actors: string[] }[];
}

export interface ViewerConversation {
  id: number;
  name: string;
  source: string;
  messageCount: number;
}

const Id = z.number().int().nonnegative();
const Hash = z.string().regex(/^[0-9a-f]{4,64}$/);
const Direction = z.enum(['before', 'after']);
/** Optional fields the webview may get wrong are dropped, not fatal: an older webview still works. */
const lenient = <T extends z.ZodType>(t: T) => t.optional().catch(undefined);
const clipped = (max: number) => lenient(z.string().transform((v) => v.slice(0, max)));

/** Persisted with setState / restored by the panel serializer. */
const ViewerStateSchema = z.object({
  conversationId: Id,
  /** Message to centre on when the view is rebuilt. */
  anchorId: lenient(Id),
  highlightId: lenient(Id),
  /** A refresh after a re-import follows the highlight by hash, never highlighting another message. */
  highlightHash: lenient(Hash),
});
export type ViewerState = z.input<typeof ViewerStateSchema>;

export type ToWebview =
  | {
      type: 'load';
      conversation: ViewerConversation;
      messages: ViewerMessage[];
      hasBefore: boolean;
      hasAfter: boolean;
      focusId?: number;
      highlight: boolean;
      /** Shown above the messages, e.g. that the cited message moved. */
      notice?: string;
      /** msgbrowse's journal digest of the day (plain text, written by an LLM). */
      digest?: { day: string; summary: string; mood: string; stale: boolean };
    }
  | { type: 'page'; direction: 'before' | 'after'; messages: ViewerMessage[]; hasMore: boolean }
  | { type: 'findResults'; query: string; ids: number[]; truncated: boolean; error?: string }
  /** Reader input, posted by the integration tests' hooks (viewer-test-hooks.ts). */
  | { type: 'scrollEdge'; edge: 'top' | 'bottom' }
  | { type: 'setFind'; query: string }
  | { type: 'error'; message: string };

/** What the webview sends, validated: the last three report what it rendered, paged and found (the integration tests
 * check what is on screen). */
const FromWebviewSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), state: lenient(ViewerStateSchema) }),
  z.object({ type: z.literal('loadMore'), direction: Direction, edgeId: Id }),
  z.object({ type: z.literal('jump'), messageId: Id }),
  z.object({ type: z.literal('find'), query: z.string().max(1000) }),
  z.object({ type: z.literal('copyCitation'), messageId: Id, hash: lenient(Hash) }),
  z.object({
    type: z.literal('openLink'),
    url: z
      .string()
      .max(8191)
      .regex(/^https?:\/\//i),
  }),
  z.object({ type: z.literal('state'), state: ViewerStateSchema }),
  z.object({
    type: z.literal('shown'),
    focusId: Id,
    highlighted: z.boolean(),
    rendered: Id,
    focusText: lenient(z.string()),
    focusHash: lenient(Hash),
    notice: clipped(2000),
    digestText: clipped(4000),
    /** Elements message data must never create (script, iframe, on* handlers). */
    activeElements: Id,
    images: Id,
  }),
  z.object({
    type: z.literal('paged'),
    direction: Direction,
    added: Id,
    rendered: Id,
    hasMore: z.boolean(),
    firstId: Id,
    lastId: Id,
  }),
  /** `currentId`: the match the viewer moved to (0: none). */
  z.object({ type: z.literal('found'), query: z.string(), count: Id, currentId: Id, highlighted: z.boolean() }),
]);
export type FromWebview = z.input<typeof FromWebviewSchema>;

/** A message posted by the webview, or undefined for anything malformed. */
export function parseFromWebview(raw: unknown): z.output<typeof FromWebviewSchema> | undefined {
  return FromWebviewSchema.safeParse(raw).data;
}

export function parseState(raw: unknown): z.output<typeof ViewerStateSchema> | undefined {
  return ViewerStateSchema.safeParse(raw).data;
}
