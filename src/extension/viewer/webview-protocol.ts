/**
 * Messages between the conversation viewer webview (media/viewer/main.ts) and the extension host.
 * Types only: imported by both sides. Everything arriving from the webview is validated (`parseFromWebview`).
 */

export interface ViewerAttachment {
  kind: string;
  name: string;
  relPath: string;
  /** webview URI of the file when it is an image inside the archive root and exists. */
  src?: string;
}

export interface ViewerReaction {
  emoji: string;
  actors: string[];
}

export interface ViewerMessage {
  id: number;
  /** The message hash (stable across re-imports): the viewer's citations carry it. */
  hash: string;
  sender: string;
  ts: string;
  tsUnix: number;
  /** Rendered by the webview as text only. */
  body: string;
  isSystem: boolean;
  attachments: ViewerAttachment[];
  reactions: ViewerReaction[];
}

/** msgbrowse's journal digest of the focused message's day (plain text; written by an LLM). */
export interface ViewerDigest {
  day: string;
  summary: string;
  mood: string;
  stale: boolean;
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
  /** The highlighted message's hash: a refresh after a re-import follows it, never highlighting another message. */
  highlightHash?: string;
}

export type ToWebview =
  | {
      type: 'load';
      conversation: ViewerConversation;
      messages: ViewerMessage[];
      hasBefore: boolean;
      hasAfter: boolean;
      /** Scroll to this message (centre) and, if highlight, mark it. */
      focusId?: number;
      highlight: boolean;
      /** Shown above the messages, e.g. that the cited message moved after a re-import (plain text). */
      notice?: string;
      /** The journal digest of the focused message's day, when msgbrowse wrote one. */
      digest?: ViewerDigest;
    }
  | { type: 'page'; direction: 'before' | 'after'; messages: ViewerMessage[]; hasMore: boolean }
  | { type: 'findResults'; query: string; ids: number[]; truncated: boolean; error?: string }
  /** Scroll to the first/last rendered message (loading more as the reader would by scrolling). */
  | { type: 'scrollEdge'; edge: 'top' | 'bottom' }
  /** Fill the find box and search (as if the reader typed the query and pressed Enter). */
  | { type: 'setFind'; query: string }
  | { type: 'error'; message: string };

/** What the webview reports after rendering: lets the host (and tests) verify what is on screen. */
export interface ShownReport {
  focusId: number;
  highlighted: boolean;
  rendered: number;
  /** textContent of the focused message's body. */
  focusText?: string;
  /** Hash of the focused message (as the viewer's citations carry it). */
  focusHash?: string;
  /** The notice shown above the messages, if any. */
  notice?: string;
  /** textContent of the day's digest box, if shown. */
  digestText?: string;
  /** Elements inside the message list that message data must never create (script, iframe, on* handlers). */
  activeElements: number;
  /** Inline images (attachments resolved inside the archive root) in the rendered messages. */
  images: number;
}

export interface FoundReport {
  query: string;
  count: number;
  /** The match the viewer moved to (0 when none). */
  currentId: number;
  /** Whether that match is rendered and highlighted. */
  highlighted: boolean;
}

export interface PagedReport {
  direction: 'before' | 'after';
  added: number;
  rendered: number;
  hasMore: boolean;
  firstId: number;
  lastId: number;
}

export type FromWebview =
  | { type: 'ready'; state?: ViewerState }
  | { type: 'loadMore'; direction: 'before' | 'after'; edgeId: number }
  | { type: 'jump'; messageId: number }
  | { type: 'find'; query: string }
  | { type: 'copyCitation'; messageId: number; hash?: string }
  | { type: 'openLink'; url: string }
  | ({ type: 'shown' } & ShownReport)
  | ({ type: 'paged' } & PagedReport)
  | ({ type: 'found' } & FoundReport)
  | { type: 'state'; state: ViewerState };

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isHash = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{4,64}$/.test(v);

/** Validates a message posted by the webview; returns undefined for anything malformed. */
export function parseFromWebview(raw: unknown): FromWebview | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const m = raw as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
      return { type: 'ready', state: parseState(m.state) };
    case 'loadMore':
      return (m.direction === 'before' || m.direction === 'after') && isInt(m.edgeId)
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
    case 'shown':
      return isInt(m.focusId) &&
        typeof m.highlighted === 'boolean' &&
        isInt(m.rendered) &&
        isInt(m.activeElements) &&
        isInt(m.images)
        ? {
            type: 'shown',
            focusId: m.focusId,
            highlighted: m.highlighted,
            rendered: m.rendered,
            focusText: typeof m.focusText === 'string' ? m.focusText : undefined,
            focusHash: isHash(m.focusHash) ? m.focusHash : undefined,
            notice: typeof m.notice === 'string' ? m.notice.slice(0, 2000) : undefined,
            digestText: typeof m.digestText === 'string' ? m.digestText.slice(0, 4000) : undefined,
            activeElements: m.activeElements,
            images: m.images,
          }
        : undefined;
    case 'paged':
      return (m.direction === 'before' || m.direction === 'after') &&
        isInt(m.added) &&
        isInt(m.rendered) &&
        typeof m.hasMore === 'boolean' &&
        isInt(m.firstId) &&
        isInt(m.lastId)
        ? {
            type: 'paged',
            direction: m.direction,
            added: m.added,
            rendered: m.rendered,
            hasMore: m.hasMore,
            firstId: m.firstId,
            lastId: m.lastId,
          }
        : undefined;
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
