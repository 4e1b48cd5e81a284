/** Opening a citation in the viewer: its resolution, the page around it and its day's digest, in one archive call. */
import type { AsyncArchive } from '../archive/types';
import { type CitationResolution, type CitedMessage, decideCitation } from './citation-resolve';
import { digestOf } from './journal-days';
import { type ConversationPageView, shapeConversationPage } from './read-page';
import type { JournalDigest } from './results';

export interface OpenedCitation {
  resolution: CitationResolution;
  /** Around the cited message when it is in the paged conversation, else its end; absent: nothing to page. */
  page?: ConversationPageView;
  /** The digest of the page's anchor's UTC day. */
  digest: (JournalDigest & { day: string }) | null;
}

/** `conversationId` pages that conversation (a viewer's own) instead of the cited message's. */
export async function openCitation(
  archive: AsyncArchive,
  cited: CitedMessage,
  opts: { limit: number; conversationId?: number },
  signal?: AbortSignal,
): Promise<OpenedCitation> {
  const v = await archive.citationView(
    {
      messageId: cited.messageId,
      ...(cited.hash ? { hash: cited.hash.toLowerCase() } : {}),
      ...(opts.conversationId !== undefined ? { conversationId: opts.conversationId } : {}),
      limit: opts.limit,
    },
    signal,
  );
  const digest = v.day ? digestOf(v.day) : null;
  return {
    resolution: decideCitation(cited, v.atId, v.byHash),
    ...(v.page ? { page: shapeConversationPage(v.page) } : {}),
    digest: digest && v.day ? { ...digest, day: v.day.day } : null,
  };
}
