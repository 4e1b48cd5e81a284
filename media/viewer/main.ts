/** The conversation viewer in the webview: message data only ever goes in as text nodes and DOM properties. */
import type {
  FromWebview,
  ToWebview,
  ViewerConversation,
  ViewerMessage,
  ViewerState,
} from '../../src/extension/viewer/webview-protocol';

declare function acquireVsCodeApi(): {
  postMessage(msg: FromWebview): void;
  getState(): ViewerState | undefined;
  setState(state: ViewerState): void;
};

const vscode = acquireVsCodeApi();
const MAX_RENDERED = 1500;
const EDGE_PX = 400;

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const list = $<HTMLDivElement>('messages');
const scroller = $<HTMLDivElement>('scroller');
const findInput = $<HTMLInputElement>('find');
const findCount = $<HTMLElement>('find-count');
const topSentinel = $<HTMLDivElement>('top');
const bottomSentinel = $<HTMLDivElement>('bottom');
const banner = $<HTMLDivElement>('banner');
const digestBox = $<HTMLElement>('digest');

let conversation: ViewerConversation | undefined;
/** Whether there are more messages past each edge, and whether a page of them was asked for. */
const more = { before: false, after: false };
const loading = { before: false, after: false };
let highlightId: number | undefined;
let findIds: number[] = [];
let findIndex = -1;
let findQuery = '';
/** A find match the host is loading the surroundings of: reported once it is shown. */
let reportAfterJump: number | undefined;

const post = (m: FromWebview) => vscode.postMessage(m);
const row = (id: number) => document.getElementById(`m${id}`);
const renderedIds = () => Array.from(list.children, (c) => Number((c as HTMLElement).dataset.id));

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

function attachment(a: ViewerMessage['attachments'][number]): HTMLElement {
  if (a.src && a.kind === 'image') {
    const fig = el('figure', 'att image');
    const img = el('img');
    img.src = a.src;
    img.alt = a.name;
    img.loading = 'lazy';
    fig.append(img, el('figcaption', undefined, a.name));
    return fig;
  }
  const icon = a.kind === 'video' ? '🎞' : a.kind === 'image' ? '🖼' : '📎';
  const chip = el('span', `att chip ${a.kind}`, `${icon} ${a.name || a.relPath || 'attachment'}`);
  chip.title = a.relPath || a.name;
  return chip;
}

function renderMessage(m: ViewerMessage): HTMLElement {
  const article = el('article', m.isSystem ? 'msg system' : 'msg');
  article.id = `m${m.id}`;
  article.dataset.id = String(m.id);
  article.dataset.hash = m.hash;
  const meta = el('header', 'meta');
  const copy = el('button', 'copy', 'Copy citation');
  copy.title = 'Copy a citation link to this message';
  // The citation carries the message hash, so it still finds this message after a re-import shifts the ids.
  copy.addEventListener('click', () => post({ type: 'copyCitation', messageId: m.id, hash: m.hash }));
  meta.append(el('span', 'sender', m.isSystem ? 'system' : m.sender), el('time', 'time', m.ts), copy);
  const body = el('div', 'body');
  appendBody(body, m.body);
  article.append(meta, body);
  if (m.attachments.length) {
    const atts = el('div', 'attachments');
    atts.append(...m.attachments.map(attachment));
    article.appendChild(atts);
  }
  if (m.reactions.length) {
    const rx = el('div', 'reactions');
    for (const r of m.reactions) {
      const chip = el('span', 'reaction', `${r.emoji} ${r.actors.length}`);
      chip.title = r.actors.join(', ');
      rx.appendChild(chip);
    }
    article.appendChild(rx);
  }
  if (m.id === highlightId) article.classList.add('highlight');
  if (findIds.includes(m.id)) article.classList.add('found');
  return article;
}

/** Elements message data must never produce (bodies are text nodes; only our own anchors/images exist). */
function activeElements(): number {
  let n = list.querySelectorAll('script, iframe, object, embed, style, link, form').length;
  for (const e of Array.from(list.querySelectorAll('*'))) {
    if (Array.from(e.attributes).some((a) => a.name.toLowerCase().startsWith('on'))) n++;
  }
  return n;
}

function saveState(): void {
  if (!conversation) return;
  const highlightHash = highlightId !== undefined ? row(highlightId)?.dataset.hash : undefined;
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
  const first = (Array.from(list.children) as HTMLElement[]).find((c) => c.getBoundingClientRect().bottom > top);
  return first && Number(first.dataset.id);
}

function focusMessage(id: number, highlight: boolean): boolean {
  const r = row(id);
  if (!r) return false;
  if (highlight) {
    for (const h of Array.from(list.querySelectorAll('.highlight'))) h.classList.remove('highlight');
    r.classList.add('highlight');
    highlightId = id;
  }
  r.scrollIntoView({ block: 'center' });
  return true;
}

function markFound(): void {
  for (const f of Array.from(list.querySelectorAll('.found'))) f.classList.remove('found');
  for (const id of findIds) row(id)?.classList.add('found');
}

function trim(from: 'top' | 'bottom'): void {
  while (list.children.length > MAX_RENDERED) {
    if (from === 'top') {
      const first = list.firstElementChild as HTMLElement;
      const h = first.offsetHeight;
      first.remove();
      scroller.scrollTop -= h;
      more.before = true;
    } else {
      list.lastElementChild?.remove();
      more.after = true;
    }
  }
}

function updateSentinels(): void {
  topSentinel.textContent = more.before ? 'Loading earlier messages…' : 'Beginning of conversation';
  bottomSentinel.textContent = more.after ? 'Loading later messages…' : 'End of conversation';
}

function load(msg: Extract<ToWebview, { type: 'load' }>): void {
  const c = (conversation = msg.conversation);
  $('title').textContent = c.name;
  $('subtitle').textContent = `${c.source} · ${c.messageCount.toLocaleString()} messages`;
  document.title = c.name;
  // A notice (e.g. the cited message moved after a re-import) stays visible above the messages.
  banner.hidden = !msg.notice;
  banner.classList.toggle('notice', !!msg.notice);
  banner.textContent = msg.notice ?? '';
  digestBox.replaceChildren();
  digestBox.hidden = !msg.digest;
  if (msg.digest) {
    digestBox.append(
      el('span', 'digest-head', `Journal · ${msg.digest.day}${msg.digest.stale ? ' (stale)' : ''}`),
      el('span', 'digest-mood', msg.digest.mood ? `· ${msg.digest.mood}` : ''),
      el('span', 'digest-summary', msg.digest.summary),
    );
  }
  more.before = msg.hasBefore;
  more.after = msg.hasAfter;
  highlightId = msg.highlight && msg.focusId !== undefined ? msg.focusId : undefined;
  list.replaceChildren(...msg.messages.map(renderMessage));
  updateSentinels();
  let shown = false;
  if (msg.focusId !== undefined) shown = focusMessage(msg.focusId, msg.highlight);
  else if (!more.after) scroller.scrollTop = scroller.scrollHeight;
  const focusRow = msg.focusId !== undefined ? row(msg.focusId) : undefined;
  post({
    type: 'shown',
    focusId: shown && msg.focusId !== undefined ? msg.focusId : 0,
    highlighted: shown && msg.highlight,
    rendered: list.children.length,
    focusText: focusRow?.querySelector('.body')?.textContent ?? undefined,
    focusHash: shown ? focusRow?.dataset.hash : undefined,
    notice: msg.notice,
    digestText: msg.digest ? (digestBox.textContent ?? undefined) : undefined,
    activeElements: activeElements(),
    images: list.querySelectorAll('figure.att.image img[src]').length,
  });
  saveState();
  if (reportAfterJump !== undefined && msg.focusId === reportAfterJump) {
    reportFound(reportAfterJump);
    reportAfterJump = undefined;
  }
  // Let layout settle before the observers may ask for more.
  requestAnimationFrame(() => checkEdges());
}

function page(msg: Extract<ToWebview, { type: 'page' }>): void {
  const rows = msg.messages.map(renderMessage);
  loading[msg.direction] = false;
  more[msg.direction] = msg.hasMore;
  if (msg.direction === 'before') {
    const height = scroller.scrollHeight;
    const frag = document.createDocumentFragment();
    frag.append(...rows);
    list.insertBefore(frag, list.firstChild);
    scroller.scrollTop += scroller.scrollHeight - height;
    trim('bottom');
  } else {
    list.append(...rows);
    trim('top');
  }
  updateSentinels();
  const ids = renderedIds();
  post({
    type: 'paged',
    direction: msg.direction,
    added: msg.messages.length,
    rendered: ids.length,
    hasMore: more[msg.direction],
    firstId: ids[0] ?? 0,
    lastId: ids[ids.length - 1] ?? 0,
  });
  requestAnimationFrame(() => checkEdges());
}

function onMessage(msg: ToWebview): void {
  switch (msg.type) {
    case 'load':
      return load(msg);
    case 'page':
      return page(msg);
    case 'findResults':
      findQuery = msg.query;
      findIds = msg.ids;
      markFound();
      if (msg.error || !findIds.length) {
        findCount.textContent = msg.error || 'No results';
        reportFound(0);
      } else {
        findIndex = 0;
        if (gotoFind(0)) reportFound(findIds[0]);
        else reportAfterJump = findIds[0];
      }
      return;
    case 'setFind':
      findInput.value = msg.query;
      return find(msg.query);
    case 'scrollEdge':
      scroller.scrollTop = msg.edge === 'top' ? 0 : scroller.scrollHeight;
      return checkEdges();
    case 'error':
      banner.hidden = false;
      banner.classList.remove('notice');
      banner.textContent = msg.message;
      loading.before = loading.after = false;
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

function reportFound(id: number): void {
  const r = id ? row(id) : null;
  post({
    type: 'found',
    query: findQuery,
    count: findIds.length,
    currentId: id,
    highlighted: !!r?.classList.contains('highlight'),
  });
}

function find(q: string): void {
  findCount.textContent = 'Searching…';
  post({ type: 'find', query: q });
}

function checkEdges(): void {
  if (!conversation || !list.children.length) return;
  const ids = renderedIds();
  if (more.before && !loading.before && scroller.scrollTop < EDGE_PX) {
    loading.before = true;
    post({ type: 'loadMore', direction: 'before', edgeId: ids[0] });
  }
  if (more.after && !loading.after && scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < EDGE_PX) {
    loading.after = true;
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
    if (q && q === findQuery && findIds.length) gotoFind(ev.shiftKey ? -1 : 1);
    else if (q) find(q);
  } else if (ev.key === 'Escape') {
    findInput.value = '';
    findIds = [];
    findQuery = '';
    findCount.textContent = '';
    markFound();
  }
});
$('find-next').addEventListener('click', () => gotoFind(1));
$('find-prev').addEventListener('click', () => gotoFind(-1));

window.addEventListener('message', (ev: MessageEvent<ToWebview>) => onMessage(ev.data));
post({ type: 'ready', state: vscode.getState() });
