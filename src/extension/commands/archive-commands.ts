/** Choosing the archive, its embeddings key, and running the bundled CLI from other MCP clients. */
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import * as vscode from 'vscode';
import { ARCHIVE_FILE_NAME } from '../../core';
import type { ArchiveService } from '../archive-service';
import { CONFIG_SECTION } from '../constants';
import { clientConfigs } from '../../mcp';
import { cliLaunch } from '../mcp-config';
import { readSettings } from '../settings';

/** `msgbrowse.selectArchive([path])`: resolves with the path written, or undefined when cancelled. */
export async function selectArchive(file?: unknown): Promise<string | undefined> {
  let chosen = typeof file === 'string' ? file : undefined;
  if (!chosen) {
    const uris = await vscode.window.showOpenDialog({
      title: 'Select your msgbrowse archive (msgbrowse.sqlite or its data directory)',
      canSelectFiles: true,
      canSelectFolders: true,
      canSelectMany: false,
      filters: { 'msgbrowse archive': ['sqlite', 'db'], 'All files': ['*'] },
    });
    chosen = uris?.[0]?.fsPath;
  }
  if (!chosen) return undefined;
  await setArchivePath(chosen);
  return chosen;
}

/**
 * `msgbrowse.openDemoArchive`: unpacks the bundled demo (media/demo/) into global storage, never beside user data, and
 * serves it; resolves with its path.
 */
export async function openDemoArchive(ext: vscode.ExtensionContext): Promise<string> {
  const file = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'msgbrowse: preparing the demo archive' },
    () => materializeDemo(ext),
  );
  await ext.globalState.update('msgbrowse.demoArchive', file);
  await setArchivePath(file);
  return file;
}

async function materializeDemo(ext: vscode.ExtensionContext): Promise<string> {
  const gz = path.join(ext.extensionPath, 'media', 'demo', `${ARCHIVE_FILE_NAME}.gz`);
  const dir = path.join(ext.globalStorageUri.fsPath, 'demo');
  const file = path.join(dir, ARCHIVE_FILE_NAME);
  const bytes = gunzipSync(await fs.promises.readFile(gz));
  fs.mkdirSync(dir, { recursive: true });
  const old = await fs.promises.readFile(file).catch(() => undefined);
  if (!old?.equals(bytes)) {
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.promises.writeFile(tmp, bytes);
    for (const ext of ['-wal', '-shm']) fs.rmSync(file + ext, { force: true });
    await fs.promises.rename(tmp, file);
  }
  return file;
}

/** Writes msgbrowse.archivePath to the most specific scope that already sets it, else to user settings. */
async function setArchivePath(value: string): Promise<void> {
  const cfg = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const i = cfg.inspect<string>('archivePath');
  const target =
    i?.workspaceValue !== undefined || i?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
  await cfg.update('archivePath', value, target);
}

export function revealArchive(archive: ArchiveService): void {
  const p = archive.currentPath;
  if (p) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(path.dirname(p)));
}

/** `msgbrowse.copyMcpConfig([client])`: resolves with the copied config, or undefined when cancelled. */
export async function copyMcpConfig(
  extensionPath: string,
  archive: ArchiveService,
  client?: unknown,
): Promise<string | undefined> {
  const configs = clientConfigs(cliLaunch(extensionPath, archive.currentPath, readSettings()));
  let chosen = configs.find((c) => c.client === client);
  if (!chosen) {
    const pick = await vscode.window.showQuickPick(
      configs.map((c) => ({ label: c.label, detail: c.where, config: c })),
      { title: 'msgbrowse: MCP config for which client?' },
    );
    chosen = pick?.config;
  }
  if (!chosen) return undefined;
  await vscode.env.clipboard.writeText(chosen.text);
  // A copy holds today's settings: say so, since a privacy setting changed later does not reach it.
  void vscode.window.showInformationMessage(
    `msgbrowse: the ${chosen.label} config is on the clipboard — paste it into ${chosen.where}. It carries your current archive, embeddings and privacy settings; copy it again after changing them.`,
  );
  return chosen.text;
}
