/** Shared by "Select Archive…" and "Open Demo Archive": where a chosen archive path is written. */
import * as vscode from 'vscode';
import { CONFIG_SECTION } from '../constants';

/** Writes msgbrowse.archivePath where it takes effect: the most specific scope that already sets it, else user settings. */
export async function setArchivePath(value: string): Promise<void> {
  const cfg = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const i = cfg.inspect<string>('archivePath');
  const target =
    i?.workspaceValue !== undefined || i?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
  await cfg.update('archivePath', value, target);
}
