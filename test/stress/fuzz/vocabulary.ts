/** Builds the fuzz vocabulary (valid names, ids, words, days…) from a fixture archive's description. */
import type { ArchiveDescription } from '../../fixtures/index';
import type { FuzzVocabulary } from './arbitraries';

export function vocabularyOf(desc: ArchiveDescription): FuzzVocabulary {
  const words = new Set<string>();
  for (const m of desc.messages) {
    for (const w of m.body.split(/[^\p{L}\p{N}]+/u)) if (w.length >= 3 && words.size < 400) words.add(w.toLowerCase());
  }
  const days = new Set<string>();
  for (const m of desc.messages) if (/^\d{4}-\d{2}-\d{2}/.test(m.ts)) days.add(m.ts.slice(0, 10));
  const domains = new Set<string>();
  for (const m of desc.messages) for (const l of m.links) if (l.domain) domains.add(l.domain);
  const uniq = <T>(xs: T[]) => [...new Set(xs)];
  return {
    conversations: desc.conversations.map((c) => ({ id: c.id, name: c.name, source: c.source })),
    senders: uniq(desc.messages.map((m) => m.sender)),
    sources: uniq(desc.conversations.map((c) => c.source)),
    messageIds: desc.messages.map((m) => m.id),
    hashes: desc.messages.map((m) => m.hash),
    words: [...words],
    days: [...days].sort(),
    domains: domains.size ? [...domains] : ['example.com'],
  };
}
