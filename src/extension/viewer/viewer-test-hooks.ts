/**
 * The viewer's part of the integration tests' hooks (MsgbrowseTestHooks, see ../test-api.ts): waiters that resolve
 * with what a webview reports it rendered. Only extension.ts's test-hooks branch (ExtensionMode.Test and
 * TEST_HOOKS_ENV) calls this; nothing on the product path waits on a webview.
 */
import type * as vscode from 'vscode';
import type { MsgbrowseTestHooks } from '../test-api';
import type { CitationOutcome, ViewerManager } from './viewer-manager';

type ViewerTestHooks = Pick<
  MsgbrowseTestHooks,
  'waitForViewer' | 'openViewers' | 'scrollViewer' | 'findInViewer' | 'citationOutcomes'
>;

const TIMEOUT_MS = 15000;

export function viewerTestHooks(viewer: ViewerManager): ViewerTestHooks {
  const outcomes: CitationOutcome[] = [];
  // Lives as long as the viewer manager (disposed with its emitter).
  viewer.onDidOpenCitation((o) => outcomes.push(o));
  return {
    citationOutcomes: () => [...outcomes],
    // Resolves with the webview's acknowledgement that `messageId` is rendered (and highlighted).
    waitForViewer: (conversationId, messageId, timeoutMs = TIMEOUT_MS) =>
      nextEvent(
        viewer.onDidShow,
        (e) => e.conversationId === conversationId && e.focusId === messageId,
        timeoutMs,
        `viewer did not show message ${messageId} of conversation ${conversationId} within ${timeoutMs} ms`,
      ),
    openViewers: () => viewer.openConversations(),
    // Scrolls to the top/bottom edge (loading pages as a reader scrolling would); resolves with the page rendered.
    scrollViewer: (conversationId, edge) => {
      const vp = viewer.panelOf(conversationId);
      if (!vp) return Promise.reject(new Error(`no viewer is open for conversation ${conversationId}`));
      const paged = nextEvent(
        viewer.onDidPage,
        (e) => e.conversationId === conversationId,
        TIMEOUT_MS,
        `viewer of conversation ${conversationId} loaded no page within ${TIMEOUT_MS} ms`,
      );
      vp.scrollEdge(edge);
      return paged;
    },
    // Find-in-conversation as typed into the find box; resolves with what it found and moved to.
    findInViewer: (conversationId, query) => {
      const vp = viewer.panelOf(conversationId);
      if (!vp) return Promise.reject(new Error(`no viewer is open for conversation ${conversationId}`));
      const found = nextEvent(
        viewer.onDidFind,
        (e) => e.conversationId === conversationId && e.query === query,
        TIMEOUT_MS,
        `find "${query}" in conversation ${conversationId} reported nothing within ${TIMEOUT_MS} ms`,
      );
      vp.setFind(query);
      return found;
    },
  };
}

/** The first event matching `pred`, or a rejection with `timeoutMessage` after `timeoutMs`. */
function nextEvent<T>(
  event: vscode.Event<T>,
  pred: (e: T) => boolean,
  timeoutMs: number,
  timeoutMessage: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(timeoutMessage));
    }, timeoutMs);
    const sub = event((e) => {
      if (!pred(e)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(e);
    });
  });
}
