/** `msgbrowse.clearLedger([{ confirm }])`: empties "What Copilot Has Seen"; resolves with whether it cleared. */
import * as vscode from 'vscode';
import type { DisclosureLedger } from '../disclosure-ledger';

export async function clearLedger(
  ledger: DisclosureLedger,
  log: vscode.LogOutputChannel,
  opts?: { confirm?: boolean },
): Promise<boolean> {
  // `confirm: false` skips the modal confirmation, which the test host refuses.
  if (opts?.confirm !== false) {
    const calls = ledger.read().entries.length;
    const choice = await vscode.window.showWarningMessage(
      `Clear "What Copilot Has Seen"?`,
      {
        modal: true,
        detail: `This deletes the record of ${calls} tool call(s) and resource read(s) served to a model (${ledger.file}). It does not change your archive, and what was sent cannot be taken back.`,
      },
      'Clear',
    );
    if (choice !== 'Clear') return false;
  }
  try {
    ledger.clear();
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    log.error(`clearing the disclosure ledger: ${text}`);
    void vscode.window.showErrorMessage(`msgbrowse: cannot clear the ledger: ${text}`);
    return false;
  }
  log.info(`disclosure ledger cleared (${ledger.file})`);
  return true;
}
