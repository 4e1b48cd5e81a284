/**
 * `msgbrowse.onThisDay([date])`: messages from this day in earlier years, in a QuickPick grouped by year (newest
 * first); Enter opens the viewer at the message. With a YYYY-MM-DD argument it resolves with the result instead.
 */
import * as vscode from 'vscode';
import { refOf } from '../citation-ref';
import { hitItem } from '../search-pick';
import type { SearchService } from '../search-service';
import type { ViewerManager } from '../viewer/viewer-manager';
import type { Command } from './command-manager';
import { openCitation } from './open-citation';

export class OnThisDayCommand implements Command {
  readonly id = 'msgbrowse.onThisDay';

  constructor(
    private readonly search: SearchService,
    private readonly viewer: ViewerManager,
  ) {}

  async execute(date?: unknown): Promise<Awaited<ReturnType<SearchService['onThisDay']>> | undefined> {
    if (typeof date === 'string' && date.trim()) return this.search.onThisDay(date.trim());
    let result: Awaited<ReturnType<SearchService['onThisDay']>>;
    try {
      result = await this.search.onThisDay();
    } catch (e) {
      void vscode.window.showErrorMessage(
        `msgbrowse: On This Day failed: ${e instanceof Error ? e.message : String(e)}`,
      );
      return undefined;
    }
    const { years, notes, date: d } = result;
    const label = new Date(Date.UTC(2000, d.month - 1, d.day)).toLocaleDateString(undefined, {
      month: 'long',
      day: 'numeric',
      timeZone: 'UTC',
    });
    if (!years.length) {
      void vscode.window.showInformationMessage(
        `msgbrowse: nothing on ${label} in earlier years${notes.length ? ` — ${notes.join('; ')}` : ''}.`,
      );
      return undefined;
    }
    type Item = vscode.QuickPickItem & { hit?: (typeof years)[number]['messages'][number] };
    const items: Item[] = [];
    for (const y of years) {
      const ago = d.year - y.year;
      items.push({
        label: `${y.year} · ${ago} year${ago === 1 ? '' : 's'} ago`,
        kind: vscode.QuickPickItemKind.Separator,
      });
      for (const h of y.messages)
        items.push(hitItem(h, this.search.hiddenFromModel({ name: h.conversation, source: h.source })));
    }
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = `msgbrowse: On This Day — ${label}`;
    qp.placeholder = 'Messages from this day in earlier years; Enter opens the message in its conversation';
    qp.matchOnDescription = true;
    qp.items = items;
    qp.onDidAccept(() => {
      const hit = qp.selectedItems[0]?.hit ?? qp.activeItems[0]?.hit;
      if (!hit) return;
      qp.hide();
      void openCitation(this.viewer, refOf(hit), false);
    });
    qp.onDidTriggerItemButton(({ button, item }) => {
      if (!item.hit) return;
      if (button.tooltip === 'Copy citation link') {
        void vscode.env.clipboard.writeText(item.hit.link);
        vscode.window.setStatusBarMessage(`Copied ${item.hit.link}`, 3000);
      } else void openCitation(this.viewer, refOf(item.hit), true);
    });
    qp.onDidHide(() => qp.dispose());
    qp.show();
    return result;
  }
}
