/** Messages between the viewer webview (media/viewer/main.ts) and the host; what the webview sends is validated. */
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

/** Persisted with setState / restored by the panel serializer. */
export interface ViewerState {
  conversationId: number;
  /** Message to centre on when the view is rebuilt. */
  anchorId?: number;
  highlightId?: number;
  /** A refresh after a re-import follows the highlight by hash, never highlighting another message. */
  highlightHash?: string;
}

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

/** The last three report what the webview rendered, paged and found: the integration tests check what is on screen. */
export type FromWebview =
  | { type: 'ready'; state?: ViewerState }
  | { type: 'loadMore'; direction: 'before' | 'after'; edgeId: number }
  | { type: 'jump'; messageId: number }
  | { type: 'find'; query: string }
  | { type: 'copyCitation'; messageId: number; hash?: string }
  | { type: 'openLink'; url: string }
  | { type: 'state'; state: ViewerState }
  | {
      type: 'shown';
      focusId: number;
      highlighted: boolean;
      rendered: number;
      focusText?: string;
      focusHash?: string;
      notice?: string;
      digestText?: string;
      /** Elements message data must never create (script, iframe, on* handlers). */
      activeElements: number;
      images: number;
    }
  | {
      type: 'paged';
      direction: 'before' | 'after';
      added: number;
      rendered: number;
      hasMore: boolean;
      firstId: number;
      lastId: number;
    }
  /** `currentId`: the match the viewer moved to (0: none). */
  | { type: 'found'; query: string; count: number; currentId: number; highlighted: boolean };

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isHash = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{4,64}$/.test(v);
const isDirection = (v: unknown): v is 'before' | 'after' => v === 'before' || v === 'after';
const text = (v: unknown, max = Number.POSITIVE_INFINITY) => (typeof v === 'string' ? v.slice(0, max) : undefined);

/** Validates a message posted by the webview; undefined for anything malformed. */
export function parseFromWebview(raw: unknown): FromWebview | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const m = raw as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
      return { type: 'ready', state: parseState(m.state) };
    case 'loadMore':
      return isDirection(m.direction) && isInt(m.edgeId)
        ? { type: 'loadMore', direction: m.direction, edgeId: m.edgeId }
        : undefined;
    case 'jump':
      return isInt(m.messageId) ? { type: 'jump', messageId: m.messageId } : undefined;
    case 'find':
      return typeof m.query === 'string' && m.query.length <= 1000 ? { type: 'find', query: m.query } : undefined;
    case 'copyCitation':
      return isInt(m.messageId)
        ? { type: 'copyCitation', messageId: m.messageId, ...(isHash(m.hash) ? { hash: m.hash } : {}) }
        : undefined;
    case 'openLink':
      return typeof m.url === 'string' && /^https?:\/\//i.test(m.url) && m.url.length < 8192
        ? { type: 'openLink', url: m.url }
        : undefined;
    case 'shown': {
      const { focusId, highlighted, rendered, activeElements, images } = m;
      if (!isInt(focusId) || typeof highlighted !== 'boolean' || !isInt(rendered)) return undefined;
      if (!isInt(activeElements) || !isInt(images)) return undefined;
      return {
        type: 'shown',
        focusId,
        highlighted,
        rendered,
        focusText: text(m.focusText),
        focusHash: isHash(m.focusHash) ? m.focusHash : undefined,
        notice: text(m.notice, 2000),
        digestText: text(m.digestText, 4000),
        activeElements,
        images,
      };
    }
    case 'paged': {
      const { direction, added, rendered, hasMore, firstId, lastId } = m;
      if (!isDirection(direction) || !isInt(added) || !isInt(rendered) || typeof hasMore !== 'boolean')
        return undefined;
      return isInt(firstId) && isInt(lastId)
        ? { type: 'paged', direction, added, rendered, hasMore, firstId, lastId }
        : undefined;
    }
    case 'found':
      return typeof m.query === 'string' && isInt(m.count) && isInt(m.currentId) && typeof m.highlighted === 'boolean'
        ? { type: 'found', query: m.query, count: m.count, currentId: m.currentId, highlighted: m.highlighted }
        : undefined;
    case 'state': {
      const state = parseState(m.state);
      return state ? { type: 'state', state } : undefined;
    }
    default:
      return undefined;
  }
}

export function parseState(raw: unknown): ViewerState | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const s = raw as Record<string, unknown>;
  if (!isInt(s.conversationId)) return undefined;
  return {
    conversationId: s.conversationId,
    anchorId: isInt(s.anchorId) ? s.anchorId : undefined,
    highlightId: isInt(s.highlightId) ? s.highlightId : undefined,
    highlightHash: isHash(s.highlightHash) ? s.highlightHash : undefined,
  };
}
