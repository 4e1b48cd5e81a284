/**
 * Exclusion entries are matched as conversation names are matched everywhere else (issue #40.3): case, accents,
 * emoji and extra spaces do not decide whether a conversation is hidden from the model; an entry that still matches
 * nothing is reported with the closest names, never silently kept.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createRuntime, matchExclusions, unmatchedExclusionLines, type Runtime } from '../../src/core/index';
import { archivePathIn, buildArchive } from '../fixtures/index';
import { tempDir } from '../mcp/harness';

const NAMES = ['Secret Bank 💰', 'Lisbon Trip 🏖️', 'Café Crème', 'Garden Club', '🎉'];
let dir: string;
let rt: Runtime;

before(() => {
  dir = tempDir('exclusion-match');
  buildArchive({
    file: archivePathIn(dir),
    conversations: NAMES.map((name, i) => ({
      source: i === 1 ? 'whatsapp' : 'signal',
      name,
      messages: [{ ts: `2024-01-0${i + 1} 10:00:00`, sender: 'Me', body: `hello ${i} picnic` }],
    })),
  });
});
after(async () => {
  await rt?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('exclusions match names as a person types them', () => {
  it('lower case, emoji left out, a trailing space, accents left out, source:name: each hides its conversation from the model', async () => {
    const entries = [
      'secret bank',
      'whatsapp:Lisbon Trip',
      'Secret Bank ',
      'cafe creme',
      'signal:Lisbon Trip',
      'Lisbn Trp',
    ];
    rt = createRuntime({
      archivePath: archivePathIn(dir),
      embed: { baseUrl: 'http://127.0.0.1:9/v1', model: '' },
      citation: { scheme: 'vscode', authority: 'x.y' },
      version: '0',
      privacy: { excludeConversations: entries },
    });
    const seen = (await (await rt.context.archive()).listConversations()).map((c) => c.name);
    assert.deepEqual(seen.sort(), ['Garden Club', '🎉'], 'the model sees only what no entry names');
    assert.equal(
      (await (await rt.personal.archive()).listConversations()).length,
      NAMES.length,
      'the person sees everything',
    );
    const matches = await rt.exclusions();
    assert.deepEqual(
      matches.map((m) => [m.entry, m.matched.map((c) => `${c.source}:${c.name}`)]),
      [
        ['secret bank', ['signal:Secret Bank 💰']],
        ['whatsapp:Lisbon Trip', ['whatsapp:Lisbon Trip 🏖️']],
        ['Secret Bank', ['signal:Secret Bank 💰']],
        ['cafe creme', ['signal:Café Crème']],
        ['signal:Lisbon Trip', []],
        ['Lisbn Trp', []],
      ],
    );
    assert.deepEqual(unmatchedExclusionLines(matches), [
      '"signal:Lisbon Trip" matches no conversation, so it hides nothing — closest: "Lisbon Trip 🏖️"',
      '"Lisbn Trp" matches no conversation, so it hides nothing — closest: "Lisbon Trip 🏖️"',
    ]);
  });

  it('an entry of emoji only matches that exact name, not every name without letters', () => {
    const all = NAMES.map((name, id) => ({ id, name, source: 'signal' })) as unknown as Parameters<
      typeof matchExclusions
    >[0];
    assert.deepEqual(
      matchExclusions(all, ['🎉'])[0].matched.map((c) => c.name),
      ['🎉'],
    );
    assert.deepEqual(matchExclusions(all, ['🥳'])[0].matched, []);
  });
});
