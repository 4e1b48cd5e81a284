/**
 * The thread view's DOM: a model (model.ts) as conversation sections of message articles. Message data is only ever
 * inserted with textContent / DOM properties — never innerHTML — and every body gets dir="auto", so HTML, scripts,
 * RTL overrides and very long lines stay inert, wrapped text. Keyboard: one message is in the tab order (roving
 * tabindex); ↑/↓, Home/End move between messages, Enter opens the message, the buttons act on it.
 */
import { dayAndTime, type Highlight, type ThreadMessage, type ThreadModel, type ToolCall } from './model';

export interface ViewActions {
  open(m: ThreadMessage): void;
  more(m: ThreadMessage, button: HTMLButtonElement): void;
  ask(m: ThreadMessage): void;
  /** Loads the next page of the result (the model's page.next). */
  next(call: ToolCall, button: HTMLButtonElement): void;
}

const BADGE: Record<Highlight, string> = { cited: 'cited', best: 'best match', first: 'first' };
const KIND_ICON: Record<string, string> = { image: '🖼', video: '🎞', audio: '🎵', file: '📎' };

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Search snippets mark matches as **…**: those become <mark> elements holding text; everything else text nodes. */
function appendText(parent: HTMLElement, text: string, snippets: boolean): void {
  if (!snippets) {
    parent.textContent = text;
    return;
  }
  const parts = text.split(/\*\*(.+?)\*\*/s);
  parts.forEach((part, i) => {
    if (!part) return;
    parent.appendChild(i % 2 ? el('mark', undefined, part) : document.createTextNode(part));
  });
}

/** The body as it reads (snippet markers removed), for labels. */
const plain = (text: string, snippets: boolean) => (snippets ? text.replace(/\*\*(.+?)\*\*/gs, '$1') : text);

const dayOf = (ts: string) => dayAndTime(ts).day;
const timeOf = (ts: string) => dayAndTime(ts).time;

function reactionsOf(m: ThreadMessage): HTMLElement | undefined {
  if (!m.reactions?.length) return undefined;
  const byEmoji = new Map<string, string[]>();
  for (const r of m.reactions) byEmoji.set(r.emoji, [...(byEmoji.get(r.emoji) ?? []), r.actor]);
  const box = el('ul', 'reactions');
  box.setAttribute('aria-label', 'Reactions');
  for (const [emoji, actors] of byEmoji) {
    const chip = el('li', 'reaction', `${emoji} ${actors.length}`);
    chip.title = actors.join(', ');
    chip.setAttribute('aria-label', `${emoji} from ${actors.join(', ')}`);
    box.appendChild(chip);
  }
  return box;
}

function attachmentsOf(m: ThreadMessage): HTMLElement | undefined {
  if (!m.attachments?.length) return undefined;
  const box = el('ul', 'attachments');
  box.setAttribute('aria-label', 'Attachments');
  for (const a of m.attachments) {
    const kind = a.kind && KIND_ICON[a.kind] ? a.kind : 'file';
    const chip = el('li', `attachment ${kind}`, `${KIND_ICON[kind]} ${a.name || 'attachment'}`);
    chip.setAttribute('aria-label', `${kind} ${a.name || 'attachment'}`);
    box.appendChild(chip);
  }
  return box;
}

function button(label: string, cls: string, title: string, act: (b: HTMLButtonElement) => void): HTMLButtonElement {
  const b = el('button', cls, label);
  b.type = 'button';
  b.title = title;
  b.tabIndex = -1;
  b.addEventListener('click', (ev) => {
    ev.stopPropagation();
    act(b);
  });
  b.addEventListener('keydown', (ev) => ev.stopPropagation());
  return b;
}

function messageArticle(m: ThreadMessage, model: ThreadModel, continued: boolean, actions: ViewActions): HTMLElement {
  const row = el('article', 'msg');
  row.setAttribute('role', 'listitem');
  row.dataset.hash = m.hash;
  row.dataset.id = String(m.message_id);
  row.tabIndex = -1;
  const highlight = model.focus?.hash === m.hash ? model.focus.kind : undefined;
  if (highlight) row.classList.add('highlight', highlight);
  if (m.added) row.classList.add('added');
  if (continued) row.classList.add('continued');

  const meta = el('header', 'meta');
  const sender = el('span', 'sender', m.sender);
  sender.dir = 'auto';
  meta.appendChild(sender);
  const time = el('time', 'time', timeOf(m.timestamp));
  time.dateTime = m.timestamp;
  time.title = m.timestamp;
  meta.appendChild(time);
  if (highlight) meta.appendChild(el('span', 'badge', BADGE[highlight]));
  if (m.added) meta.appendChild(el('span', 'badge added', 'context'));
  row.appendChild(meta);

  const body = el('div', 'body');
  body.dir = 'auto';
  appendText(body, m.text, model.snippets);
  row.appendChild(body);
  const atts = attachmentsOf(m);
  if (atts) row.appendChild(atts);
  const rx = reactionsOf(m);
  if (rx) row.appendChild(rx);

  const bar = el('div', 'actions');
  bar.appendChild(button('Open', 'open', 'Open this message in the conversation viewer', () => actions.open(m)));
  bar.appendChild(
    button('Show more context', 'more', 'Load the messages around this one (get_context)', (b) => actions.more(m, b)),
  );
  bar.appendChild(
    button('Ask about this', 'ask', 'Ask Copilot about this message (with its citation)', () => actions.ask(m)),
  );
  row.appendChild(bar);

  const preview = plain(m.text, model.snippets);
  row.setAttribute(
    'aria-label',
    `${m.sender}, ${m.timestamp}${highlight ? `, ${BADGE[highlight]}` : ''}${m.reactions?.length ? `, ${m.reactions.length} reactions` : ''}: ${preview.length > 160 ? `${preview.slice(0, 160)}…` : preview}`,
  );
  row.addEventListener('click', () => actions.open(m));
  return row;
}

/** Replaces `root`'s content with the model; returns the highlighted message's element. */
export function renderModel(root: HTMLElement, model: ThreadModel, actions: ViewActions): HTMLElement | undefined {
  root.replaceChildren();
  const head = el('header', 'head');
  head.appendChild(el('h1', 'title', model.title));
  root.appendChild(head);
  for (const section of model.sections) {
    const sec = el('section', 'section');
    if (section.heading) {
      sec.appendChild(el('h2', 'section-heading', section.heading));
      sec.setAttribute('aria-label', section.heading);
    }
    for (const g of section.groups) {
      const conv = el('section', 'conv');
      conv.dataset.key = g.key;
      conv.setAttribute(
        'aria-label',
        `${g.conversation} (${g.source}), ${g.messages.length} message${g.messages.length === 1 ? '' : 's'}`,
      );
      const h = el('h3', 'conv-name');
      const name = el('span', 'name', g.conversation);
      name.dir = 'auto';
      h.appendChild(name);
      if (g.source) h.appendChild(el('span', 'source', g.source));
      conv.appendChild(h);
      const list = el('div', 'msgs');
      list.setAttribute('role', 'list');
      let prev: ThreadMessage | undefined;
      for (const m of g.messages) {
        if (!prev || dayOf(prev.timestamp) !== dayOf(m.timestamp)) {
          const day = el('div', 'day', dayOf(m.timestamp) || m.timestamp);
          day.setAttribute('role', 'separator');
          list.appendChild(day);
          prev = undefined;
        }
        list.appendChild(messageArticle(m, model, prev?.sender === m.sender, actions));
        prev = m;
      }
      conv.appendChild(list);
      sec.appendChild(conv);
    }
    root.appendChild(sec);
  }
  if (model.page) {
    // Which part of the whole this page is, and the next part (the same tool with the result's cursor).
    const foot = el('footer', 'page');
    if (model.page.note) foot.appendChild(el('span', 'page-note', model.page.note));
    const next = model.page.next;
    if (next) {
      const b = button('Next page', 'next', `Load the next page (${next.name} with its cursor)`, (btn) =>
        actions.next(next, btn),
      );
      b.tabIndex = 0;
      foot.appendChild(b);
    }
    root.appendChild(foot);
  }
  const rows = messages(root);
  const focus = (model.focus && rows.find((r) => r.dataset.hash === model.focus?.hash)) ?? rows[0];
  if (focus) setActive(root, focus);
  return focus;
}

const messages = (root: HTMLElement) => Array.from(root.querySelectorAll<HTMLElement>('article.msg'));

/** The roving tabindex: `row` and its buttons are in the tab order, every other message is not. */
export function setActive(root: HTMLElement, row: HTMLElement, focus = false): void {
  for (const r of messages(root)) {
    const on = r === row;
    r.tabIndex = on ? 0 : -1;
    r.classList.toggle('active', on);
    for (const b of Array.from(r.querySelectorAll('button'))) b.tabIndex = on ? 0 : -1;
  }
  if (focus) {
    row.focus();
    row.scrollIntoView({ block: 'nearest' });
  }
}

/** ↑/↓/Home/End between messages, Enter/Space opens the message (handlers on the root, once). */
export function installKeyboard(root: HTMLElement, open: (row: HTMLElement) => void): void {
  root.addEventListener('focusin', (ev) => {
    const row = (ev.target as HTMLElement).closest?.('article.msg') as HTMLElement | null;
    if (row && row.tabIndex !== 0) setActive(root, row);
  });
  root.addEventListener('keydown', (ev) => {
    const row = (ev.target as HTMLElement).closest?.('article.msg') as HTMLElement | null;
    if (!row) return;
    const rows = messages(root);
    const i = rows.indexOf(row);
    const to = (j: number) => {
      ev.preventDefault();
      setActive(root, rows[Math.max(0, Math.min(rows.length - 1, j))], true);
    };
    if (ev.key === 'ArrowDown') to(i + 1);
    else if (ev.key === 'ArrowUp') to(i - 1);
    else if (ev.key === 'Home') to(0);
    else if (ev.key === 'End') to(rows.length - 1);
    else if ((ev.key === 'Enter' || ev.key === ' ') && ev.target === row) {
      ev.preventDefault();
      open(row);
    }
  });
}
