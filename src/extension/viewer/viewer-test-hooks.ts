/** The viewer's test hooks (see ../test-api.ts): waiters on what a webview reports it rendered, and reader input. */
import type { CitationOutcome, ViewerManager } from './viewer-manager';
import type { ViewerReport } from './viewer-panel';
import type { ToWebview } from './webview-protocol';

const TIMEOUT_MS = 15000;

type Report<K extends ViewerReport['type']> = Extract<ViewerReport, { type: K }>;

export function viewerTestHooks(viewer: ViewerManager) {
  const outcomes: CitationOutcome[] = [];
  // Callers look the method up on the instance: wrapping it observes every citation opened.
  const openCitation = viewer.openCitation.bind(viewer);
  viewer.openCitation = (ref, opts) => openCitation(ref, opts).then((o) => (outcomes.push(o), o));
  const next = <K extends ViewerReport['type']>(
    type: K,
    conversationId: number,
    pred: (e: Report<K>) => boolean,
    why: string,
    timeoutMs = TIMEOUT_MS,
  ) =>
    new Promise<Report<K>>((resolve, reject) => {
      const timer = setTimeout(() => {
        sub.dispose();
        reject(new Error(`${why} within ${timeoutMs} ms`));
      }, timeoutMs);
      const sub = viewer.onDidReport((e) => {
        if (e.type !== type || e.conversationId !== conversationId || !pred(e as Report<K>)) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(e as Report<K>);
      });
    });
  /** Posts reader input to an open viewer; resolves with what it then reports. */
  const act = <T>(conversationId: number, msg: ToWebview, reply: () => Promise<T>): Promise<T> => {
    const vp = viewer.panelOf(conversationId);
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
    openViewers: () => viewer.openConversations(),
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
