/** `msgbrowse.setApiKey`: prompts for the embeddings API key (secret storage) and reapplies the runtime when set. */
import type * as vscode from 'vscode';
import type { ArchiveService } from '../archive-service';
import { promptApiKey } from '../settings';
import type { Command } from './command-manager';

export class SetApiKeyCommand implements Command {
  readonly id = 'msgbrowse.setApiKey';

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly archive: ArchiveService,
  ) {}

  async execute(): Promise<void> {
    if (await promptApiKey(this.secrets)) await this.archive.apply();
  }
}
