/** `msgbrowse.searchMessages([query])`: with a query, resolves with the hybrid results; without, opens the live
 * search QuickPick (seeded with the editor selection) and resolves with undefined. */
import * as vscode from 'vscode';
import { showSearchPick } from '../search-pick';
import type { SearchResult, SearchService } from '../search-service';
import type { ViewerManager } from '../viewer/viewer-manager';
import type { Command } from './command-manager';
import { openCitation } from './open-citation';
import { refOf } from '../citation-ref';

export class SearchMessagesCommand implements Command {
  readonly id = 'msgbrowse.searchMessages';

  constructor(
    private readonly search: SearchService,
    private readonly viewer: ViewerManager,
  ) {}

  async execute(query?: unknown): Promise<SearchResult | undefined> {
    if (typeof query === 'string' && query.trim()) return this.search.search(query.trim());
    const editor = vscode.window.activeTextEditor;
    const selected = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : '';
    showSearchPick(this.search, (hit, o) => openCitation(this.viewer, refOf(hit), o.side), selected.slice(0, 200));
    return undefined;
  }
}
