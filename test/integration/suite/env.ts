import fs from 'node:fs';
import * as vscode from 'vscode';
import type { MsgbrowseApi } from '../../../src/extension/api';
import { TEST_HOOKS_ENV, type MsgbrowseTestExports } from '../../../src/extension/test-api';
import { MANIFEST_ENV, type IntegrationManifest } from '../manifest';
export type { IntegrationManifest };

export const EXTENSION_ID = 'msgbrowse.msgbrowse-vscode';

let manifest: IntegrationManifest | undefined;
export function loadManifest(): IntegrationManifest {
  if (manifest) return manifest;
  const file = process.env[MANIFEST_ENV];
  if (!file) throw new Error(`${MANIFEST_ENV} is not set: run the suite through test/integration/runTest.ts`);
  manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as IntegrationManifest;
  return manifest;
}

/** The activated extension's exports: the public MsgbrowseApi plus `testHooks` (attached only under these tests). */
export async function api(): Promise<MsgbrowseTestExports> {
  const ext = vscode.extensions.getExtension<MsgbrowseApi | MsgbrowseTestExports>(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not installed in the host`);
  const a = await ext.activate();
  await a.ready;
  if (!('testHooks' in a)) {
    throw new Error(
      `the extension exposes no test hooks: it attaches them only in ExtensionMode.Test with ${TEST_HOOKS_ENV}=1 ` +
        `(here ${TEST_HOOKS_ENV}=${process.env[TEST_HOOKS_ENV] ?? 'unset'}; run the suite through test/integration/runTest.ts)`,
    );
  }
  return a;
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}

/** All text of a tool result (VS Code wraps MCP content as LanguageModelTextPart). */
export function resultText(r: vscode.LanguageModelToolResult): string {
  return r.content
    .map((p) =>
      p instanceof vscode.LanguageModelTextPart
        ? p.value
        : typeof (p as { value?: unknown }).value === 'string'
          ? (p as { value: string }).value
          : '',
    )
    .join('\n');
}
