/**
 * The people use cases called directly: contacts found by part of a name or identifier (case and accents ignored), one
 * person by contact_id or name with the facts and the messages they cite, and one line for each request they refuse.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findContacts, readContact } from '../../src/core';
import { buildJournalArchive, type JournalArchive } from '../fixtures';
import { callsOn, type FixtureCalls } from './call-env';

let dir: string;
let fx: JournalArchive;
let calls: FixtureCalls;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-contact-read-'));
  fx = buildJournalArchive(dir);
  calls = await callsOn(fx.path);
});
after(async () => {
  await calls?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('core: readContact', () => {
  it('reads a person by contact_id: identifiers across sources, conversations, facts oldest first with their messages', async () => {
    const r = await readContact({ contact_id: fx.contacts!.maya }, calls.env());
    assert.equal(r.contact.contact_id, fx.contacts!.maya);
    assert.equal(r.contact.name, 'Maya');
    assert.deepEqual(r.contact.identifiers.map((i) => `${i.source}: ${i.identifier}`).sort(), [
      'imessage: +15550001111',
      'signal: Maya',
      'whatsapp: maya@example.com',
    ]);
    assert.deepEqual(
      r.contact.conversations.map((c) => c.id).sort(),
      [fx.marks.mayaBirthday.conversationId, fx.marks.mayaImessage.conversationId].sort(),
    );
    assert.deepEqual(
      r.facts.map((f) => [f.fact, f.message?.hash ?? null]),
      [
        ['Used to live in Porto', null],
        ['Birthday is on 9 October', fx.marks.mayaBirthday.hash],
        ['Works at the observatory', fx.marks.reacted.hash],
        ['Has a night tour at the observatory', fx.marks.mayaImessage.hash],
      ],
    );
    assert.deepEqual(r.notes, [
      '1 fact cites a message no longer in the archive (re-imported or deleted): message is null — treat it as unverified',
    ]);
  });

  it('reads the same person by display name, case ignored', async () => {
    const r = await readContact({ name: '  maya ' }, calls.env());
    assert.equal(r.contact.contact_id, fx.contacts!.maya);
  });

  it('says in one line what is wrong with a request', async () => {
    await assert.rejects(
      readContact({ contact_id: 1, name: 'Maya' }, calls.env()),
      /^ToolError: give exactly one of contact_id or name/,
    );
    await assert.rejects(readContact({ contact_id: 9999 }, calls.env()), /no contact with contact_id 9999/);
    await assert.rejects(
      readContact({ name: 'May' }, calls.env()),
      new RegExp(`no contact is named "May"; names containing it: "Maya" \\(contact_id ${fx.contacts!.maya}\\)`),
    );
  });
});

describe('core: findContacts', () => {
  it('finds people by part of a name (accents ignored) or an identifier, and says when none match', async () => {
    const zoe = await findContacts({ query: 'zoe' }, calls.env());
    assert.deepEqual(
      zoe.contacts.map((c) => c.contact_id),
      [fx.contacts!.zoe],
    );
    assert.equal(zoe.contacts[0].fact_count, 1);
    const byPhone = await findContacts({ query: '5550001111' }, calls.env());
    assert.deepEqual(
      byPhone.contacts.map((c) => c.contact_id),
      [fx.contacts!.maya],
    );
    const none = await findContacts({ query: ' nobody ' }, calls.env());
    assert.equal(none.query, 'nobody');
    assert.deepEqual(none.contacts, []);
    assert.match(none.notes[0], /no contact's name or identifier contains "nobody"/);
    await assert.rejects(findContacts({ query: '   ' }, calls.env()), /^ToolError: query is empty/);
  });

  it('refuses an archive that keeps no people, saying which tables it lacks', async () => {
    const old = fs.mkdtempSync(path.join(os.tmpdir(), 'core-contact-read-v1-'));
    const v1 = await callsOn(buildJournalArchive(old, { version: 1 }).path);
    try {
      await assert.rejects(
        findContacts({ query: 'Maya' }, v1.env()),
        /this archive keeps no people: it has no contacts and contact_identifiers tables .* — update msgbrowse/,
      );
    } finally {
      await v1.close();
      fs.rmSync(old, { recursive: true, force: true });
    }
  });
});
