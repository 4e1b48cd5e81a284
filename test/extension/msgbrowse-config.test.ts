/** msgbrowse's config.yaml: where it is looked for, and `journal.exclude_conversations` read from its YAML subset. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  findJournalExcludes,
  msgbrowseConfigCandidates,
  parseJournalExcludes,
} from '../../src/extension/msgbrowse-config';

describe('msgbrowseConfigCandidates', () => {
  it('follows msgbrowse: ./config.yaml (each workspace folder), ~/.config, os.UserConfigDir, /etc', () => {
    const home = '/home/ada';
    assert.deepEqual(msgbrowseConfigCandidates({ env: {}, platform: 'linux', home, workspaceFolders: ['/w'] }), [
      path.join('/w', 'config.yaml'),
      path.join(home, '.config', 'msgbrowse', 'config.yaml'),
      '/etc/msgbrowse/config.yaml',
    ]);
    assert.deepEqual(msgbrowseConfigCandidates({ env: {}, platform: 'darwin', home, workspaceFolders: [] }), [
      path.join(home, '.config', 'msgbrowse', 'config.yaml'),
      path.join(home, 'Library', 'Application Support', 'msgbrowse', 'config.yaml'),
      '/etc/msgbrowse/config.yaml',
    ]);
    assert.deepEqual(
      msgbrowseConfigCandidates({ env: { XDG_CONFIG_HOME: '/x' }, platform: 'linux', home, workspaceFolders: [] })[1],
      path.join('/x', 'msgbrowse', 'config.yaml'),
    );
  });
});

describe('parseJournalExcludes', () => {
  it('reads a block sequence with plain, quoted and commented items', () => {
    const yaml = [
      'data_dir: ./data',
      'journal:',
      '  # who never goes in the journal',
      '  model: local',
      '  exclude_conversations:',
      '    - Family',
      '    - "Work: Team"   # quoted, with a colon',
      "    - 'It''s private'",
      '    - Dr. Who # plain, comment dropped',
      '',
      '  other: 1',
      'llm:',
      '  exclude_conversations: [Not This]',
    ].join('\n');
    assert.deepEqual(parseJournalExcludes(yaml), ['Family', 'Work: Team', "It's private", 'Dr. Who']);
  });

  it('reads a flow sequence and a sequence at the key’s own indent; CRLF and BOM tolerated', () => {
    assert.deepEqual(parseJournalExcludes('\uFEFFjournal:\r\n  exclude_conversations: [Family, "A, B", \'C\']\r\n'), [
      'Family',
      'A, B',
      'C',
    ]);
    assert.deepEqual(parseJournalExcludes('journal:\n  exclude_conversations:\n  - One\n  - Two\n  other: x\n'), [
      'One',
      'Two',
    ]);
  });

  it('nothing when absent, elsewhere, empty, or not understood (never a guess)', () => {
    assert.deepEqual(parseJournalExcludes('exclude_conversations: [A]\n'), []);
    assert.deepEqual(parseJournalExcludes('journal:\n  model: x\nother:\n  exclude_conversations: [A]\n'), []);
    assert.deepEqual(parseJournalExcludes('journal:\n  exclude_conversations: []\n'), []);
    assert.deepEqual(parseJournalExcludes('journal:\n  exclude_conversations: Family\n'), []);
    assert.deepEqual(parseJournalExcludes('journal:\n  exclude_conversations: ["unterminated]\n'), []);
    assert.deepEqual(parseJournalExcludes(''), []);
  });
});

describe('findJournalExcludes', () => {
  it('the first existing file wins (as msgbrowse), names deduplicated', () => {
    const files: Record<string, string> = {
      '/b/config.yaml': 'journal:\n  exclude_conversations: [X, X, Y]\n',
      '/c/config.yaml': 'journal:\n  exclude_conversations: [Z]\n',
    };
    assert.deepEqual(
      findJournalExcludes(['/a/config.yaml', '/b/config.yaml', '/c/config.yaml'], (f) => files[f]),
      { file: '/b/config.yaml', names: ['X', 'Y'] },
    );
    assert.equal(
      findJournalExcludes(['/none'], () => undefined),
      undefined,
    );
  });
});
