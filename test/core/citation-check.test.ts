/**
 * The citation check, one case per outcome: link status (ok / moved / gone / unverified), the quote next to a link
 * (matches / altered / fabricated, ellipsis, curly quotes, blockquotes) and several citations on one line.
 *   node --import tsx --test test/core/citation-check.test.ts
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AsyncArchive, MessageRow } from '../../src/archive/types';
import {
  checkCitations,
  compareQuote,
  findQuotes,
  markdownCodeRanges,
  rewriteCitation,
  summarizeChecks,
  type CitationCheck,
} from '../../src/core/citation-check';
import { citationHash } from '../../src/core/citation-resolve';
import { findCitations } from '../../src/extension/citation-ref';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);
const h = citationHash;

function row(id: number, hash: string, body: string, conversationId = 6): MessageRow {
  return {
    id,
    hash,
    conversationId,
    conversation: 'Harper',
    source: 'signal',
    sender: 'Harper',
    ts: '',
    tsUnix: 0,
    body,
    isSystem: false,
    seq: 0,
  };
}

/** After a re-import: the lease message (hash A) moved from id 193 to 194; id 193 now holds B. */
const rows = [
  row(193, B, 'ok'),
  row(194, A, 'The lease agreement is ready,\n  I signed it   yesterday. Harper’s copy is in the “blue” folder.'),
  row(300, C, 'deposit sent', 7),
];
const calls: number[] = [];
const archive = {
  messageById: async (id: number) => {
    calls.push(id);
    return rows.find((r) => r.id === id);
  },
  messagesByHashPrefix: async (p: string, limit: number) => rows.filter((r) => r.hash.startsWith(p)).slice(0, limit),
} as unknown as AsyncArchive;

const TOKEN_OK = `msgbrowse:c/6/at/194?h=${h(A)}`;
const URI_OK = `vscode://msgbrowse.msgbrowse-vscode/c/6/at/194?h=${h(A)}`;

async function check(text: string, markdown = false): Promise<CitationCheck[]> {
  return checkCitations(archive, text, findCitations(text), { markdown });
}

async function one(text: string): Promise<CitationCheck> {
  const r = await check(text);
  assert.equal(r.length, 1, JSON.stringify(r));
  return r[0];
}

describe('citation check: link status', () => {
  it('ok: the id and the hash agree', async () => {
    const r = await one(`see ${TOKEN_OK}`);
    assert.equal(r.status, 'ok');
    assert.equal(r.message?.id, 194);
    assert.equal(r.fix, undefined);
    assert.equal(r.quote, undefined);
  });

  it('moved: the fix rewrites the link in its own form (URI, same scheme) to the new id', async () => {
    const link = `code-oss://msgbrowse.msgbrowse-vscode/c/6/at/193?h=${h(A)}`;
    const r = await one(`[source](${link})`);
    assert.equal(r.status, 'moved');
    assert.match(r.note, /moved after a re-import/);
    assert.deepEqual(r.fix, { kind: 'update', text: `code-oss://msgbrowse.msgbrowse-vscode/c/6/at/194?h=${h(A)}` });
    const token = await one(`msgbrowse:c/6/at/193?h=${A.slice(0, 8)}`);
    assert.deepEqual(token.fix, { kind: 'update', text: `msgbrowse:c/6/at/194?h=${h(A)}` });
  });

  it('moved: a hash-checked link naming the wrong conversation is rewritten to the right one', async () => {
    const r = await one(`msgbrowse:c/9/at/194?h=${h(A)}`);
    assert.equal(r.status, 'moved');
    assert.equal(r.fix?.text, `msgbrowse:c/6/at/194?h=${h(A)}`);
  });

  it('gone: no message has the hash (never the message now at the id)', async () => {
    const r = await one(`msgbrowse:c/6/at/193?h=0123456789abcdef and "ok"`);
    assert.equal(r.status, 'gone');
    assert.equal(r.message, undefined);
    assert.equal(r.quote, undefined, 'a gone citation has nothing to check a quote against');
    assert.match(r.note, /no longer in the archive/);
  });

  it('unverified: an old link without a hash whose id exists; the fix anchors it to the message there', async () => {
    const r = await one(`msgbrowse:c/6/at/194`);
    assert.equal(r.status, 'unverified');
    assert.deepEqual(r.fix, { kind: 'anchor', text: `msgbrowse:c/6/at/194?h=${h(A)}` });
  });

  it('an old link whose id is unknown, or in another conversation, is gone', async () => {
    assert.equal((await one('msgbrowse:c/6/at/999')).status, 'gone');
    assert.equal((await one('msgbrowse:c/6/at/300')).status, 'gone');
  });

  it('the same citation twice is resolved once; Markdown code is skipped', async () => {
    calls.length = 0;
    const r = await check(`${TOKEN_OK} and ${TOKEN_OK}\n\n\`${TOKEN_OK}\`\n\n\`\`\`\n${TOKEN_OK}\n\`\`\`\n`, true);
    assert.equal(r.length, 2);
    assert.deepEqual(calls, [194]);
  });
});

describe('citation check: quotes', () => {
  it('matches: whitespace collapsed, the first letter in either case, a closing period ignored', async () => {
    const r = await one(`Harper wrote "the lease agreement is ready, I signed it yesterday." ${TOKEN_OK}`);
    assert.equal(r.quote?.verdict, 'matches');
    assert.equal(r.quote?.kind, 'inline');
    assert.equal(r.quote?.text, 'the lease agreement is ready, I signed it yesterday.');
  });

  it('curly quotes and apostrophes match straight ones, both ways', async () => {
    const r = await one(`“Harper's copy is in the "blue" folder” (${URI_OK})`);
    assert.equal(r.quote?.verdict, 'matches');
    assert.equal(compareQuote('it’s “here”', `it's "here"`).verdict, 'matches');
  });

  it('ellipsis: … and ... stand for omitted text, fragments in order', async () => {
    assert.equal((await one(`"The lease agreement … in the “blue” folder" ${TOKEN_OK}`)).quote?.verdict, 'matches');
    assert.equal((await one(`"The lease [...] yesterday" ${TOKEN_OK}`)).quote?.verdict, 'matches');
    assert.equal(
      (await one(`"yesterday ... The lease" ${TOKEN_OK}`)).quote?.verdict,
      'altered',
      'fragments out of order',
    );
  });

  it('altered: a changed word is flagged, with the passage it resembles', async () => {
    const r = await one(`> The lease agreement is ready, I signed it last week.\n> — Harper, [source](${URI_OK})`);
    assert.equal(r.quote?.kind, 'blockquote');
    assert.equal(r.quote?.verdict, 'altered');
    assert.equal(r.quote?.closest, 'The lease agreement is ready, I signed it');
    assert.equal(
      compareQuote('the Lease agreement', 'the lease agreement').verdict,
      'altered',
      'case-sensitive after the first letter',
    );
  });

  it('fabricated: words the message never said', async () => {
    const r = await one(`She promised "we will pay double rent in March" ${TOKEN_OK}`);
    assert.equal(r.quote?.verdict, 'fabricated');
    assert.equal(r.quote?.closest, undefined);
  });

  it('the quote range points at the quoted text in the document', async () => {
    const text = `x “the lease agreement” ${TOKEN_OK}`;
    const r = await one(text);
    assert.equal(text.slice(r.quote!.start, r.quote!.start + r.quote!.length), 'the lease agreement');
  });

  it('several citations per line: each takes the quote just before it', async () => {
    const text = `"deposit sent" msgbrowse:c/7/at/300?h=${h(C)}, then "I signed it yesterday" ${TOKEN_OK}, "nope" msgbrowse:c/7/at/300?h=${h(C)}`;
    const r = await check(text);
    assert.deepEqual(
      r.map((x) => [x.status, x.quote?.text, x.quote?.verdict]),
      [
        ['ok', 'deposit sent', 'matches'],
        ['ok', 'I signed it yesterday', 'matches'],
        ['ok', 'nope', 'fabricated'],
      ],
    );
  });

  it('which quote belongs to a link: trailing, the line above, blockquotes, nothing', () => {
    const spans = (text: string) => findQuotes(text, findCitations(text)).map((q) => q?.text);
    assert.deepEqual(spans(`${TOKEN_OK}: "after it"`), ['after it']);
    assert.deepEqual(spans(`Harper said "wrapped onto\nthe next line" ${TOKEN_OK}`), ['wrapped onto\nthe next line']);
    assert.deepEqual(spans(`> *the first line\n> > and the second*\n${TOKEN_OK}`), ['the first line and the second']);
    assert.deepEqual(spans(`> "the whole quote"\n${TOKEN_OK}`), ['the whole quote']);
    assert.deepEqual(spans(`> quote\n\n${TOKEN_OK}`), [undefined], 'a blank line ends the claim');
    assert.deepEqual(spans(`"it's" — no, just ${TOKEN_OK} and ''`), ["it's"]);
    assert.deepEqual(spans(`plain ${TOKEN_OK} text`), [undefined]);
    assert.deepEqual(spans(`"…" ${TOKEN_OK}`), [undefined], 'no letter, no quote');
    assert.deepEqual(
      spans(`> a\n${TOKEN_OK} ${TOKEN_OK}`),
      ['a', undefined],
      'the block belongs to the first link below it',
    );
  });
});

describe('citation check: helpers', () => {
  it('rewriteCitation keeps the form and adds or replaces the hash', () => {
    const to = { conversationId: 1, messageId: 2, hash: A };
    assert.equal(rewriteCitation('msgbrowse:c/6/at/193', to), `msgbrowse:c/1/at/2?h=${h(A)}`);
    assert.equal(
      rewriteCitation('VSCODE://MSGBROWSE.MSGBROWSE-VSCODE/c/6/at/193?h%3Dbbbb', to),
      `VSCODE://MSGBROWSE.MSGBROWSE-VSCODE/c/1/at/2?h%3D${h(A)}`,
    );
  });

  it('markdownCodeRanges finds fences and inline code', () => {
    const text = 'a `x` b\n```\ncode\n```\nc';
    assert.deepEqual(
      markdownCodeRanges(text).map(([s, e]) => text.slice(s, e)),
      ['`x`', '```\ncode\n```'],
    );
  });

  it('summarizeChecks counts outcomes and quote verdicts', async () => {
    const r = await check(
      `"ok" msgbrowse:c/6/at/193?h=${h(B)} "nope" msgbrowse:c/6/at/193?h=${h(A)} msgbrowse:c/6/at/1?h=dead msgbrowse:c/6/at/194`,
    );
    assert.deepEqual(summarizeChecks(r), {
      citations: 4,
      ok: 1,
      moved: 1,
      gone: 1,
      unverified: 1,
      quotes: { checked: 2, matches: 1, altered: 0, fabricated: 1 },
    });
  });
});
