import { type CitationFormat, messageLink, missingParts, type Runtime, schemaNotice } from '../core';
import { CliError } from './errors';

function plainSnippet(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s
    .replace(/\u0002/g, '[')
    .replace(/\u0003/g, ']')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim();
}

export async function printSummary(
  runtime: Runtime,
  citation: CitationFormat,
  query: string | undefined,
): Promise<void> {
  const st = await runtime.describe();
  const s = st.summary;
  if (!s)
    throw new CliError(`cannot read the archive summary${st.archive.state === 'error' ? `: ${st.archive.error}` : ''}`);
  const out: string[] = [];
  out.push(`Archive     ${s.path}`);
  out.push(`Schema      v${s.schemaVersion}`);
  const notice = schemaNotice(s.schemaVersion);
  if (notice) out.push(`Notice      ${notice}`);
  const missing = missingParts(s.parts);
  if (missing.length) out.push(`Without     ${missing.join('; ')}`);
  out.push(`Content     ${s.conversations} conversations, ${s.messages} messages`);
  const sources = Object.entries(s.sources)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  out.push(`Sources     ${sources || '(none)'}`);
  out.push(`Span        ${s.firstTs || '-'} … ${s.lastTs || '-'}`);
  const models = s.embeddingModels.map((m) => `${m.model} (${m.count} vectors, dim ${m.dim})`).join(', ');
  out.push(`Embeddings  ${models || '(none)'}`);
  for (const m of await runtime.exclusions()) {
    out.push(
      `Hidden      "${m.entry}" → ${
        m.matched.length
          ? m.matched.map((c) => `${c.source}:${c.name}`).join(', ')
          : `nothing: it matches no conversation${m.closest.length ? ` (closest: ${m.closest.map((n) => `"${n}"`).join(', ')})` : ''}`
      }`,
    );
  }
  const sem = await runtime.context.semantic();
  out.push(
    `Semantic    ${sem.available ? `ready (${sem.index.size} vectors of ${sem.index.model})` : `unavailable: ${sem.reason}`}`,
  );

  const archive = await runtime.context.archive();
  let q = query?.trim();
  if (!q) {
    const convs = await archive.listConversations();
    const biggest = [...convs].sort((a, b) => b.messageCount - a.messageCount || a.id - b.id)[0];
    if (biggest) {
      const page = await archive.transcript({ conversationId: biggest.id, limit: 50 });
      for (const m of page.messages) {
        const w = m.body.match(/\p{L}{5,}/u);
        if (w && !m.isSystem) {
          q = w[0].toLowerCase();
          break;
        }
      }
    }
  }
  if (q) {
    const hits = await archive.searchKeyword({ query: q, limit: 5 });
    out.push('');
    out.push(`Keyword search "${q}": ${hits.length === 0 ? 'no hits' : `top ${hits.length}`}`);
    for (const h of hits) {
      out.push(`  ${h.ts}  ${h.conversation} (${h.source}) — ${h.sender}: ${plainSnippet(h.snippet)}`);
      out.push(`    ${messageLink(citation, h.conversationId, h.id, h.hash)}`);
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
}
