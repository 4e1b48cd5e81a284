/**
 * Unit tests of the extension's vscode-free modules (citations, archive discovery, attachment path safety,
 * webview message validation, endpoint choice, MCP config snippet, the test-hook gate).
 *   node --import tsx --test test/extension/pure.test.ts
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { citationToken, citationUri, findCitations, parseCitationPath, refOf } from '../../src/extension/citation-ref';
import { candidates, discoverArchive, userConfigDir, type DiscoveryEnv } from '../../src/extension/discovery';
import { cliLaunch } from '../../src/extension/mcp-config';
import { TEST_HOOKS_ENV, testHooksWanted } from '../../src/extension/test-api';
import { resolveAttachment } from '../../src/extension/viewer/attachments';
import { parseFromWebview, parseState } from '../../src/extension/viewer/webview-protocol';

describe('citations', () => {
  it('parses the citation path and rejects anything else', () => {
    assert.deepEqual(parseCitationPath('/c/12/at/345'), { conversationId: 12, messageId: 345 });
    assert.deepEqual(parseCitationPath('c/1/at/2/'), { conversationId: 1, messageId: 2 });
    for (const bad of ['/c/12', '/c/x/at/1', '/c/1/at/-2', '/c/1/at/2/extra', '/c/1/at/99999999999999999', '']) {
      assert.equal(parseCitationPath(bad), undefined, bad);
    }
  });

  it('formats URIs and tokens that round-trip through findCitations', () => {
    const ref = { conversationId: 7, messageId: 42 };
    const text = `see ${citationUri('code-oss', ref)} and ${citationToken(ref)}; not vscode://other.ext/c/1/at/2`;
    const found = findCitations(text);
    assert.equal(found.length, 2);
    for (const f of found) {
      assert.equal(f.conversationId, 7);
      assert.equal(f.messageId, 42);
      assert.equal(text.slice(f.start, f.start + f.length), f.text);
    }
    assert.equal(found[0].text, 'code-oss://msgbrowse.msgbrowse-vscode/c/7/at/42');
    assert.equal(
      findCitations('VSCODE://MSGBROWSE.MSGBROWSE-VSCODE/c/1/at/2').length,
      1,
      'authority is case-insensitive',
    );
  });

  it('carries the hash anchor (?h=) through parsing, formatting and scanning; a malformed one is ignored', () => {
    assert.deepEqual(parseCitationPath('/c/6/at/193', 'h=97d25097abcdef01'), {
      conversationId: 6,
      messageId: 193,
      hash: '97d25097abcdef01',
    });
    assert.deepEqual(parseCitationPath('/c/6/at/193', '?h=97D25097'), {
      conversationId: 6,
      messageId: 193,
      hash: '97d25097',
    });
    assert.deepEqual(parseCitationPath('/c/6/at/193', 'h=xyz'), { conversationId: 6, messageId: 193 });
    const ref = { conversationId: 6, messageId: 193, hash: '97d25097abcdef01' };
    assert.equal(citationUri('vscode', ref), 'vscode://msgbrowse.msgbrowse-vscode/c/6/at/193?h=97d25097abcdef01');
    const text = `[a](${citationUri('vscode', ref)}) ${citationToken(ref)} vscode://msgbrowse.msgbrowse-vscode/c/6/at/193?h%3D97d25097abcdef01 and an old one vscode://msgbrowse.msgbrowse-vscode/c/6/at/193.`;
    const found = findCitations(text);
    assert.deepEqual(
      found.map((f) => f.hash),
      ['97d25097abcdef01', '97d25097abcdef01', '97d25097abcdef01', undefined],
    );
    for (const f of found) assert.equal(text.slice(f.start, f.start + f.length), f.text);
    assert.equal(found[0].text, 'vscode://msgbrowse.msgbrowse-vscode/c/6/at/193?h=97d25097abcdef01');
  });
});

describe('archive discovery', () => {
  const base = (over: Partial<DiscoveryEnv>): DiscoveryEnv => ({
    env: {},
    platform: 'linux',
    home: '/home/u',
    workspaceFolders: [],
    exists: () => false,
    ...over,
  });

  it('searches MSGBROWSE_DATA_DIR, workspace ./data, ~/.config/msgbrowse, then the desktop app dir', () => {
    const list = candidates(
      base({ env: { MSGBROWSE_DATA_DIR: '/d', XDG_CONFIG_HOME: '/x' }, workspaceFolders: ['/ws'] }),
    );
    assert.deepEqual(
      list.map((c) => c.file),
      [
        '/d/msgbrowse.sqlite',
        '/ws/data/msgbrowse.sqlite',
        '/home/u/.config/msgbrowse/msgbrowse.sqlite',
        '/x/msgbrowse/msgbrowse.sqlite',
      ],
    );
  });

  it('uses Go os.UserConfigDir per platform and dedupes', () => {
    assert.equal(
      userConfigDir({ env: {}, platform: 'darwin', home: '/Users/u' }),
      '/Users/u/Library/Application Support',
    );
    assert.equal(userConfigDir({ env: { APPDATA: 'C:\\AppData' }, platform: 'win32', home: 'C:\\u' }), 'C:\\AppData');
    assert.equal(userConfigDir({ env: { XDG_CONFIG_HOME: 'relative' }, platform: 'linux', home: '/h' }), '/h/.config');
    const linux = candidates(base({}));
    assert.equal(linux.length, 1, '~/.config/msgbrowse and the XDG default are the same place');
  });

  it('returns the first existing candidate', () => {
    const r = discoverArchive(
      base({ workspaceFolders: ['/ws'], exists: (f) => f.startsWith('/home/u/') || f.startsWith('/ws/') }),
    );
    assert.equal(r.found?.file, '/ws/data/msgbrowse.sqlite');
    assert.equal(discoverArchive(base({})).found, undefined);
  });
});

describe('attachment paths', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-att-'));
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-out-'));
  after(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });
  fs.mkdirSync(path.join(root, 'export', 'Harper', 'media'), { recursive: true });
  fs.writeFileSync(path.join(root, 'export', 'Harper', 'media', 'cabin.jpg'), 'x');
  fs.mkdirSync(path.join(root, 'attachments'), { recursive: true });
  fs.writeFileSync(path.join(root, 'attachments', 'a.png'), 'x');
  fs.writeFileSync(path.join(outside, 'secret.png'), 'x');
  fs.symlinkSync(path.join(outside, 'secret.png'), path.join(root, 'attachments', 'link.png'));

  it('resolves Signal paths under export/<conversation> and others under the root', () => {
    assert.equal(
      resolveAttachment(root, 'signal', 'Harper', 'media/cabin.jpg'),
      fs.realpathSync(path.join(root, 'export/Harper/media/cabin.jpg')),
    );
    assert.equal(
      resolveAttachment(root, 'imessage', 'x', './attachments/a.png'),
      fs.realpathSync(path.join(root, 'attachments/a.png')),
    );
  });

  it('refuses paths that escape the root, absolute paths, symlinks out and missing files', () => {
    assert.equal(resolveAttachment(root, 'imessage', 'x', `../${path.basename(outside)}/secret.png`), undefined);
    assert.equal(resolveAttachment(root, 'signal', 'Harper', '../../../../etc/passwd'), undefined);
    assert.equal(resolveAttachment(root, 'signal', '..', 'media/cabin.jpg'), undefined);
    assert.equal(resolveAttachment(root, 'whatsapp', 'x', path.join(outside, 'secret.png')), undefined);
    assert.equal(resolveAttachment(root, 'whatsapp', 'x', 'attachments/link.png'), undefined);
    assert.equal(resolveAttachment(root, 'whatsapp', 'x', 'attachments/missing.png'), undefined);
    assert.equal(resolveAttachment(root, 'whatsapp', 'x', ''), undefined);
    assert.equal(resolveAttachment(root, 'whatsapp', 'x', 'a\0b'), undefined);
  });
});

describe('webview messages', () => {
  /** What the host acts on: a field the webview got wrong is undefined, as if it were absent. */
  const plain = (v: unknown) => JSON.parse(JSON.stringify(v ?? null));

  it('accepts well-formed messages and drops everything else', () => {
    assert.deepEqual(parseFromWebview({ type: 'loadMore', direction: 'before', edgeId: 3 }), {
      type: 'loadMore',
      direction: 'before',
      edgeId: 3,
    });
    assert.deepEqual(parseFromWebview({ type: 'openLink', url: 'https://example.com/x' }), {
      type: 'openLink',
      url: 'https://example.com/x',
    });
    for (const bad of [
      null,
      'ready',
      { type: 'loadMore', direction: 'sideways', edgeId: 1 },
      { type: 'loadMore', direction: 'after', edgeId: -1 },
      { type: 'openLink', url: 'javascript:alert(1)' },
      { type: 'openLink', url: 'command:workbench.action.quit' },
      { type: 'copyCitation', messageId: 1.5 },
      { type: 'find', query: 'x'.repeat(2000) },
      { type: 'nope' },
    ]) {
      assert.equal(parseFromWebview(bad), undefined, JSON.stringify(bad)?.slice(0, 80));
    }
    assert.deepEqual(plain(parseState({ conversationId: 2, anchorId: 'x', highlightId: 5 })), {
      conversationId: 2,
      highlightId: 5,
    });
    assert.equal(parseState({ anchorId: 1 }), undefined);
    // A restored state the webview got wrong opens nothing; a bad one in `ready` is only left out.
    assert.equal(parseFromWebview({ type: 'state', state: { conversationId: -1 } }), undefined);
    assert.deepEqual(plain(parseFromWebview({ type: 'ready', state: { conversationId: 'x' } })), { type: 'ready' });
    const long = parseFromWebview({
      type: 'shown',
      focusId: 1,
      highlighted: false,
      rendered: 1,
      activeElements: 0,
      images: 0,
      notice: 'n'.repeat(5000),
    });
    assert.equal(long?.type === 'shown' && long.notice?.length, 2000);
  });

  it("the viewer's citations and reports carry the message hash (validated as hex)", () => {
    const h = 'ab'.repeat(32);
    assert.deepEqual(parseFromWebview({ type: 'copyCitation', messageId: 7, hash: h }), {
      type: 'copyCitation',
      messageId: 7,
      hash: h,
    });
    assert.deepEqual(
      plain(parseFromWebview({ type: 'copyCitation', messageId: 7, hash: '<b>' })),
      { type: 'copyCitation', messageId: 7 },
      'a bad hash is dropped',
    );
    assert.deepEqual(
      plain(parseFromWebview({ type: 'copyCitation', messageId: 7 })),
      { type: 'copyCitation', messageId: 7 },
      'older webviews still copy',
    );
    const shown = parseFromWebview({
      type: 'shown',
      focusId: 3,
      highlighted: true,
      rendered: 9,
      activeElements: 0,
      images: 0,
      focusHash: h,
      notice: 'moved',
    });
    assert.equal(shown?.type === 'shown' && shown.focusHash, h);
    assert.equal(shown?.type === 'shown' && shown.notice, 'moved');
    assert.deepEqual(parseState({ conversationId: 2, highlightId: 5, highlightHash: h }), {
      conversationId: 2,
      highlightId: 5,
      highlightHash: h,
    });
    assert.equal(parseState({ conversationId: 2, highlightHash: 'zz' })?.highlightHash, undefined);
  });
});

describe('citation of a result item', () => {
  it('refOf anchors the ref with the 16-hex prefix of the item hash; items without one stay unanchored', () => {
    const hash = 'ABCDEF0123456789'.toLowerCase() + '1'.repeat(48);
    assert.deepEqual(refOf({ conversation_id: 6, message_id: 193, hash }), {
      conversationId: 6,
      messageId: 193,
      hash: 'abcdef0123456789',
    });
    assert.deepEqual(refOf({ conversation_id: 6, message_id: 193 }), { conversationId: 6, messageId: 193 });
    assert.equal(
      citationUri('vscode', refOf({ conversation_id: 6, message_id: 193, hash })),
      'vscode://msgbrowse.msgbrowse-vscode/c/6/at/193?h=abcdef0123456789',
    );
  });
});

describe('MCP config for other clients', () => {
  const settings = { embedBaseUrl: 'http://h/v1', embedModel: 'm', excludeConversations: [], redact: true };
  it('starts the bundled CLI with the archive and embedding settings', () => {
    assert.deepEqual(cliLaunch('/ext', '/data/msgbrowse.sqlite', settings), {
      transport: 'stdio',
      command: 'node',
      args: [path.join('/ext', 'dist', 'cli.js'), '--archive', '/data/msgbrowse.sqlite'],
      env: { MSGBROWSE_LLM_BASE_URL: 'http://h/v1', MSGBROWSE_LLM_EMBED_MODEL: 'm' },
    });
  });
  it('carries the privacy settings: excluded conversations one per line, redaction off as --no-redact', () => {
    const launch = cliLaunch('/ext', undefined, {
      ...settings,
      excludeConversations: ['Mum', 'signal:Work, Inc.'],
      redact: false,
    });
    assert.ok(launch.transport === 'stdio');
    assert.deepEqual(launch.args, [path.join('/ext', 'dist', 'cli.js'), '--no-redact']);
    assert.equal(launch.env?.MSGBROWSE_EXCLUDE_CONVERSATIONS, 'Mum\nsignal:Work, Inc.');
  });
});

describe('test hooks gate', () => {
  it('attaches the hooks only in ExtensionMode.Test and when the runner asks for them', () => {
    assert.equal(testHooksWanted(true, { [TEST_HOOKS_ENV]: '1' }), true);
    assert.equal(testHooksWanted(false, { [TEST_HOOKS_ENV]: '1' }), false, 'an installed extension never exposes them');
    assert.equal(testHooksWanted(true, {}), false, 'another test run of a development build does not get them');
    for (const v of ['0', 'true', '', ' 1']) assert.equal(testHooksWanted(true, { [TEST_HOOKS_ENV]: v }), false, v);
  });
});
