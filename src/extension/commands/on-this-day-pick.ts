/** `msgbrowse.onThisDay([date])`: this day in earlier years, by year in a QuickPick; with YYYY-MM-DD, the result. */
import * as vscode from 'vscode';
import { refOf } from '../citation-ref';
import { type HitItem, hitItem, hitPick } from '../search-pick';
import type { SearchService } from '../search-service';
import type { ViewerManager } from '../viewer/viewer-manager';
import { openCitation } from './open-citation';

export async function onThisDay(search: SearchService, viewer: ViewerManager, date?: unknown) {
  if (typeof date === 'string' && date.trim()) return search.onThisDay(date.trim());
  const result = await search.onThisDay().catch((e: unknown) => {
    void vscode.window.showErrorMessage(`msgbrowse: On This Day failed: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  });
  if (!result) return undefined;
  const { years, notes, date: d } = result;
  const at = new Date(Date.UTC(2000, d.month - 1, d.day));
  const label = at.toLocaleDateString(undefined, { month: 'long', day: 'numeric', timeZone: 'UTC' });
  if (!years.length) {
    void vscode.window.showInformationMessage(
      `msgbrowse: nothing on ${label} in earlier years${notes.length ? ` — ${notes.join('; ')}` : ''}.`,
    );
    return undefined;
  }
  const items: HitItem[] = [];
  for (const y of years) {
    const ago = d.year - y.year;
    items.push({
      label: `${y.year} · ${ago} year${ago === 1 ? '' : 's'} ago`,
      kind: vscode.QuickPickItemKind.Separator,
    });
    items.push(...y.messages.map((h) => hitItem(h, search)));
  }
  const qp = hitPick(`msgbrowse: On This Day — ${label}`, (hit, o) => openCitation(viewer, refOf(hit), o.side));
  qp.placeholder = 'Messages from this day in earlier years; Enter opens the message in its conversation';
  qp.matchOnDescription = true;
  qp.items = items;
  qp.onDidHide(() => qp.dispose());
  qp.show();
  return result;
}
