/** `msgbrowse.selectArchive([path])`: sets msgbrowse.archivePath to the given path, or to one chosen in an open
 * dialog; resolves with the path written, or undefined when cancelled. */
import * as vscode from 'vscode';
import { setArchivePath } from './archive-setting';
import type { Command } from './command-manager';

export class SelectArchiveCommand implements Command {
  readonly id = 'msgbrowse.selectArchive';

  async execute(file?: unknown): Promise<string | undefined> {
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
}
