/** `msgbrowse.openConversation([conversationId[, messageId]])`: opens the viewer on a conversation (picked from a
 * QuickPick when no id is given); resolves with `{ conversationId }`, or undefined when nothing was opened. */
import * as vscode from 'vscode';
import type { ArchiveService } from '../archive-service';
import type { ViewerManager } from '../viewer/viewer-manager';
import type { Command } from './command-manager';

export class OpenConversationCommand implements Command {
  readonly id = 'msgbrowse.openConversation';

  constructor(
    private readonly archive: ArchiveService,
    private readonly viewer: ViewerManager,
  ) {}

  async execute(conversationId?: unknown, messageId?: unknown): Promise<{ conversationId: number } | undefined> {
    if (typeof conversationId === 'number') {
      this.viewer.open(conversationId, { messageId: typeof messageId === 'number' ? messageId : undefined });
      return { conversationId };
    }
    const archive = await this.archive.archive().catch((e: unknown) => {
      void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
      return undefined;
    });
    if (!archive) return undefined;
    const rows = await archive.listConversations();
    const pick = await vscode.window.showQuickPick(
      [...rows]
        .sort((a, b) => b.lastUnix - a.lastUnix)
        .map((r) => ({
          label: r.name,
          description: `${r.source} · ${r.messageCount} messages`,
          detail: `last ${r.lastTs}`,
          id: r.id,
        })),
      { title: 'msgbrowse: Open Conversation', matchOnDescription: true, placeHolder: 'Conversation name' },
    );
    if (!pick) return undefined;
    this.viewer.open(pick.id);
    return { conversationId: pick.id };
  }
}
