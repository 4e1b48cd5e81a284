/** search_contacts: accent- and case-insensitive matching on names and identifiers, its order and conversations. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSearchContacts, conversationLink, journalFixture, type Contact, type Setup } from './journal-fixture';

let s: Setup;
journalFixture((x) => (s = x));

describe('search_contacts', () => {
  test('accent- and case-insensitive name and identifier substrings; merged contact is one', async () => {
    const zoe = await checkSearchContacts(s.c, s.o, 'zoe');
    assert.deepEqual(
      zoe.contacts.map((c) => c.name),
      ['Zoë Martin'],
    );
    const byMail = await checkSearchContacts(s.c, s.o, 'maya@EXAMPLE');
    assert.deepEqual(
      byMail.contacts.map((c) => c.contact_id),
      [s.fx.contacts!.maya],
    );
    assert.equal(byMail.contacts[0].conversations.length, 2, "Maya's signal and iMessage threads");
    const byPhone = await checkSearchContacts(s.c, s.o, '+1555000');
    assert.deepEqual(
      byPhone.contacts.map((c) => c.contact_id),
      [s.fx.contacts!.maya],
    );
    await checkSearchContacts(s.c, s.o, 'ZOË MARTIN');
    await checkSearchContacts(s.c, s.o, '+33 6 12');
  });

  test('order: exact name, then name prefix, then the rest by folded name', async () => {
    for (const q of ['e', 'c', 'r', 'ma', 'maya', 'a', 'Climbing Club', 'CLIMB'])
      await checkSearchContacts(s.c, s.o, q);
    const e = await s.c.ok<{ contacts: Contact[] }>('search_contacts', { query: 'c' });
    assert.equal(e.contacts[0]?.name, 'Climbing Club', 'a name prefix comes before identifier matches');
  });

  test('conversation message_count counts every message (system rows too) and links the conversation', async () => {
    const r = await s.c.ok<{ contacts: Contact[] }>('search_contacts', { query: 'harper' });
    const harper = r.contacts.find((c) => c.name === 'Harper')!;
    assert.ok(harper);
    assert.equal(harper.conversations[0].message_count, 10);
    assert.equal(harper.conversations[0].link, conversationLink(harper.conversations[0].id));
  });

  test('no match: empty list plus a note', async () => {
    const r = await checkSearchContacts(s.c, s.o, 'nobody-by-this-name');
    assert.deepEqual(r.contacts, []);
    assert.ok((r.notes ?? []).length > 0, 'an empty answer says so');
  });
});
