/** `msgbrowse.clearLedger([{ confirm }])`: empties "What Copilot Has Seen" (the disclosure ledger file) after a modal
 * confirmation; `{ confirm: false }` skips it (tests: the test host refuses modal dialogs). Resolves with whether it
 * cleared. */
import * as vscode from 'vscode';
import type { DisclosureLedger } from '../disclosure-ledger';
import type { Command } from './command-manager';

export class ClearLedgerCommand implements Command {
  readonly id = 'msgbrowse.clearLedger';

  constructor(
    private readonly ledger: DisclosureLedger,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async execute(opts?: { confirm?: boolean }): Promise<boolean> {
    if (opts?.confirm !== false) {
      const calls = this.ledger.read().entries.length;
      const choice = await vscode.window.showWarningMessage(
        `Clear "What Copilot Has Seen"?`,
        {
          modal: true,
          detail: `This deletes the record of ${calls} tool call(s) and resource read(s) served to a model (${this.ledger.file}). It does not change your archive, and what was sent cannot be taken back.`,
        },
        'Clear',
      );
      if (choice !== 'Clear') return false;
    }
    try {
      this.ledger.clear();
    } catch (e) {
      const text = e instanceof Error ? e.message : String(e);
      this.log.error(`clearing the disclosure ledger: ${text}`);
      void vscode.window.showErrorMessage(`msgbrowse: cannot clear the ledger: ${text}`);
      return false;
    }
    this.log.info(`disclosure ledger cleared (${this.ledger.file})`);
    return true;
  }
}
