import { type AsyncArchive, type ExclusionMatch, messageLink, missingParts, type Runtime, schemaNotice } from '../core';
import { CliError } from './errors';

function plainSnippet(s: string): string {
  return s
    .replace(/\u0002/g, '[')
    .replace(/\u0003/g, ']')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim();
}

function hiddenLine(m: ExclusionMatch): string {
  const closest = m.closest.length ? ` (closest: ${m.closest.map((n) => `"${n}"`).join(', ')})` : '';
  const hides = m.matched.length
    ? m.matched.map((c) => `${c.source}:${c.name}`).join(', ')
    : `nothing: it matches no conversation${closest}`;
  return `Hidden      "${m.entry}" → ${hides}`;
}

/** A word of five letters or more from the biggest conversation's first messages, for the sample search. */
async function sampleQuery(archive: AsyncArchive): Promise<string | undefined> {
  const convs = await archive.listConversations();
  const biggest = [...convs].sort((a, b) => b.messageCount - a.messageCount || a.id - b.id)[0];
  if (!biggest) return undefined;
  const page = await archive.transcript({ conversationId: biggest.id, limit: 50 });
  for (const m of page.messages) {
    const w = m.body.match(/\p{L}{5,}/u);
    if (w && !m.isSystem) return w[0].toLowerCase();
  }
  return undefined;
}

/** --summary: what the archive holds, then a sample keyword search (`query`, else a word from the archive). */
export async function printSummary(runtime: Runtime, query: string | undefined): Promise<void> {
  const st = await runtime.describe();
  const s = st.summary;
  if (!s)
    throw new CliError(`cannot read the archive summary${st.archive.state === 'error' ? `: ${st.archive.error}` : ''}`);
  const out = [`Archive     ${s.path}`, `Schema      v${s.schemaVersion}`];
  const notice = schemaNotice(s.schemaVersion);
  if (notice) out.push(`Notice      ${notice}`);
  const missing = missingParts(s.parts);
  if (missing.length) out.push(`Without     ${missing.join('; ')}`);
  out.push(`Content     ${s.conversations} conversations, ${s.messages} messages`);
  const sources = Object.entries(s.sources).map(([k, v]) => `${k} ${v}`);
  out.push(`Sources     ${sources.join(', ') || '(none)'}`);
  out.push(`Span        ${s.firstTs || '-'} … ${s.lastTs || '-'}`);
  const models = s.embeddingModels.map((m) => `${m.model} (${m.count} vectors, dim ${m.dim})`).join(', ');
  out.push(`Embeddings  ${models || '(none)'}`);
  for (const m of await runtime.exclusions()) out.push(hiddenLine(m));
  const sem = await runtime.context.semantic();
  const semantic = sem.available
    ? `ready (${sem.index.size} vectors of ${sem.index.model})`
    : `unavailable: ${sem.reason}`;
  out.push(`Semantic    ${semantic}`);

  const archive = await runtime.context.archive();
  const q = query?.trim() || (await sampleQuery(archive));
  if (q) {
    const hits = await archive.searchKeyword({ query: q, limit: 5 });
    out.push('', `Keyword search "${q}": ${hits.length === 0 ? 'no hits' : `top ${hits.length}`}`);
    for (const h of hits) {
      out.push(`  ${h.ts}  ${h.conversation} (${h.source}) — ${h.sender}: ${plainSnippet(h.snippet)}`);
      out.push(`    ${messageLink(runtime.context.citation, h.conversationId, h.id, h.hash)}`);
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
