/** A page of one conversation as the viewer shows it: one archive call, extras joined onto their messages. */
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
type ReactionGroup = { emoji: string; actors: string[] };

export interface PageMessage extends MessageRow {
  attachments: AttachmentRow[];
  /** Emojis in order of their first reaction. */
  reactions: ReactionGroup[];
}

export interface ConversationPageView {
  conversation?: ConversationRow;
  anchor?: MessageRow;
  messages: PageMessage[];
  hasBefore: boolean;
  hasAfter: boolean;
}

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

export function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
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
  return [...groupBy(rows, (r) => r.emoji)].map(([emoji, list]) => ({ emoji, actors: list.map((r) => r.actor) }));
}
