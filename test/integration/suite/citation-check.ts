/**
 * Integration suite: the citation check in the Problems panel. A Markdown document with one sound citation, one
 * altered quote, one gone citation and one moved citation gets exactly those diagnostics on open; the command
 * reports the same counts; the moved link's quick fix rewrites it and its diagnostic goes away, and a quick fix asked
 * for before the debounced check ran waits for it.
 * Runs while the curated archive is served (right after editor-links). Registered in order by tests.ts.
 */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import * as vscode from 'vscode';
import type { CheckCitationsSummary } from '../../../src/extension/commands';
import { type IntegrationManifest as Manifest, waitFor } from './env';

const short = (hash: string): string => hash.slice(0, 16);

export function defineCitationCheck(m: Manifest): void {
  describe('citation check: diagnostics, command and quick fix', () => {
    const lease = m.curated.lease;
    const script = m.curated.script;
    const at = (id: number, hash: string) => `msgbrowse:c/${lease.conversationId}/at/${id}?h=${hash}`;
    const ok = at(lease.id, short(lease.hash));
    const gone = at(lease.id, '0123456789abcdef');
    // The id holds the lease message, the hash names the script message: what a re-import that moved it looks like.
    const moved = at(lease.id, short(script.hash));
    const fixed = `msgbrowse:c/${script.conversationId}/at/${script.id}?h=${short(script.hash)}`;
    const text = [
      '# Citation check',
      '',
      `Harper wrote "${lease.body}" (${ok}).`,
      '',
      '> the lease agreement is signed',
      `> — Harper, [source](${ok})`,
      '',
      `Gone: ${gone}`,
      '',
      `Moved: ${moved}`,
      '',
    ].join('\n');
    let uri: vscode.Uri;

    const ours = () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'msgbrowse');
    const shape = (ds: vscode.Diagnostic[]) =>
      ds
        .map((d) => `${d.range.start.line}:${String(d.code)}:${vscode.DiagnosticSeverity[d.severity]}`)
        .sort()
        .join(' ');

    before(() => {
      uri = vscode.Uri.file(`${m.workspace}/citations.md`);
      fs.writeFileSync(uri.fsPath, text);
    });

    it('a Markdown document with msgbrowse links shows its problems on open', async () => {
      await vscode.workspace.openTextDocument(uri);
      const want = '4:quote-altered:Warning 7:citation-gone:Error 9:citation-moved:Warning';
      const got = await waitFor(
        `diagnostics ${want}`,
        () => (shape(ours()) === want ? ours() : undefined),
        30_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; got ${shape(ours()) || 'none'}`);
      });
      const altered = got.find((d) => d.code === 'quote-altered')!;
      assert.match(altered.message, /closest passage: "the lease agreement is"/);
      assert.equal(
        altered.relatedInformation?.[0]?.location.range.start.line,
        5,
        'points at the citation it was checked against',
      );
      assert.match(got.find((d) => d.code === 'citation-gone')!.message, /no longer in the archive/);
    });

    it('"msgbrowse: Check Citations" reports the same per citation', async () => {
      const s = await vscode.commands.executeCommand<CheckCitationsSummary>('msgbrowse.checkCitations', uri, {
        quiet: true,
      });
      assert.ok(s, 'the command resolves with a summary');
      assert.deepEqual(
        { citations: s.citations, ok: s.ok, moved: s.moved, gone: s.gone, unverified: s.unverified, quotes: s.quotes },
        {
          citations: 4,
          ok: 2,
          moved: 1,
          gone: 1,
          unverified: 0,
          quotes: { checked: 2, matches: 1, altered: 1, fabricated: 0 },
        },
      );
      assert.deepEqual(
        s.results.map((r) => [r.line, r.status, r.quote?.verdict ?? '-']),
        [
          [2, 'ok', 'matches'],
          [5, 'ok', 'altered'],
          [7, 'gone', '-'],
          [9, 'moved', '-'],
        ],
      );
      assert.equal(s.results[3].fix, fixed);
    });

    it("the moved link's quick fix rewrites it to the message's current id, and its problem goes away", async () => {
      const doc = await vscode.workspace.openTextDocument(uri);
      const line = doc.lineAt(9);
      const col = line.text.indexOf('msgbrowse:');
      const range = new vscode.Range(9, col, 9, col + moved.length);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        uri,
        range,
      );
      const fix = actions.find((a) => a.title.startsWith('Update the link'));
      assert.ok(fix?.edit, `a quick fix among ${actions.map((a) => a.title).join(' | ') || 'none'}`);
      assert.equal(fix.kind?.value, vscode.CodeActionKind.QuickFix.value);
      assert.ok(await vscode.workspace.applyEdit(fix.edit));
      assert.equal(doc.lineAt(9).text, `Moved: ${fixed}`);
      await waitFor('the moved diagnostic to clear', () =>
        shape(ours()) === '4:quote-altered:Warning 7:citation-gone:Error' ? true : undefined,
      );
      await doc.save();
    });

    it('a quick fix asked for right after an edit, before the debounced check ran, waits for that check', async () => {
      const doc = await vscode.workspace.openTextDocument(uri);
      const insert = new vscode.WorkspaceEdit();
      insert.insert(uri, new vscode.Position(doc.lineCount, 0), `Again: ${moved}\n`);
      assert.ok(await vscode.workspace.applyEdit(insert));
      const lineNo = doc.lineCount - 2;
      const line = doc.lineAt(lineNo);
      assert.equal(line.text, `Again: ${moved}`);
      // No diagnostic for the new line yet: the check runs 400 ms after the change.
      assert.ok(!ours().some((d) => d.range.start.line === lineNo), 'asked before the new line was checked');
      const col = line.text.indexOf('msgbrowse:');
      const range = new vscode.Range(lineNo, col, lineNo, col + moved.length);
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        uri,
        range,
      );
      const fix = actions.find((a) => a.title.startsWith('Update the link'));
      assert.ok(fix?.edit, `a quick fix among ${actions.map((a) => a.title).join(' | ') || 'none'}`);
      // The check the request waited for is the one published: the new line's problem is in the Problems panel now.
      assert.ok(
        ours().some((d) => d.range.start.line === lineNo && d.code === 'citation-moved'),
        `the new line's problem is published; got ${shape(ours()) || 'none'}`,
      );
      assert.ok(await vscode.workspace.applyEdit(fix.edit));
      assert.equal(doc.lineAt(lineNo).text, `Again: ${fixed}`);
      await waitFor('the new moved diagnostic to clear', () =>
        shape(ours()) === '4:quote-altered:Warning 7:citation-gone:Error' ? true : undefined,
      );
      await doc.save();
    });
  });
}
