/**
 * A page of one conversation as a reader sees it (the use case behind the conversation viewer): one archive call
 * (`conversationPage`, one read snapshot), its attachments and reactions joined onto their messages.
 */
import type {
  AsyncArchive,
  AttachmentRow,
  ConversationPage,
  ConversationPageOptions,
  ConversationRow,
  MessageRow,
  ReactionRow,
} from '../archive/types';

/** Everyone who reacted to a message with one emoji, in the order they reacted. */
export interface ReactionGroup {
  emoji: string;
  actors: string[];
}

export interface PageMessage extends MessageRow {
  /** Its attachments, by attachment id. */
  attachments: AttachmentRow[];
  /** Its reactions grouped by emoji, emojis in order of their first reaction. */
  reactions: ReactionGroup[];
}

export interface ConversationPageView {
  /** Undefined when the conversation is not in the archive. */
  conversation?: ConversationRow;
  /** The message the page was asked around/beside, wherever it is (see ConversationPage.anchor). */
  anchor?: MessageRow;
  /** Chronological. */
  messages: PageMessage[];
  hasBefore: boolean;
  hasAfter: boolean;
}

/** Reads one page in a single archive call and joins its extras onto the messages. */
export async function readConversationPage(
  archive: AsyncArchive,
  req: ConversationPageOptions,
  signal?: AbortSignal,
): Promise<ConversationPageView> {
  return shapeConversationPage(await archive.conversationPage(req, signal));
}

export function shapeConversationPage(page: ConversationPage): ConversationPageView {
  const attachments = groupBy(page.attachments, (a) => a.messageId);
  const reactions = groupBy(page.reactions, (r) => r.messageHash);
  return {
    ...(page.conversation ? { conversation: page.conversation } : {}),
    ...(page.anchor ? { anchor: page.anchor } : {}),
    messages: page.messages.map((m) => ({
      ...m,
      attachments: attachments.get(m.id) ?? [],
      reactions: byEmoji(reactions.get(m.hash) ?? []),
    })),
    hasBefore: page.hasBefore,
    hasAfter: page.hasAfter,
  };
}

function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

function byEmoji(rows: readonly ReactionRow[]): ReactionGroup[] {
  const actors = new Map<string, string[]>();
  for (const r of rows) {
    const list = actors.get(r.emoji);
    if (list) list.push(r.actor);
    else actors.set(r.emoji, [r.actor]);
  }
  return [...actors].map(([emoji, list]) => ({ emoji, actors: list }));
}
