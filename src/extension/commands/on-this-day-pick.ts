/**
 * `msgbrowse.onThisDay([date])`: this day's messages in earlier years, in a QuickPick grouped by year; with a
 * YYYY-MM-DD argument it resolves with the result instead.
 */
import * as vscode from 'vscode';
import { refOf } from '../citation-ref';
import { type HitItem, hitItem, hitPick } from '../search-pick';
import type { SearchService } from '../search-service';
import type { ViewerManager } from '../viewer/viewer-manager';
import { openCitation } from './open-citation';

type OnThisDay = Awaited<ReturnType<SearchService['onThisDay']>>;

export async function onThisDay(
  search: SearchService,
  viewer: ViewerManager,
  date?: unknown,
): Promise<OnThisDay | undefined> {
  if (typeof date === 'string' && date.trim()) return search.onThisDay(date.trim());
  let result: OnThisDay;
  try {
    result = await search.onThisDay();
  } catch (e) {
    void vscode.window.showErrorMessage(`msgbrowse: On This Day failed: ${e instanceof Error ? e.message : String(e)}`);
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
  const items: HitItem[] = [];
  for (const y of years) {
    const ago = d.year - y.year;
    items.push({
      label: `${y.year} · ${ago} year${ago === 1 ? '' : 's'} ago`,
      kind: vscode.QuickPickItemKind.Separator,
    });
    for (const h of y.messages)
      items.push(hitItem(h, search.hiddenFromModel({ name: h.conversation, source: h.source })));
  }
  const qp = hitPick(`msgbrowse: On This Day — ${label}`, (hit, o) => openCitation(viewer, refOf(hit), o.side));
  qp.placeholder = 'Messages from this day in earlier years; Enter opens the message in its conversation';
  qp.matchOnDescription = true;
  qp.items = items;
  qp.onDidHide(() => qp.dispose());
  qp.show();
  return result;
}
