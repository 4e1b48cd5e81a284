/** The viewer's test hooks (see ../test-api.ts): waiters on what a webview reports it rendered, and reader input. */
import type { CitationOutcome, ViewerManager } from './viewer-manager';
import type { ViewerPanel } from './viewer-panel';
import { type FromWebview, parseFromWebview, type ToWebview } from './webview-protocol';

const TIMEOUT_MS = 15000;

type ViewerReport = Extract<FromWebview, { type: 'shown' | 'paged' | 'found' }> & { conversationId: number };
type Report<K extends ViewerReport['type']> = Extract<ViewerReport, { type: K }>;

export function viewerTestHooks(viewer: ViewerManager) {
  const outcomes: CitationOutcome[] = [];
  const panels = new Map<number, ViewerPanel>();
  const listeners = new Set<(e: ViewerReport) => void>();
  // Callers look these methods up on the instance: wrapping them observes every citation opened, every panel made
  // and every message its webview posts (reported once the panel handled it).
  const openCitation = viewer.openCitation.bind(viewer);
  viewer.openCitation = (ref, opts) => openCitation(ref, opts).then((o) => (outcomes.push(o), o));
  const adopt = viewer.adopt.bind(viewer);
  viewer.adopt = (panel, state) => {
    const vp = adopt(panel, state);
    const id = state.conversationId;
    panels.set(id, vp);
    vp.panel.onDidDispose(() => panels.get(id) === vp && panels.delete(id));
    const handle = vp.handle.bind(vp);
    vp.handle = async (raw) => {
      await handle(raw);
      const msg = parseFromWebview(raw);
      if (msg?.type === 'shown' || msg?.type === 'paged' || msg?.type === 'found') {
        for (const l of [...listeners]) l({ ...msg, conversationId: vp.conversationId });
      }
    };
    return vp;
  };
  const next = <K extends ViewerReport['type']>(
    type: K,
    conversationId: number,
    pred: (e: Report<K>) => boolean,
    why: string,
    timeoutMs = TIMEOUT_MS,
  ) =>
    new Promise<Report<K>>((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(listen);
        reject(new Error(`${why} within ${timeoutMs} ms`));
      }, timeoutMs);
      const listen = (e: ViewerReport) => {
        if (e.type !== type || e.conversationId !== conversationId || !pred(e as Report<K>)) return;
        clearTimeout(timer);
        listeners.delete(listen);
        resolve(e as Report<K>);
      };
      listeners.add(listen);
    });
  /** Posts reader input to an open viewer; resolves with what it then reports. */
  const act = <T>(conversationId: number, msg: ToWebview, reply: () => Promise<T>): Promise<T> => {
    const vp = panels.get(conversationId);
    if (!vp) return Promise.reject(new Error(`no viewer is open for conversation ${conversationId}`));
    const replied = reply();
    void vp.panel.webview.postMessage(msg);
    return replied;
  };
  return {
    citationOutcomes: () => [...outcomes],
    waitForViewer: (conversationId: number, messageId: number, timeoutMs = TIMEOUT_MS) =>
      next(
        'shown',
        conversationId,
        (e) => e.focusId === messageId,
        `viewer did not show message ${messageId} of conversation ${conversationId}`,
        timeoutMs,
      ),
    openViewers: () => [...panels.keys()],
    scrollViewer: (conversationId: number, edge: 'top' | 'bottom') =>
      act(conversationId, { type: 'scrollEdge', edge }, () =>
        next('paged', conversationId, () => true, `viewer of conversation ${conversationId} loaded no page`),
      ),
    findInViewer: (conversationId: number, query: string) =>
      act(conversationId, { type: 'setFind', query }, () =>
        next(
          'found',
          conversationId,
          (e) => e.query === query,
          `find "${query}" in conversation ${conversationId} reported nothing`,
        ),
      ),
  };
}
