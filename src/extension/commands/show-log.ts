/** `msgbrowse.showLog`: reveals the msgbrowse log output channel. */
import type * as vscode from 'vscode';
import type { Command } from './command-manager';

export class ShowLogCommand implements Command {
  readonly id = 'msgbrowse.showLog';

  constructor(private readonly log: vscode.LogOutputChannel) {}

  execute(): void {
    return this.log.show();
  }
}
