/** A realistic, seeded mix of tool calls against a generated scale archive. */
import { mulberry32, type ScaleArchiveDescription } from '../../fixtures/index';

export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * `stopwordRate`: share of keyword searches that include one of the ten most frequent words (the, to,
 * and…), the FTS worst case (hundreds of ms each on WASM over 100k messages). CI uses 0 to fit its time
 * budget on a busy machine; the long mode includes them.
 */
export function workload(desc: ScaleArchiveDescription, seed: number, { stopwordRate = 0 } = {}): () => PlannedCall {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const stopwords = desc.sampleWords.frequent.slice(0, 10);
  const plain = [...desc.sampleWords.frequent.slice(10, 50), ...desc.sampleWords.medium, ...desc.sampleWords.rare];
  const words = plain;
  const convIds = Array.from({ length: desc.conversations }, (_, i) => i + 1);
  const days = (() => {
    const out: string[] = [];
    for (
      let t = desc.firstUnix;
      t <= desc.lastUnix && out.length < 400;
      t += Math.max(86_400, Math.floor((desc.lastUnix - desc.firstUnix) / 400))
    ) {
      out.push(new Date(t * 1000).toISOString().slice(0, 10));
    }
    return out;
  })();
  const semantic = !!desc.embeddings;
  return () => {
    const r = rand();
    if (r < 0.3) {
      const n = 1 + Math.floor(rand() * 2);
      const terms = Array.from({ length: n }, () => pick(words));
      if (rand() < stopwordRate) terms[0] = pick(stopwords);
      const query = terms.join(' ');
      const args: Record<string, unknown> = { query, limit: pick([10, 20, 50]) };
      if (rand() < 0.3) args.conversation_id = pick(convIds);
      if (rand() < 0.2) {
        const [a, b] = [pick(days), pick(days)].sort();
        args.start = a;
        args.end = b;
      }
      return { name: 'search_messages', arguments: args };
    }
    if (r < 0.4 && semantic)
      return { name: 'semantic_search', arguments: { query: `${pick(words)} ${pick(words)}`, k: pick([5, 10, 20]) } };
    if (r < 0.6)
      return {
        name: 'get_context',
        arguments: { message_id: 1 + Math.floor(rand() * desc.messages), window: pick([2, 5, 10]) },
      };
    if (r < 0.78)
      return { name: 'get_conversation', arguments: { conversation_id: pick(convIds), limit: pick([50, 100, 200]) } };
    if (r < 0.85)
      return {
        name: 'list_conversations',
        arguments: rand() < 0.5 ? {} : { source: pick(['signal', 'imessage', 'whatsapp']) },
      };
    if (r < 0.93)
      return {
        name: 'list_media',
        arguments: { limit: pick([20, 50, 100]), ...(rand() < 0.5 ? { conversation_id: pick(convIds) } : {}) },
      };
    return {
      name: 'list_links',
      arguments: {
        limit: pick([20, 50, 100]),
        ...(rand() < 0.3 ? { domain: pick(['youtube.com', 'github.com', 'example.com']) } : {}),
      },
    };
  };
}
