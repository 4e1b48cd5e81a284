import { type ContactInfo, inline, linkLabel } from '../../core';

export function renderContact(c: ContactInfo): string {
  const ids = c.identifiers.map((i) => `${i.source}: ${inline(i.identifier, 80)}`).join('; ');
  const convs = c.conversations
    .map((x) => `[${linkLabel(x.name, 60)}](${x.link}) (${x.source}, ${x.message_count} messages)`)
    .join(', ');
  return (
    `- **${inline(c.name, 80)}** (contact_id ${c.contact_id}), ${c.fact_count} fact${c.fact_count === 1 ? '' : 's'}\n` +
    `  identifiers: ${ids || '(none)'}\n` +
    `  conversations: ${convs || '(none)'}`
  );
}
