/**
 * Conversation viewer (runs inside the webview; bundled by esbuild.js into dist/viewer.js as an IIFE).
 * Message data is only ever inserted with textContent / DOM properties — never innerHTML.
 */
import type {
  FromWebview,
  ToWebview,
  ViewerConversation,
  ViewerMessage,
  ViewerState,
} from '../../src/extension/viewer/webview-protocol';

interface VsCodeApi {
  postMessage(msg: FromWebview): void;
  getState(): ViewerState | undefined;
  setState(state: ViewerState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const MAX_RENDERED = 1500;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const list = $<HTMLDivElement>('messages');
const scroller = $<HTMLDivElement>('scroller');
const title = $<HTMLElement>('title');
const subtitle = $<HTMLElement>('subtitle');
const findInput = $<HTMLInputElement>('find');
const findCount = $<HTMLElement>('find-count');
const findPrev = $<HTMLButtonElement>('find-prev');
const findNext = $<HTMLButtonElement>('find-next');
const topSentinel = $<HTMLDivElement>('top');
const bottomSentinel = $<HTMLDivElement>('bottom');
const banner = $<HTMLDivElement>('banner');
const digestBox = $<HTMLElement>('digest');

let conversation: ViewerConversation | undefined;
let hasBefore = false;
let hasAfter = false;
let loadingBefore = false;
let loadingAfter = false;
let highlightId: number | undefined;
let findIds: number[] = [];
let findIndex = -1;
let findQuery = '';

const post = (m: FromWebview) => vscode.postMessage(m);

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const URL_RE = /\bhttps?:\/\/[^\s<>"'`)\]]+[^\s<>"'`)\].,;:!?]/gi;

/** Appends the body as text nodes, turning http(s) URLs into anchors whose text and href come from the URL. */
function appendBody(parent: HTMLElement, body: string): void {
  let last = 0;
  for (const m of body.matchAll(URL_RE)) {
    const start = m.index ?? 0;
    if (start > last) parent.appendChild(document.createTextNode(body.slice(last, start)));
    const a = el('a', 'link', m[0]);
    a.href = m[0];
    a.title = m[0];
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      post({ type: 'openLink', url: m[0] });
    });
    parent.appendChild(a);
    last = start + m[0].length;
  }
  if (last < body.length) parent.appendChild(document.createTextNode(body.slice(last)));
}

function renderMessage(m: ViewerMessage): HTMLElement {
  const row = el('article', m.isSystem ? 'msg system' : 'msg');
  row.id = `m${m.id}`;
  row.dataset.id = String(m.id);
  row.dataset.hash = m.hash;
  row.dataset.ts = String(m.tsUnix);

  const meta = el('header', 'meta');
  meta.appendChild(el('span', 'sender', m.isSystem ? 'system' : m.sender));
  const time = el('time', 'time', m.ts);
  meta.appendChild(time);
  const copy = el('button', 'copy', 'Copy citation');
  copy.title = 'Copy a citation link to this message';
  // The citation carries the message hash, so it still finds this message after a re-import shifts the ids.
  copy.addEventListener('click', () => post({ type: 'copyCitation', messageId: m.id, hash: m.hash }));
  meta.appendChild(copy);
  row.appendChild(meta);

  const body = el('div', 'body');
  appendBody(body, m.body);
  row.appendChild(body);

  if (m.attachments.length) {
    const atts = el('div', 'attachments');
    for (const a of m.attachments) {
      if (a.src && a.kind === 'image') {
        const fig = el('figure', 'att image');
        const img = el('img');
        img.src = a.src;
        img.alt = a.name;
        img.loading = 'lazy';
        fig.appendChild(img);
        fig.appendChild(el('figcaption', undefined, a.name));
        atts.appendChild(fig);
      } else {
        const chip = el(
          'span',
          `att chip ${a.kind}`,
          `${a.kind === 'video' ? '🎞' : a.kind === 'image' ? '🖼' : '📎'} ${a.name || a.relPath || 'attachment'}`,
        );
        chip.title = a.relPath || a.name;
        atts.appendChild(chip);
      }
    }
    row.appendChild(atts);
  }
  if (m.reactions.length) {
    const rx = el('div', 'reactions');
    for (const r of m.reactions) {
      const chip = el('span', 'reaction', `${r.emoji} ${r.actors.length}`);
      chip.title = r.actors.join(', ');
      rx.appendChild(chip);
    }
    row.appendChild(rx);
  }
  if (m.id === highlightId) row.classList.add('highlight');
  if (findIds.includes(m.id)) row.classList.add('found');
  return row;
}

/** Elements message data must never produce (bodies are text nodes; only our own anchors/images exist). */
function activeElements(): number {
  let n = list.querySelectorAll('script, iframe, object, embed, style, link, form').length;
  for (const e of Array.from(list.querySelectorAll('*'))) {
    if (Array.from(e.attributes).some((a) => a.name.toLowerCase().startsWith('on'))) n++;
  }
  return n;
}

function renderedIds(): number[] {
  return Array.from(list.children, (c) => Number((c as HTMLElement).dataset.id));
}

function setHeader(c: ViewerConversation): void {
  title.textContent = c.name;
  subtitle.textContent = `${c.source} · ${c.messageCount.toLocaleString()} messages`;
  document.title = c.name;
}

function saveState(): void {
  if (!conversation) return;
  const highlightHash =
    highlightId !== undefined ? document.getElementById(`m${highlightId}`)?.dataset.hash : undefined;
  const state: ViewerState = {
    conversationId: conversation.id,
    anchorId: firstVisibleId(),
    highlightId,
    ...(highlightHash ? { highlightHash } : {}),
  };
  vscode.setState(state);
  post({ type: 'state', state });
}

function firstVisibleId(): number | undefined {
  const top = scroller.getBoundingClientRect().top;
  for (const child of Array.from(list.children) as HTMLElement[]) {
    if (child.getBoundingClientRect().bottom > top) return Number(child.dataset.id);
  }
  return undefined;
}

function focusMessage(id: number, highlight: boolean): boolean {
  const row = document.getElementById(`m${id}`);
  if (!row) return false;
  if (highlight) {
    for (const h of Array.from(list.querySelectorAll('.highlight'))) h.classList.remove('highlight');
    row.classList.add('highlight');
    highlightId = id;
  }
  row.scrollIntoView({ block: 'center' });
  return true;
}

function trim(from: 'top' | 'bottom'): void {
  while (list.children.length > MAX_RENDERED) {
    if (from === 'top') {
      const first = list.firstElementChild as HTMLElement;
      const h = first.offsetHeight;
      first.remove();
      scroller.scrollTop -= h;
      hasBefore = true;
    } else {
      list.lastElementChild?.remove();
      hasAfter = true;
    }
  }
}

function updateSentinels(): void {
  topSentinel.textContent = hasBefore ? 'Loading earlier messages…' : 'Beginning of conversation';
  bottomSentinel.textContent = hasAfter ? 'Loading later messages…' : 'End of conversation';
}

function onMessage(msg: ToWebview): void {
  switch (msg.type) {
    case 'load': {
      conversation = msg.conversation;
      setHeader(msg.conversation);
      // A notice (e.g. the cited message moved after a re-import) stays visible above the messages.
      banner.hidden = !msg.notice;
      banner.classList.toggle('notice', !!msg.notice);
      banner.textContent = msg.notice ?? '';
      // The day's journal digest (text only): "Journal · 2023-05-01 · upbeat — summary".
      digestBox.replaceChildren();
      digestBox.hidden = !msg.digest;
      if (msg.digest) {
        digestBox.append(
          el('span', 'digest-head', `Journal · ${msg.digest.day}${msg.digest.stale ? ' (stale)' : ''}`),
          el('span', 'digest-mood', msg.digest.mood ? `· ${msg.digest.mood}` : ''),
          el('span', 'digest-summary', msg.digest.summary),
        );
      }
      list.replaceChildren();
      hasBefore = msg.hasBefore;
      hasAfter = msg.hasAfter;
      highlightId = msg.highlight && msg.focusId !== undefined ? msg.focusId : undefined;
      const frag = document.createDocumentFragment();
      for (const m of msg.messages) frag.appendChild(renderMessage(m));
      list.appendChild(frag);
      updateSentinels();
      let shown = false;
      if (msg.focusId !== undefined) shown = focusMessage(msg.focusId, msg.highlight);
      else if (!hasAfter) scroller.scrollTop = scroller.scrollHeight;
      const focusRow = msg.focusId !== undefined ? document.getElementById(`m${msg.focusId}`) : undefined;
      const focusBody = focusRow?.querySelector('.body');
      post({
        type: 'shown',
        focusId: shown && msg.focusId !== undefined ? msg.focusId : 0,
        highlighted: shown && msg.highlight,
        rendered: list.children.length,
        focusText: focusBody?.textContent ?? undefined,
        focusHash: shown ? focusRow?.dataset.hash : undefined,
        notice: msg.notice,
        digestText: msg.digest ? (digestBox.textContent ?? undefined) : undefined,
        activeElements: activeElements(),
        images: list.querySelectorAll('figure.att.image img[src]').length,
      });
      saveState();
      if (reportAfterJump !== undefined && msg.focusId === reportAfterJump) {
        for (const id of findIds) document.getElementById(`m${id}`)?.classList.add('found');
        reportFound(reportAfterJump);
        reportAfterJump = undefined;
      }
      // Let layout settle before the observers may ask for more.
      requestAnimationFrame(() => checkEdges());
      break;
    }
    case 'page': {
      if (msg.direction === 'before') {
        loadingBefore = false;
        hasBefore = msg.hasMore;
        const before = scroller.scrollHeight;
        const frag = document.createDocumentFragment();
        for (const m of msg.messages) frag.appendChild(renderMessage(m));
        list.insertBefore(frag, list.firstChild);
        scroller.scrollTop += scroller.scrollHeight - before;
        trim('bottom');
      } else {
        loadingAfter = false;
        hasAfter = msg.hasMore;
        const frag = document.createDocumentFragment();
        for (const m of msg.messages) frag.appendChild(renderMessage(m));
        list.appendChild(frag);
        trim('top');
      }
      updateSentinels();
      const ids = renderedIds();
      post({
        type: 'paged',
        direction: msg.direction,
        added: msg.messages.length,
        rendered: ids.length,
        hasMore: msg.direction === 'before' ? hasBefore : hasAfter,
        firstId: ids[0] ?? 0,
        lastId: ids[ids.length - 1] ?? 0,
      });
      requestAnimationFrame(() => checkEdges());
      break;
    }
    case 'findResults': {
      findQuery = msg.query;
      findIds = msg.ids;
      for (const f of Array.from(list.querySelectorAll('.found'))) f.classList.remove('found');
      for (const id of findIds) document.getElementById(`m${id}`)?.classList.add('found');
      if (msg.error) {
        findCount.textContent = msg.error;
        reportFound(0);
      } else if (!findIds.length) {
        findCount.textContent = 'No results';
        reportFound(0);
      } else {
        findIndex = 0;
        if (gotoFind(0)) reportFound(findIds[0]);
        else reportAfterJump = findIds[0];
      }
      break;
    }
    case 'setFind': {
      runFind(msg.query);
      break;
    }
    case 'scrollEdge': {
      scroller.scrollTop = msg.edge === 'top' ? 0 : scroller.scrollHeight;
      checkEdges();
      break;
    }
    case 'error': {
      banner.hidden = false;
      banner.classList.remove('notice');
      banner.textContent = msg.message;
      loadingBefore = loadingAfter = false;
      break;
    }
  }
}

/** Moves to the next/previous match; false when it had to ask the host to load the match's surroundings. */
function gotoFind(delta: number): boolean {
  if (!findIds.length) return false;
  findIndex = (findIndex + delta + findIds.length) % findIds.length;
  const id = findIds[findIndex];
  findCount.textContent = `${findIndex + 1} of ${findIds.length}${findIds.length >= 500 ? '+' : ''}`;
  if (focusMessage(id, true)) return true;
  post({ type: 'jump', messageId: id });
  return false;
}

let reportAfterJump: number | undefined;
function reportFound(id: number): void {
  const row = id ? document.getElementById(`m${id}`) : null;
  post({
    type: 'found',
    query: findQuery,
    count: findIds.length,
    currentId: id,
    highlighted: !!row?.classList.contains('highlight'),
  });
}

function runFind(q: string): void {
  findInput.value = q;
  findCount.textContent = 'Searching…';
  post({ type: 'find', query: q });
}

function nearTop(): boolean {
  return scroller.scrollTop < 400;
}
function nearBottom(): boolean {
  return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 400;
}

function checkEdges(): void {
  if (!conversation || !list.children.length) return;
  const ids = renderedIds();
  if (hasBefore && !loadingBefore && nearTop()) {
    loadingBefore = true;
    post({ type: 'loadMore', direction: 'before', edgeId: ids[0] });
  }
  if (hasAfter && !loadingAfter && nearBottom()) {
    loadingAfter = true;
    post({ type: 'loadMore', direction: 'after', edgeId: ids[ids.length - 1] });
  }
}

let scrollTimer: ReturnType<typeof setTimeout> | undefined;
scroller.addEventListener('scroll', () => {
  checkEdges();
  clearTimeout(scrollTimer);
  scrollTimer = setTimeout(saveState, 300);
});

findInput.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter') {
    const q = findInput.value.trim();
    if (!q) return;
    if (q === findQuery && findIds.length) gotoFind(ev.shiftKey ? -1 : 1);
    else {
      findCount.textContent = 'Searching…';
      post({ type: 'find', query: q });
    }
  } else if (ev.key === 'Escape') {
    findInput.value = '';
    findIds = [];
    findQuery = '';
    findCount.textContent = '';
    for (const f of Array.from(list.querySelectorAll('.found'))) f.classList.remove('found');
  }
});
findNext.addEventListener('click', () => gotoFind(1));
findPrev.addEventListener('click', () => gotoFind(-1));

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => onMessage(ev.data));
post({ type: 'ready', state: vscode.getState() });
