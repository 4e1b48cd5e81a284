/** The disclosure ledger: the core's LedgerWriter on a file in global storage, fed by `ServerContext.disclose`. */
import path from 'node:path';
import * as vscode from 'vscode';
import { type Disclosure, LEDGER_FILE_NAME, type LedgerContents, LedgerWriter } from '../core';
import type { PrivacyInfo } from './privacy-summary';
import { readSettings } from './settings';

export class DisclosureLedger implements vscode.Disposable {
  readonly file: string;
  private readonly writer: LedgerWriter;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(globalStorage: vscode.Uri, archivePath: () => string | undefined, log: vscode.LogOutputChannel) {
    this.file = path.join(globalStorage.fsPath, 'ledger', LEDGER_FILE_NAME);
    this.writer = new LedgerWriter(this.file, {
      archivePath,
      log: (m) => log.warn(m),
      onAppend: () => this.changed.fire(),
    });
  }

  readonly disclose = (d: Disclosure): boolean => this.writer.append(d);

  read(limit?: number): LedgerContents {
    return this.writer.read(limit);
  }

  clear(): void {
    this.writer.clear();
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function currentPrivacy(ledger: DisclosureLedger): PrivacyInfo {
  const s = readSettings();
  return { exclusions: s.excludeConversations, redact: s.redact, ledgerFile: ledger.file };
}
