/**
 * The listing use cases called directly: conversations (most recently active first, filtered by source and part of a
 * name), attachments and links (scoped, cited, limit clamped), the domain filter's reading, and their one-line errors.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listConversations, listLinks, listMedia, parseDomainFilter } from '../../src/core';
import { buildJournalArchive, type JournalArchive } from '../fixtures';
import { callsOn, type FixtureCalls } from './call-env';

let dir: string;
let fx: JournalArchive;
let calls: FixtureCalls;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-list-read-'));
  fx = buildJournalArchive(dir);
  calls = await callsOn(fx.path);
});
after(async () => {
  await calls?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('core: listConversations', () => {
  it('lists every conversation, most recently active first, and filters by source and part of a name', async () => {
    const all = await listConversations({}, calls.env());
    const want = [...fx.conversations].sort((a, b) => b.lastUnix - a.lastUnix || a.name.localeCompare(b.name));
    assert.deepEqual(
      all.conversations.map((c) => [c.id, c.message_count]),
      want.map((c) => [c.id, c.messageCount]),
    );
    const signal = await listConversations({ source: ' SIGNAL ' }, calls.env());
    assert.equal(signal.source, 'signal');
    assert.deepEqual(
      signal.conversations.map((c) => c.name).sort(),
      fx.conversations
        .filter((c) => c.source === 'signal')
        .map((c) => c.name)
        .sort(),
    );
    const club = await listConversations({ name_contains: ' CLIMB ' }, calls.env());
    assert.equal(club.nameContains, 'CLIMB');
    assert.deepEqual(
      club.conversations.map((c) => c.name),
      ['Climbing Club'],
    );
    await assert.rejects(
      listConversations({ source: 'telegram' }, calls.env()),
      /^ToolError: unknown source "telegram"; this archive has "imessage", "signal", "whatsapp"$/,
    );
  });
});

describe('core: listMedia and listLinks', () => {
  it('lists the attachments of a scope, each citing its message; a limit above the maximum is clamped', async () => {
    const r = await listMedia({ conversation: 'Maya', limit: 5000 }, calls.env());
    assert.equal(r.scope.conversation?.id, fx.marks.withPhoto.conversationId);
    assert.deepEqual(
      r.items.map((m) => [m.kind, m.name, m.path, m.message_id]),
      [['image', 'hike.jpg', 'media/hike.jpg', fx.marks.withPhoto.id]],
    );
    assert.match(
      r.items[0].link,
      new RegExp(`/at/${fx.marks.withPhoto.id}\\?h=${fx.marks.withPhoto.hash.slice(0, 8)}`),
    );
    assert.equal(r.hasMore, false);
    assert.deepEqual(r.notes, ['limit 5000 is above the maximum 1000; used 1000']);
    const none = await listMedia({ conversation: 'Harper', kind: 'image' }, calls.env());
    assert.deepEqual(none.items, []);
    await assert.rejects(listMedia({ conversation: 'Nobody' }, calls.env()), /conversation "Nobody" not found/);
  });

  it('lists the links on a domain given as a URL, with their first occurrence', async () => {
    const r = await listLinks({ domain: 'https://WWW.Example.com/anything' }, calls.env());
    assert.equal(r.domain, 'example.com');
    assert.deepEqual(
      r.items.map((l) => [l.url, l.domain, l.count, l.message_id]),
      [['https://maps.example.com/trail?id=7', 'maps.example.com', 1, fx.marks.withLink.id]],
    );
    const elsewhere = await listLinks({ domain: 'example.org' }, calls.env());
    assert.deepEqual(elsewhere.items, []);
    await assert.rejects(
      listLinks({ domain: 'not a domain' }, calls.env()),
      /^ToolError: domain "not a domain" is not a valid domain/,
    );
  });

  it('reads a domain filter as a host: lowercase, without www. or a trailing dot, IDN hosts as written', () => {
    assert.equal(parseDomainFilter('WWW.Example.COM'), 'example.com');
    assert.equal(parseDomainFilter('https://www.maps.example.com:8443/x?y'), 'maps.example.com');
    assert.equal(parseDomainFilter('https://BÜCHER.de/x'), 'bücher.de');
    assert.equal(parseDomainFilter('  '), undefined);
    assert.throws(() => parseDomainFilter('http://'), /is not a domain or URL/);
  });
});
