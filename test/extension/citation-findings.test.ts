/**
 * The citation check as editor findings: severities, ranges and texts per outcome, and the command's summary line.
 *   node --import tsx --test test/extension/citation-findings.test.ts
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AsyncArchive, MessageRow } from '../../src/archive/types';
import { summarizeChecks } from '../../src/core/citation-check';
import { checkDocumentText, findingsOf, summaryLine } from '../../src/extension/citation-findings';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const rows: MessageRow[] = [
  {
    id: 1,
    hash: B,
    conversationId: 6,
    conversation: 'Harper',
    source: 'signal',
    sender: 'Harper',
    ts: '',
    tsUnix: 0,
    body: 'ok',
    isSystem: false,
    seq: 0,
  },
  {
    id: 2,
    hash: A,
    conversationId: 6,
    conversation: 'Harper',
    source: 'signal',
    sender: 'Harper',
    ts: '',
    tsUnix: 0,
    body: 'the lease agreement is ready',
    isSystem: false,
    seq: 0,
  },
];
const archive = {
  messageById: async (id: number) => rows.find((r) => r.id === id),
  messagesByHashPrefix: async (p: string, limit: number) => rows.filter((r) => r.hash.startsWith(p)).slice(0, limit),
} as unknown as AsyncArchive;

const doc = [
  `"the lease agreement is ready" msgbrowse:c/6/at/2?h=${A.slice(0, 16)}`, // ok, quote matches: no finding
  `"the lease agreement is signed" msgbrowse:c/6/at/2?h=${A.slice(0, 16)}`, // quote altered
  `"we never met" msgbrowse:c/6/at/2?h=${A.slice(0, 16)}`, // quote fabricated
  `msgbrowse:c/6/at/1?h=${A.slice(0, 16)}`, // moved (id 1 holds another message)
  'msgbrowse:c/6/at/77?h=0123456789abcdef', // gone
  'msgbrowse:c/6/at/1', // unverified
  '`msgbrowse:c/6/at/77?h=0123456789abcdef` in code: skipped in Markdown',
].join('\n');

describe('citation findings', () => {
  it('one finding per problem: gone → error, moved and bad quotes → warning, no hash → information', async () => {
    const checks = await checkDocumentText(archive, doc, true);
    assert.equal(checks.length, 6);
    const f = findingsOf(checks);
    assert.deepEqual(
      f.map((x) => [x.code, x.severity, doc.slice(x.start, x.start + x.length)]),
      [
        ['quote-altered', 'warning', 'the lease agreement is signed'],
        ['quote-fabricated', 'warning', 'we never met'],
        ['citation-moved', 'warning', `msgbrowse:c/6/at/1?h=${A.slice(0, 16)}`],
        ['citation-gone', 'error', 'msgbrowse:c/6/at/77?h=0123456789abcdef'],
        ['citation-unverified', 'information', 'msgbrowse:c/6/at/1'],
      ],
    );
    assert.match(
      f[0].message,
      /^Quote altered: message 2 \(Harper in Harper\) does not say this word for word; closest passage: "the lease agreement is"\.$/,
    );
    assert.match(f[2].message, /^Citation moved: .*now message 2.*Quick fix: update the link\.$/);
    assert.match(f[3].message, /^Citation gone: this message is no longer in the archive/);
    assert.equal(checks[f[2].check].fix?.text, `msgbrowse:c/6/at/2?h=${A.slice(0, 16)}`);
  });

  it('the summary line counts links and quotes', async () => {
    const s = summarizeChecks(await checkDocumentText(archive, doc, true));
    assert.equal(
      summaryLine(s),
      '6 citations: 3 resolve, 1 moved, 1 gone, 1 unverified (no hash) · 3 quotes: 1 matches, 1 altered, 1 not found',
    );
    assert.equal(summaryLine(summarizeChecks([])), 'no msgbrowse citations in this document');
    assert.equal((await checkDocumentText(archive, doc, false)).length, 7, 'outside Markdown, code is not special');
  });
});
