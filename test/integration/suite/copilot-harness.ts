/**
 * Integration suite: the Copilot harness. Takes the definition our provider returns in this real extension host,
 * projects it exactly as VS Code does for the agent host (workbench: stdio → {type:'stdio', command, args, env, cwd};
 * agent host: → {type:'local', command, args, tools:['*'], env without nulls, cwd}), and hands it to the Copilot
 * runtime bundled with the test host, offline, in a Node ≥ 22 child (copilot-harness-check.mjs) — plainly and with
 * HTTP(S)_PROXY at a dead proxy. The child's bridge relays into this host, so the host must stay responsive: the
 * child is awaited asynchronously. Re-check when the host (and its runtime) version changes: both are in the title.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { ProvidedStdioDefinition } from '../../../src/extension/test-api';
import { type IntegrationManifest as Manifest, api, waitFor } from './env';
import { TOOLS, ourTools } from './tools-helpers';

/** VS Code's projection of an extension-provided definition for the agent host, then the agent host's for the runtime. */
function projectForAgentHost(d: ProvidedStdioDefinition): Record<string, unknown> {
  const workbench = { type: 'stdio', command: d.command, args: d.args, env: d.env, cwd: d.cwd };
  const env = Object.fromEntries(
    Object.entries(workbench.env).flatMap(([k, v]) => (v === null ? [] : [[k, String(v)]])),
  );
  return {
    type: 'local',
    command: workbench.command,
    args: [...workbench.args],
    tools: ['*'],
    env,
    ...(workbench.cwd ? { cwd: workbench.cwd } : {}),
  };
}

interface CheckRun {
  label: string;
  proxy?: string;
  servers: { name: string; status: string; error?: string; tools: string[] }[];
}

function runCheck(node: string, script: string, inputFile: string, timeoutMs: number): Promise<{ runs: CheckRun[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [script, inputFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the Copilot harness check did not finish in ${timeoutMs} ms; stderr: ${err.slice(-2000)}`));
    }, timeoutMs);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as { runs: CheckRun[] });
      } catch {
        reject(
          new Error(
            `the Copilot harness check exited ${code} without a result; stdout: ${out.slice(-1000)} stderr: ${err.slice(-2000)}`,
          ),
        );
      }
    });
  });
}

export function defineCopilotHarness(m: Manifest): void {
  const h = m.copilotHarness;
  const versions = h.sdkVersion
    ? `@github/copilot-sdk ${h.sdkVersion}, runtime copilot-cli ${h.runtimeVersion ?? '?'}`
    : 'Copilot SDK missing';
  describe(`the Copilot harness (agent host; ${versions}, VS Code ${vscode.version})`, function () {
    this.timeout(180_000);

    it('the provided definition is complete, stdio, and carries no secret', async () => {
      const a = await api();
      const defs = await a.testHooks.mcpDefinitions();
      assert.ok(defs, 'the MCP provider API is available');
      assert.equal(defs.length, 1, 'one definition, so no duplicate tools');
      const d = defs[0];
      const text = JSON.stringify(d);
      assert.ok(!text.includes('${'), `no \${…} variables (the agent host cannot resolve them): ${text}`);
      assert.equal(d.command, process.execPath);
      assert.equal(d.args[1], '--bridge');
      assert.ok(fs.existsSync(d.args[0]), `the bundled CLI exists: ${d.args[0]}`);
      const ep = await a.testHooks.ensureEndpoint();
      const secret = ep.headers[a.testHooks.secretHeader];
      assert.ok(secret && !text.includes(secret), 'the secret is not in the definition VS Code stores and forwards');
      const file = d.args[2];
      assert.ok(fs.readFileSync(file, 'utf8').includes(secret), 'the endpoint file holds the current secret');
      if (process.platform !== 'win32')
        assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the endpoint file is private (0600)');
      assert.ok(d.version?.endsWith(`+${ep.fingerprint}`), `the version follows the endpoint and secret: ${d.version}`);
    });

    it('the Local harness sees each of our tools once', async () => {
      const a = await api();
      await waitFor('our tools in vscode.lm.tools', () => ourTools().size === TOOLS.length || undefined, 60_000, 500);
      const names = vscode.lm.tools
        .map((t) => t.name)
        .filter((n) => TOOLS.some((t) => n.endsWith(t)) && n.includes('msgbrowse'));
      assert.equal(names.length, TOOLS.length, `no duplicates: ${names.join(', ')}`);
      assert.ok(a.testHooks.status().sessions > 0, 'the Local harness reaches the server through the bridge');
    });

    it('the Copilot runtime connects to the projected definition and lists our tools, plainly and behind a dead HTTP(S)_PROXY', async () => {
      assert.ok(!h.missing && h.node && h.sdk, `cannot run the Copilot runtime: ${h.missing}`);
      const a = await api();
      const defs = await a.testHooks.mcpDefinitions();
      assert.ok(defs && defs.length === 1);
      const mcpServers = { msgbrowse: projectForAgentHost(defs[0]) };
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgbrowse-harness-'));
      const input = path.join(dir, 'input.json');
      fs.writeFileSync(input, JSON.stringify({ sdk: h.sdk, mcpServers, timeoutMs: 40_000 }), { mode: 0o600 });
      try {
        const { runs } = await runCheck(h.node, h.script, input, 150_000);
        assert.deepEqual(
          runs.map((r) => r.label),
          ['plain', 'dead proxy'],
        );
        for (const r of runs) {
          const s = r.servers.find((x) => x.name === 'msgbrowse');
          assert.ok(s, `${r.label}: the runtime knows the server: ${JSON.stringify(r.servers)}`);
          assert.equal(s.status, 'connected', `${r.label}: ${s.error ?? ''}`);
          assert.deepEqual([...s.tools].sort(), [...TOOLS].sort(), `${r.label}: our tools`);
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
