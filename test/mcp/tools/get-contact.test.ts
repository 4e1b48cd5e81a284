/** get_contact: a contact by id or name with its facts and their source messages; its errors. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkGetContact, journalFixture, type Setup } from './journal-fixture';

let s: Setup;
journalFixture((x) => (s = x));

describe('get_contact', () => {
  test('by id: facts oldest first, source messages as hits (with reactions), the deleted one null with a note', async () => {
    const r = await checkGetContact(s.c, s.o, { contact_id: s.fx.contacts!.maya }, s.fx.contacts!.maya);
    assert.equal(r.fact_count, 4);
    assert.equal(r.facts[0].message, null);
    assert.equal(r.facts[2].message?.message_id, s.fx.marks.reacted.id);
    assert.equal(r.facts[2].message?.reactions?.length, 2);
  });

  test('by name, case- and accent-insensitively', async () => {
    await checkGetContact(s.c, s.o, { name: 'zoe martin' }, s.fx.contacts!.zoe);
    await checkGetContact(s.c, s.o, { name: 'MAYA' }, s.fx.contacts!.maya);
    const harper = s.o.searchContacts('Harper')[0].contact_id;
    const r = await checkGetContact(s.c, s.o, { name: 'Harper' }, harper);
    assert.deepEqual(r.facts, []);
    assert.equal(r.fact_count, 0);
  });

  test('errors: unknown id, unknown name, neither, both', async () => {
    assert.match(await s.c.err('get_contact', { contact_id: 9999 }), /9999/);
    assert.match(await s.c.err('get_contact', { name: 'Nobody Atall' }), /Nobody Atall/);
    const neither = await s.c.err('get_contact', {});
    assert.match(neither, /contact_id/);
    assert.match(neither, /name/);
    const both = await s.c.err('get_contact', { contact_id: s.fx.contacts!.maya, name: 'Maya' });
    assert.match(both, /contact_id/);
    assert.match(both, /name/);
  });
});
