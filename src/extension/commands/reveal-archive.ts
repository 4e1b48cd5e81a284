/** `msgbrowse.revealArchive`: reveals the served archive's directory in the OS file manager. */
import path from 'node:path';
import * as vscode from 'vscode';
import type { ArchiveService } from '../archive-service';
import type { Command } from './command-manager';

export class RevealArchiveCommand implements Command {
  readonly id = 'msgbrowse.revealArchive';

  constructor(private readonly archive: ArchiveService) {}

  execute(): void {
    const p = this.archive.currentPath;
    if (p) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(path.dirname(p)));
  }
}
