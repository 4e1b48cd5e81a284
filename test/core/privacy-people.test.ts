/**
 * People under exclusions, the cases that need care: a contact named after a hidden conversation is not shown (nor
 * found) by that name; a fact whose cited message is gone is left out when the person has a hidden conversation in
 * the fact's source (it cannot be traced, and may have come from there); a digest withheld for a hidden conversation
 * reads exactly like a missing one.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Runtime } from '../../src/core/index';
import { buildJournalArchive, type JournalArchive } from '../fixtures/index';
import { tempDir } from '../mcp/harness';
import { connectInMemory, startRuntime, type Connected } from '../stress/harness/server';

let dir: string;
let fx: JournalArchive;
let runtime: Runtime;
let conn: Connected;

before(async () => {
  dir = tempDir('privacy-people');
  fx = buildJournalArchive(dir);
  runtime = startRuntime({
    archivePath: fx.path,
    extra: { privacy: { excludeConversations: ['signal:Maya', 'signal:Climbing Club'] } },
  });
  conn = await connectInMemory(runtime, 'privacy-people');
});
after(async () => {
  await conn?.close();
  await runtime?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ok = async <T>(name: string, args: Record<string, unknown>): Promise<T> => {
  const r = await conn.client.callTool({ name, arguments: args });
  assert.ok(!r.isError, JSON.stringify(r.content));
  return r.structuredContent as T;
};

describe('people and journal under exclusions', () => {
  it('a contact named after a hidden conversation goes by a visible one, and is not found by the hidden name', async () => {
    const c = await ok<{
      contact_id: number;
      name: string;
      identifiers: { identifier: string }[];
      conversations: { name: string }[];
    }>('get_contact', { contact_id: fx.contacts!.maya });
    assert.equal(c.name, '+15550001111');
    assert.deepEqual(
      c.conversations.map((x) => x.name),
      ['+15550001111'],
    );
    assert.ok(!c.identifiers.some((i) => i.identifier === 'Maya'));
    // "Maya" still finds her — through maya@example.com, an identifier that may be seen — but never by that name.
    const found = await ok<{ contacts: { contact_id: number; name: string }[] }>('search_contacts', { query: 'Maya' });
    assert.ok(
      found.contacts.every((x) => x.name !== 'Maya'),
      JSON.stringify(found.contacts),
    );
    const byMail = await ok<{ contacts: { contact_id: number; name: string }[] }>('search_contacts', {
      query: 'maya@example',
    });
    assert.deepEqual(
      byMail.contacts.map((x) => x.name),
      ['+15550001111'],
      'still found by an identifier that may be seen',
    );
    const people = await conn.client.complete({
      ref: { type: 'ref/prompt', name: 'prepare_meeting' },
      argument: { name: 'person', value: 'may' },
    });
    assert.ok(!people.completion.values.includes('Maya'), JSON.stringify(people.completion.values));
  });

  it('facts: those citing hidden messages, and untraceable ones from a source with a hidden conversation, are left out', async () => {
    const c = await ok<{ fact_count: number; facts: { fact: string; message: unknown }[] }>('get_contact', {
      contact_id: fx.contacts!.maya,
    });
    // Kept: the iMessage fact (its message is visible). Gone: the two citing hidden Signal messages, and "Used to
    // live in Porto" (message deleted, source signal — where a hidden conversation of hers is).
    assert.deepEqual(
      c.facts.map((f) => f.fact),
      ['Has a night tour at the observatory'],
    );
    assert.equal(c.fact_count, 1);
  });

  it('a digest withheld because it speaks of a hidden conversation reads like a day without one', async () => {
    const hidden = await ok<{ digest: unknown; notes?: string[] }>('get_journal_day', { day: '2023-05-01' });
    const none = await ok<{ digest: unknown; notes?: string[] }>('get_journal_day', { day: '2021-07-25' });
    assert.equal(hidden.digest, null);
    assert.deepEqual(hidden.notes, none.notes);
  });
});
