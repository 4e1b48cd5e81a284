/**
 * Integration suite: VS Code's own chat Agent mode (the Local harness of the bundled Copilot Chat agent) answering
 * with our MCP tools, offline. The model is scripted: the test extension test/integration/agent-extension (staged by
 * runTest.ts, never packaged) registers it and records every request it receives; each test sets the turns, sends a
 * prompt with `workbench.action.chat.open` ({query, mode: 'agent', modelSelector, blockOnResponse}) and asserts on
 * what the model received. DOM checks (the answer's rendered link, clicking it) go through the host wrapper's
 * Playwright page: a `[msgbrowse-dom] {…}` log line, answered in a reply file (scripts/test-host/). Runs first
 * (tests.ts), so it also sees VS Code start our server on demand.
 */
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { SERVER_INSTRUCTIONS } from '../../../src/mcp/instructions';
import { RESULT_GUIDANCE } from '../../../src/mcp/tool';
import { type IntegrationManifest as Manifest, api, loadManifest, waitFor } from './env';
import { citation } from './tools-helpers';

const AGENT_EXTENSION_ID = 'msgbrowse-test.agent-model';

interface Part {
  type: 'text' | 'data' | 'json' | 'toolCall' | 'toolResult' | 'unknown';
  value?: string;
  callId?: string;
  name?: string;
  input?: unknown;
  content?: Part[];
}
interface Message {
  role: string;
  content: Part[];
}
interface ModelRequest {
  messages: Message[];
  tools: { name: string; description: string; inputSchema?: unknown }[];
}
type Turn = { tool: string; input: object } | { text: string };
interface AgentModel {
  vendor: string;
  requests(): ModelRequest[];
  setScript(fn: (req: ModelRequest) => Turn[]): void;
  reset(): void;
}

async function agentModel(): Promise<AgentModel> {
  const ext = vscode.extensions.getExtension<AgentModel>(AGENT_EXTENSION_ID);
  if (!ext) throw new Error(`the test extension ${AGENT_EXTENSION_ID} is not loaded (runTest.ts stages it)`);
  return ext.activate();
}

const say = (line: string) => console.log(`[msgbrowse-it] ${line}`);

/** The text of a part as the model reads it. */
function partText(p: Part): string {
  if (p.type === 'toolResult') return (p.content ?? []).map(partText).join('');
  return p.value ?? '';
}

function lastToolResult(req: ModelRequest): Part | undefined {
  const last = req.messages[req.messages.length - 1];
  return last?.content.find((p) => p.type === 'toolResult');
}

/** A one-tool agent turn: call `tool` when the last message holds no tool result, else answer with `answer(result)`. */
function oneTool(tool: string, input: object, answer: (result: Part) => string): (req: ModelRequest) => Turn[] {
  return (req) => {
    if (!req.tools.some((t) => t.name.startsWith('mcp_msgbrowse_'))) return [{ text: 'title' }]; // a side request (e.g. a title)
    const result = lastToolResult(req);
    if (result) return [{ text: answer(result) }];
    const name = req.tools.find((t) => t.name === `mcp_msgbrowse_${tool}` || t.name.endsWith(`_${tool}`))?.name;
    return name ? [{ tool: name, input }] : [{ text: `tool ${tool} was not offered` }];
  };
}

interface Exchange {
  /** The agent requests (those offering our tools), oldest first. */
  requests: ModelRequest[];
  /** What the model received as the result of our tool call. */
  result: Part;
}

async function ask(
  model: AgentModel,
  query: string,
  script: (req: ModelRequest) => Turn[],
  opts: { newChat?: boolean } = {},
): Promise<Exchange> {
  model.reset();
  model.setScript(script);
  if (opts.newChat !== false)
    await vscode.commands.executeCommand('workbench.action.chat.newChat').then(undefined, () => undefined);
  const answer = await vscode.commands.executeCommand('workbench.action.chat.open', {
    query,
    mode: 'agent',
    modelSelector: { vendor: model.vendor },
    blockOnResponse: true,
  });
  const all = model.requests();
  const requests = all.filter((r) => r.tools.some((t) => t.name.startsWith('mcp_msgbrowse_')));
  if (requests.length < 2)
    say(
      `agent-debug ${JSON.stringify({ answer, requests: all.map((r) => ({ tools: r.tools.map((t) => t.name), messages: r.messages.length })) }).slice(0, 3000)}`,
    );
  assert.ok(
    requests.length >= 2,
    `the model was asked ${requests.length} time(s) with our tools (${all.length} in all): no tool result reached it (a confirmation prompt?)`,
  );
  // Everything the model received, kept beside the results file for reading (KEEP_FIXTURES=1).
  fs.appendFileSync(
    path.join(path.dirname(loadManifest().resultsFile), 'agent-requests.jsonl'),
    `${JSON.stringify({ query, requests: all })}\n`,
  );
  const result = lastToolResult(requests[requests.length - 1]);
  assert.ok(result, 'the last request holds the tool result');
  return { requests, result };
}

/**
 * The structuredContent JSON inside a tool result as the model received it: VS Code sends one text part — the
 * inlined resources (`<resource uri=…>…</resource>`, or bare `<resource uri=… />` references), the JSON, maybe a hint.
 */
function structuredPart(result: Part, key: string): { json: Record<string, unknown>; length: number } {
  for (const line of partText(result).split('\n')) {
    // Compact JSON on one line, possibly right after the last `<resource … />` reference.
    const start = line.indexOf(`{"`);
    if (start < 0) continue;
    try {
      const json = JSON.parse(line.slice(start)) as Record<string, unknown>;
      if (key in json) return { json, length: JSON.stringify(json).length };
    } catch {
      /* not the JSON line */
    }
  }
  throw new Error(`no structuredContent JSON with "${key}" in the tool result: ${partText(result).slice(0, 600)}`);
}

/** How much the model received for a tool result, against its structuredContent JSON; printed as a figure. */
function payloadFigure(label: string, result: Part, key: string): number {
  const received = partText(result).length;
  const structured = structuredPart(result, key).length;
  const ratio = received / structured;
  say(
    `  payload ${label}: the model received ${received} characters for a ${structured}-character structuredContent (${ratio.toFixed(2)}×)`,
  );
  return ratio;
}

let domSeq = 0;
/** A DOM request to the host wrapper's Playwright page (see the file header). */
async function dom<T>(op: string, extra: object = {}): Promise<T> {
  const reply = path.join(os.tmpdir(), `msgbrowse-dom-${process.pid}-${++domSeq}.json`);
  console.log(`[msgbrowse-dom] ${JSON.stringify({ op, reply, ...extra })}`);
  const body = await waitFor(
    `the host wrapper's answer to DOM request ${op}`,
    () => (fs.existsSync(reply) ? fs.readFileSync(reply, 'utf8') : undefined),
    20_000,
    100,
  );
  fs.rmSync(reply, { force: true });
  const r = JSON.parse(body) as { ok: boolean; error?: string } & T;
  if (!r.ok) throw new Error(`DOM request ${op} failed: ${r.error}`);
  return r;
}

export function defineAgent(m: Manifest): void {
  describe("VS Code's chat agent with a scripted model", () => {
    let model: AgentModel;
    let first: Exchange | undefined;
    const lease = m.curated.lease;

    before(async function () {
      this.timeout(120_000);
      await api();
      // The fixture workspace says 'never' (the other suites start the server explicitly); an agent user has the
      // default, under which VS Code starts our server when the agent needs its tools.
      await vscode.workspace
        .getConfiguration('chat.mcp')
        .update('autostart', 'newAndOutdated', vscode.ConfigurationTarget.Workspace);
      model = await agentModel();
      await waitFor(
        'the scripted model in vscode.lm',
        async () => (await vscode.lm.selectChatModels({ vendor: model.vendor })).length > 0 || undefined,
        60_000,
      );
    });

    after(async () => {
      await vscode.workspace
        .getConfiguration('chat.mcp')
        .update('autostart', 'never', vscode.ConfigurationTarget.Workspace);
    });

    it('starts our server on demand: the agent calls search_messages and answers with a citation, no confirmation asked', async function () {
      this.timeout(180_000);
      const a = await api();
      assert.equal(a.testHooks.status().sessions, 0, 'no MCP session before the agent needs the tools');
      first = await ask(
        model,
        'When did we talk about the lease agreement?',
        oneTool('search_messages', { query: 'lease agreement', limit: 3 }, (r) => {
          const hits = structuredPart(r, 'hits').json.hits as { link: string; conversation: string }[];
          return hits.length ? `It came up in [${hits[0].conversation}](${hits[0].link}).` : 'Nothing found.';
        }),
      );
      assert.ok(a.testHooks.status().sessions > 0, 'VS Code started our server for the agent');
      const hits = structuredPart(first.result, 'hits').json.hits as { message_id: number; link: string }[];
      assert.ok(
        hits.some((h) => h.message_id === lease.id && h.link.startsWith(citation(lease.conversationId, lease.id))),
        JSON.stringify(hits).slice(0, 600),
      );
      // readOnlyHint + openWorldHint false: the tool ran without a confirmation (else the second request never came).
      const call = first.requests[first.requests.length - 1].messages
        .flatMap((x) => x.content)
        .find((p) => p.type === 'toolCall');
      assert.equal(call?.name, 'mcp_msgbrowse_search_messages');
    });

    it("the answer's citation renders as a link in the chat, and clicking it opens the viewer at the message", async () => {
      const a = await api();
      const link = citation(lease.conversationId, lease.id);
      const { links } = await waitFor('the rendered citation link', async () => {
        const r = await dom<{ links: { href: string }[] }>('links');
        return r.links.some((l) => l.href.startsWith(link)) ? r : undefined;
      });
      assert.ok(
        links.some((l) => l.href.startsWith(`${link}?h=`)),
        JSON.stringify(links),
      );
      const shown = a.testHooks.waitForViewer(lease.conversationId, lease.id, 30_000);
      await dom('click', { href: link });
      const ack = await shown;
      assert.equal(ack.highlighted, true);
      assert.ok(a.testHooks.receivedUris().some((u) => u.includes(`/c/${lease.conversationId}/at/${lease.id}`)));
    });

    it('a follow-up reads around the hit through get_context', async () => {
      const ex = await ask(
        model,
        'What was said around that message?',
        oneTool(
          'get_context',
          { message_id: lease.id, hash: lease.hash.slice(0, 16), window: 2 },
          () => 'Here is the context.',
        ),
        { newChat: false },
      );
      const got = structuredPart(ex.result, 'messages').json;
      assert.equal(got.message_id, lease.id);
      assert.ok((got.messages as { text: string }[]).some((x) => x.text.includes(lease.body.slice(0, 30))));
      // The follow-up carries the first turn: the earlier search result is in its history.
      assert.ok(
        ex.requests[0].messages.some((x) => x.content.some((p) => p.type === 'toolResult')),
        'the first turn is in the history',
      );
    });

    it('a failing call (unknown conversation) reaches the model as our one actionable line', async () => {
      const ex = await ask(
        model,
        'Read conversation 999999.',
        oneTool('get_conversation', { conversation_id: 999_999 }, () => 'It does not exist.'),
      );
      const text = partText(ex.result);
      assert.match(text, /conversation id 999999 not found — use list_conversations to see the ids/);
      assert.ok(text.length < 400, `the error is one line, not a dump: ${text}`);
    });

    it('the model receives the server instructions and tool descriptions: how to cite, that message text is untrusted', () => {
      assert.ok(first, 'the first exchange ran');
      const req = first.requests[0];
      const prompt = req.messages.map((x) => x.content.map(partText).join('')).join('\n');
      for (const line of SERVER_INSTRUCTIONS.split('\n').filter(Boolean)) {
        assert.ok(prompt.includes(line), `server instruction line missing from what the model receives: ${line}`);
      }
      // Our text block (with its untrusted-data note) never reaches the model: the descriptions must say it.
      for (const tool of [
        'search_messages',
        'semantic_search',
        'get_context',
        'get_conversation',
        'list_media',
        'list_links',
        'get_journal_day',
        'on_this_day',
        'search_contacts',
        'get_contact',
      ]) {
        const offered = req.tools.find((t) => t.name === `mcp_msgbrowse_${tool}`);
        assert.ok(offered, `${tool} offered to the model`);
        assert.ok(
          offered.description.includes(RESULT_GUIDANCE.trim()),
          `${tool}'s description as the model gets it lacks the citation/untrusted guidance: ${offered.description}`,
        );
      }
      assert.match(prompt, /untrusted data written by other people/);
      assert.match(prompt, /Cite each message you rely on as a markdown link/);
    });

    it('payload budget: what the model receives is at most 2× the structuredContent JSON', async () => {
      assert.ok(first, 'the first exchange ran');
      const ratios: [string, number][] = [
        ['search_messages limit 3', payloadFigure('search_messages limit 3', first.result, 'hits')],
      ];
      const twenty = await ask(
        model,
        'Find everything about the lease.',
        oneTool('search_messages', { query: 'lease', limit: 20 }, () => 'Done.'),
      );
      const n = (structuredPart(twenty.result, 'hits').json.hits as unknown[]).length;
      ratios.push([
        `search_messages limit 20 (${n} hits)`,
        payloadFigure(`search_messages limit 20 (${n} hits)`, twenty.result, 'hits'),
      ]);
      const ctx = await ask(
        model,
        'Show the context of the lease message.',
        oneTool('get_context', { message_id: lease.id }, () => 'Done.'),
      );
      ratios.push(['get_context window 5', payloadFigure('get_context window 5', ctx.result, 'messages')]);
      for (const [label, r] of ratios) assert.ok(r <= 2, `${label}: ${r.toFixed(2)}× the structuredContent`);
    });

    describe('on a real-size archive (400 conversations, long messages)', () => {
      const big = m.realSize;
      /** VS Code's pointer in place of a tool result longer than its threshold. */
      const TO_FILE = /Large tool result \([^)]*\) written to file/;

      async function serve(file: string): Promise<void> {
        const a = await api();
        await vscode.commands.executeCommand('msgbrowse.selectArchive', file);
        await waitFor(`${file} served`, () => {
          const s = a.state();
          return (s.kind === 'ready' && s.path === file) || undefined;
        });
      }

      /** Asks for one tool call; returns the items the model received under `key` and the JSON's length. */
      async function received(
        tool: string,
        input: object,
        key: string,
      ): Promise<{ items: { link: string }[]; length: number; json: Record<string, unknown>; text: string }> {
        let cited = '';
        const ex = await ask(
          model,
          `Use ${tool}.`,
          oneTool(tool, input, (r) => {
            const items = structuredPart(r, key).json[key] as { link: string }[];
            cited = items[0]?.link ?? '';
            return cited ? `See [the first one](${cited}).` : 'Nothing.';
          }),
        );
        const text = partText(ex.result);
        assert.doesNotMatch(text, TO_FILE, `${tool} ${JSON.stringify(input)} reached the model as a file pointer`);
        const { json, length } = structuredPart(ex.result, key);
        const items = json[key] as { link: string }[];
        assert.ok(items.length > 0 && cited === items[0].link, `${tool}: the model cites from what it received`);
        assert.match(cited, new RegExp(`^${vscode.env.uriScheme}://msgbrowse\\.msgbrowse-vscode/c/\\d+`));
        say(
          `  ${tool} ${JSON.stringify(input)}: ${items.length} item(s) inline in ${length} characters${json.next_cursor ? ', with next_cursor' : ''}`,
        );
        return { items, length, json, text };
      }

      before(async () => {
        await serve(big.path);
      });
      after(async () => {
        const a = await api();
        await a.testHooks.overrideAnswerBudget(undefined);
        await vscode.workspace
          .getConfiguration('github.copilot.chat.agent')
          .update('largeToolResultsToDisk.thresholdBytes', undefined, vscode.ConfigurationTarget.Global);
        await serve(m.curated.path);
      });

      it('search_messages (limit 3, 20, 50), list_conversations and get_conversation reach the model inline, and it cites from them', async function () {
        this.timeout(300_000);
        const budget = (await api()).testHooks.status().answerBudget;
        assert.equal(budget, 8192, "VS Code's default threshold");
        for (const limit of [3, 20, 50]) {
          const r = await received('search_messages', { query: big.word, limit }, 'hits');
          assert.ok(r.length <= budget);
          if (limit === 50) assert.ok(r.json.next_cursor && r.items.length < 50, 'a limit beyond one answer pages');
        }
        const convs = await received('list_conversations', {}, 'conversations');
        assert.ok(convs.length <= budget && convs.json.total === big.conversations && convs.json.next_cursor);
        const page = await received('get_conversation', { conversation_id: big.largest.id, limit: 500 }, 'messages');
        assert.ok(page.length <= budget && page.json.next_cursor);
      });

      it('the check is real: an answer over the threshold reaches the model as a file pointer', async function () {
        this.timeout(120_000);
        const a = await api();
        await a.testHooks.overrideAnswerBudget(64 * 1024);
        const ex = await ask(
          model,
          'Search widely.',
          oneTool('search_messages', { query: big.word, limit: 50 }, () => 'Done.'),
        );
        assert.match(partText(ex.result), TO_FILE);
        await a.testHooks.overrideAnswerBudget(undefined);
      });

      it("the answers follow VS Code's threshold when it changes (github.copilot.chat.agent.largeToolResultsToDisk.thresholdBytes)", async function () {
        this.timeout(120_000);
        const a = await api();
        await vscode.workspace
          .getConfiguration('github.copilot.chat.agent')
          .update('largeToolResultsToDisk.thresholdBytes', 4096, vscode.ConfigurationTarget.Global);
        // VS Code honours the key: an 8 KiB answer now reaches the model as a file…
        await a.testHooks.overrideAnswerBudget(8192);
        const over = await ask(
          model,
          'Search again.',
          oneTool('search_messages', { query: big.word, limit: 20 }, () => 'Done.'),
        );
        assert.match(partText(over.result), TO_FILE);
        // …and our answers follow it.
        await a.testHooks.overrideAnswerBudget(undefined);
        await waitFor(
          'the answer budget to follow the setting',
          () => a.testHooks.status().answerBudget === 4096 || undefined,
        );
        const r = await received('search_messages', { query: big.word, limit: 20 }, 'hits');
        assert.ok(r.length <= 4096, `${r.length} characters`);
      });
    });
  });
}
