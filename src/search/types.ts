import type { MessageFilter } from '../archive/types';

export interface VectorHit {
  messageId: number;
  /** Exact cosine similarity. */
  score: number;
}

/** Filters the vector index can apply while scanning (a subset of MessageFilter). */
export type VectorFilter = Pick<MessageFilter, 'conversationId' | 'source' | 'sender' | 'startUnix' | 'endUnix'> & {
  /** Hidden conversations: skipped during the scan, so top-k counts only the rest. */
  excludeConversationIds?: readonly number[];
  /** Only rows of these messages (has_attachment / has_link: true). */
  onlyMessageIds?: readonly number[];
  /** Rows of these messages are skipped (has_attachment / has_link: false). */
  skipMessageIds?: readonly number[];
};

/** Exact top-k cosine search over the stored vectors of one embedding model. */
export interface VectorIndex {
  readonly model: string;
  readonly dim: number;
  readonly size: number;
  /** Results sorted by score descending, ties by messageId ascending; scores are exact cosines. */
  search(query: Float32Array, k: number, filter?: VectorFilter, signal?: AbortSignal): Promise<VectorHit[]>;
  dispose(): void;
}
