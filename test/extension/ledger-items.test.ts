/**
 * The wording of "What Copilot Has Seen" (src/extension/ledger-items.ts) and of the privacy lines in the status bar
 * tooltip and Show Server Status (src/extension/privacy-summary.ts). Pure: no extension host.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DisclosureEntry } from '../../src/core/ledger';
import { callDescription, callLabel, callTooltip, messageLabel } from '../../src/extension/ledger-items';
import { exclusionsLine, privacyLines, redactionLine } from '../../src/extension/privacy-summary';

const entry = (over: Partial<DisclosureEntry> = {}): DisclosureEntry => ({
  v: 1,
  time: '2025-03-04T10:11:12.000Z',
  client: { name: 'Visual Studio Code', version: '1.101.0' },
  kind: 'tool',
  name: 'search_messages',
  arguments: { query: 'lease agreement', limit: 5 },
  ok: true,
  messages: [{ hash: 'a'.repeat(64), message_id: 1, conversation_id: 2 }],
  ...over,
});

describe('ledger view wording', () => {
  it('a call: the tool and its arguments; when, how many messages, which client', () => {
    assert.equal(callLabel(entry()), 'search_messages query: "lease agreement", limit: 5');
    assert.equal(
      callLabel(entry({ kind: 'resource', name: 'message', arguments: { uri: 'msgbrowse://message/3?h=abcd' } })),
      'read msgbrowse://message/3?h=abcd',
    );
    assert.equal(callLabel(entry({ name: 'list_conversations', arguments: {} })), 'list_conversations');
    const d = callDescription(entry(), new Date('2025-03-04T12:00:00Z'));
    assert.match(d, / · 1 message · Visual Studio Code$/);
    assert.match(callDescription(entry({ ok: false, error: 'x', messages: [] })), / · failed · Visual Studio Code$/);
    assert.match(callTooltip(entry({ ok: false, error: 'conversation not found' })), /Failed: conversation not found/);
    assert.match(
      callTooltip(entry()),
      /^Tool call search_messages by Visual Studio Code 1\.101\.0 at 2025-03-04T10:11:12\.000Z\nArguments: \{"query"/,
    );
  });

  it('a message: sender · conversation · snippet, one line, bounded; a gone one says so', () => {
    const m = entry().messages[0];
    assert.equal(
      messageLabel(m, { sender: 'Harper', conversation: 'Harper', body: 'the lease\nagreement is ready' }),
      'Harper · Harper · the lease agreement is ready',
    );
    const long = messageLabel(m, { sender: 'S', conversation: 'C', body: 'x'.repeat(500) });
    assert.ok(long.length < 80 && long.endsWith('…'), long);
    assert.equal(messageLabel(m, undefined), `(no longer in the archive) ${'a'.repeat(16)}…`);
    assert.equal(messageLabel(m, { sender: 'S', conversation: 'C', body: '\u202e' }), 'S · C · (no text)');
  });
});

describe('privacy lines', () => {
  it('name the exclusions (count and names, bounded), the redaction mode and the ledger', () => {
    assert.equal(exclusionsLine([]), 'Excluded conversations: none');
    assert.equal(exclusionsLine(['Family', 'Work']), 'Excluded conversations: 2 ("Family", "Work")');
    assert.equal(
      exclusionsLine(['a', 'b', 'c', 'd', 'e', 'f', 'g']),
      'Excluded conversations: 7 ("a", "b", "c", "d", "e", and 2 more)',
    );
    assert.match(redactionLine(true), /^Redaction: on/);
    assert.match(redactionLine(false), /^Redaction: off/);
    assert.deepEqual(privacyLines({ exclusions: [], redact: true, ledgerFile: '/g/ledger/disclosures.jsonl' }), [
      'Excluded conversations: none',
      redactionLine(true),
      'What Copilot has seen is recorded in /g/ledger/disclosures.jsonl',
    ]);
  });
});
