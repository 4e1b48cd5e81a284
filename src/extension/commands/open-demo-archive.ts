/** `msgbrowse.openDemoArchive`: unpacks the bundled demo archive into global storage, points msgbrowse.archivePath
 * at it and resolves with its path. */
import * as vscode from 'vscode';
import { materializeDemo } from '../demo';
import { setArchivePath } from './archive-setting';
import type { Command } from './command-manager';

export class OpenDemoArchiveCommand implements Command {
  readonly id = 'msgbrowse.openDemoArchive';

  constructor(private readonly ext: vscode.ExtensionContext) {}

  async execute(): Promise<string> {
    const file = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'msgbrowse: preparing the demo archive' },
      () => materializeDemo(this.ext),
    );
    await this.ext.globalState.update('msgbrowse.demoArchive', file);
    await setArchivePath(file);
    return file;
  }
}
