/** QuickPicks of message hits, and the live search: debounced, stale queries cancelled, every hit shown. */
import * as vscode from 'vscode';
import type { SearchHit, SearchService } from './search-service';

const DEBOUNCE_MS = 200;

export interface HitItem extends vscode.QuickPickItem {
  hit?: SearchHit;
}

type OpenHit = (hit: SearchHit, opts: { side: boolean }) => void;

const COPY_BUTTON: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('copy'), tooltip: 'Copy citation link' };
const SIDE_BUTTON: vscode.QuickInputButton = {
  iconPath: new vscode.ThemeIcon('split-horizontal'),
  tooltip: 'Open to the side',
};

export function hitItem(hit: SearchHit, search: SearchService): HitItem {
  const hidden = search.hiddenFromModel({ name: hit.conversation, source: hit.source });
  return {
    // Snippets mark matches with `**…**` (markdown for models); a QuickPick label shows plain text.
    label: hit.text.replace(/\*\*/g, '').replace(/\s+/g, ' ').trim() || '(empty message)',
    description: `${hit.sender} · ${hit.conversation}`,
    detail: `${hit.timestamp} · ${hit.source}${hidden ? ' · hidden from Copilot' : ''}`,
    alwaysShow: true,
    buttons: [COPY_BUTTON, SIDE_BUTTON],
    hit,
  };
}

/** A QuickPick of hits: Enter opens the viewer at the hit; its buttons copy the citation or open it beside. */
export function hitPick(title: string, open: OpenHit): vscode.QuickPick<HitItem> {
  const qp = vscode.window.createQuickPick<HitItem>();
  qp.title = title;
  qp.onDidAccept(() => {
    const hit = qp.selectedItems[0]?.hit ?? qp.activeItems[0]?.hit;
    if (!hit) return;
    qp.hide();
    open(hit, { side: false });
  });
  qp.onDidTriggerItemButton(({ button, item }) => {
    if (!item.hit) return;
    if (button === COPY_BUTTON) {
      void vscode.env.clipboard.writeText(item.hit.link);
      vscode.window.setStatusBarMessage(`Copied ${item.hit.link}`, 3000);
    } else open(item.hit, { side: true });
  });
  return qp;
}

export function showSearchPick(search: SearchService, open: OpenHit, initial = ''): void {
  const qp = hitPick('msgbrowse: Search Messages', open);
  qp.placeholder = 'Search your messages (keyword + semantic)';
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  qp.value = initial;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inflight: AbortController | undefined;
  let seq = 0;

  const run = (query: string) => {
    inflight?.abort();
    const q = query.trim();
    qp.busy = !!q;
    if (!q) {
      qp.items = [];
      return;
    }
    const ac = new AbortController();
    inflight = ac;
    const mine = ++seq;
    search
      .search(q, ac.signal)
      .then((res) => {
        if (mine !== seq) return;
        const items = res.hits.map((h) => hitItem(h, search));
        if (!res.semantic.used) {
          const why = res.semantic.reason ?? 'semantic search unavailable';
          items.push({ label: '', kind: vscode.QuickPickItemKind.Separator, alwaysShow: true });
          items.push({ label: `$(info) keyword results only: ${why}`, alwaysShow: true });
        }
        if (!res.hits.length) items.unshift({ label: `No messages match "${q}"`, alwaysShow: true });
        qp.items = items;
      })
      .catch((e: unknown) => {
        if (mine !== seq || ac.signal.aborted) return;
        qp.items = [{ label: `$(error) ${e instanceof Error ? e.message : String(e)}`, alwaysShow: true }];
      })
      .finally(() => {
        if (mine === seq) qp.busy = false;
      });
  };

  qp.onDidChangeValue((v) => {
    clearTimeout(timer);
    timer = setTimeout(() => run(v), DEBOUNCE_MS);
  });
  qp.onDidHide(() => {
    clearTimeout(timer);
    inflight?.abort();
    qp.dispose();
  });
  qp.show();
  if (initial) run(initial);
}
