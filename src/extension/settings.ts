/** The extension's settings (`msgbrowse.*`) and the embeddings API key kept in SecretStorage. */
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import {
  type CitationFormat,
  DEFAULT_EMBED_BASE_URL,
  DEFAULT_EMBED_MODEL,
  type EmbedConfig,
  type RuntimeSettings,
} from '../core';
import { CONFIG_SECTION, SECRET_API_KEY } from './constants';

export interface Settings {
  /** '' = discover; `~` and `${workspaceFolder}` resolved. */
  archivePath: string;
  attachmentsRoot: string;
  embedBaseUrl: string;
  embedModel: string;
  excludeConversations: string[];
  redact: boolean;
  answerBudget: number;
}

// VS Code's settings whose threshold our answers keep under (a longer tool result reaches the model as a file): the
// Copilot Chat agent's, and the same name in core, where it may move. Only a person's own value can be read.
export const HOST_RESULT_SETTINGS = [
  'github.copilot.chat.agent.largeToolResultsToDisk',
  'chat.agent.largeToolResultsToDisk',
] as const;
const HOST_DEFAULT_THRESHOLD = 8192;
// With the host's limit turned off, answers still stay small enough not to crowd the model's context.
const UNLIMITED_HOST_BUDGET = 32768;

/** The value the person set (folder, workspace or user), under either name. */
function hostSetting<T>(key: string): T | undefined {
  for (const section of HOST_RESULT_SETTINGS) {
    const v = vscode.workspace.getConfiguration(section).inspect<T>(key);
    const set = v?.workspaceFolderValue ?? v?.workspaceValue ?? v?.globalValue;
    if (set !== undefined) return set;
  }
  return undefined;
}

function hostAnswerBudget(): number {
  if (hostSetting<boolean>('enabled') === false) return UNLIMITED_HOST_BUDGET;
  const n = hostSetting<number>('thresholdBytes');
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : HOST_DEFAULT_THRESHOLD;
}

function expand(p: string): string {
  let out = p.trim();
  if (!out) return '';
  const ws = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (ws) out = out.replace(/\$\{workspaceFolder\}/g, ws);
  if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) out = path.join(os.homedir(), out.slice(1));
  if (!path.isAbsolute(out) && ws) out = path.resolve(ws, out);
  return out;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(CONFIG_SECTION);
  return {
    archivePath: expand(c.get<string>('archivePath', '')),
    attachmentsRoot: expand(c.get<string>('attachmentsRoot', '')),
    embedBaseUrl: c.get<string>('embeddings.baseUrl', DEFAULT_EMBED_BASE_URL) || DEFAULT_EMBED_BASE_URL,
    embedModel: c.get<string>('embeddings.model', DEFAULT_EMBED_MODEL) ?? DEFAULT_EMBED_MODEL,
    excludeConversations: stringList(c.get('privacy.excludeConversations')),
    redact: c.get<boolean>('privacy.redact', true) !== false,
    answerBudget: hostAnswerBudget(),
  };
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
}

/** Whether a change reaches what `readSettings` reads: ours, or VS Code's inline threshold. */
export function affectsSettings(e: vscode.ConfigurationChangeEvent): boolean {
  return [CONFIG_SECTION, ...HOST_RESULT_SETTINGS].some((s) => e.affectsConfiguration(s));
}

/** The one place our settings map to the core's; `archivePath` is the file the service resolved. */
export function runtimeSettings(
  s: Settings,
  archivePath: string,
  embed: EmbedConfig,
  citation: CitationFormat,
): RuntimeSettings {
  const privacy = { excludeConversations: s.excludeConversations };
  return { archivePath, embed, citation, redact: s.redact, privacy, answerBudget: s.answerBudget };
}

export async function embedConfig(settings: Settings, secrets: vscode.SecretStorage): Promise<EmbedConfig> {
  // A keyring that fails must not hold back the rest of the settings (exclusions, redaction): no key then.
  const apiKey = (await Promise.resolve(secrets.get(SECRET_API_KEY)).catch(() => undefined))?.trim();
  return { baseUrl: settings.embedBaseUrl, model: settings.embedModel, apiKey: apiKey || undefined };
}

/** An empty entry removes the key. Returns whether it changed. */
export async function promptApiKey(secrets: vscode.SecretStorage): Promise<boolean> {
  const value = await vscode.window.showInputBox({
    title: 'msgbrowse: Embeddings API Key',
    prompt:
      'Sent as "Authorization: Bearer <key>" to msgbrowse.embeddings.baseUrl. Leave empty to remove the stored key.',
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) return false;
  if (value.trim()) await secrets.store(SECRET_API_KEY, value.trim());
  else await secrets.delete(SECRET_API_KEY);
  vscode.window.showInformationMessage(
    value.trim() ? 'msgbrowse: API key stored in Secret Storage.' : 'msgbrowse: API key removed.',
  );
  return true;
}
