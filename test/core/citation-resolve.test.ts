import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AsyncArchive, MessageRow } from '../../src/archive/types';
import { citationHash, parseCitationHash, resolveCitation } from '../../src/core/citation-resolve';

function row(id: number, hash: string, conversationId = 6): MessageRow {
  return {
    id,
    hash,
    conversationId,
    conversation: 'Abuela Rosa',
    source: 'whatsapp',
    sender: 'Rosa',
    ts: '',
    tsUnix: 0,
    body: `m${id}`,
    isSystem: false,
    seq: 0,
  };
}

/** An archive after a re-import: message `aaaa…` moved from id 193 to 194; id 193 now holds `bbbb…`. */
function archive(rows: MessageRow[]): AsyncArchive {
  const fake = {
    messageById: async (id: number) => rows.find((r) => r.id === id),
    messagesByHashPrefix: async (p: string, limit: number) =>
      rows
        .filter((r) => r.hash.startsWith(p))
        .sort((a, b) => a.hash.localeCompare(b.hash))
        .slice(0, limit),
  };
  return fake as unknown as AsyncArchive;
}

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const after = archive([row(193, B), row(194, A)]);

describe('resolveCitation', () => {
  it('id and hash agree: exact, checked', async () => {
    const r = await resolveCitation(archive([row(193, A)]), {
      conversationId: 6,
      messageId: 193,
      hash: citationHash(A),
    });
    assert.equal(r.status, 'exact');
    assert.equal(r.status === 'exact' && r.checked, true);
  });

  it('the id holds another message but the hash exists: moved, to the cited message, saying so', async () => {
    const r = await resolveCitation(after, { conversationId: 6, messageId: 193, hash: citationHash(A) });
    assert.equal(r.status, 'moved');
    assert.equal(r.status === 'moved' && r.message.hash, A);
    assert.match(r.status === 'moved' ? r.note : '', /moved after a re-import.*now message 194/);
  });

  it('the hash is gone: gone, never the message now at that id', async () => {
    const r = await resolveCitation(archive([row(193, B)]), {
      conversationId: 6,
      messageId: 193,
      hash: citationHash(A),
    });
    assert.equal(r.status, 'gone');
    assert.ok(!('message' in r));
    assert.match(
      r.status === 'gone' ? r.note : '',
      /no longer in the archive; it was message 193 in conversation 6.*another message/,
    );
  });

  it('an ambiguous short prefix names no message', async () => {
    const r = await resolveCitation(archive([row(1, `ab${'0'.repeat(62)}`), row(2, `ab${'1'.repeat(62)}`)]), {
      conversationId: 6,
      messageId: 9,
      hash: 'ab',
    });
    assert.equal(r.status, 'gone');
  });

  it('old links without a hash work as before: the id, unchecked', async () => {
    const r = await resolveCitation(after, { conversationId: 6, messageId: 193 });
    assert.equal(r.status === 'exact' && r.message.hash, B);
    assert.equal(r.status === 'exact' && r.checked, false);
    assert.equal((await resolveCitation(after, { conversationId: 6, messageId: 999 })).status, 'gone');
  });

  it('parses and shortens hashes', () => {
    assert.equal(citationHash(A.toUpperCase()), 'a'.repeat(16));
    assert.equal(parseCitationHash(' ABCDEF12 '), 'abcdef12');
    for (const bad of ['', 'abc', 'xyz123', 'a'.repeat(65), null, undefined])
      assert.equal(parseCitationHash(bad), undefined, String(bad));
  });
});
