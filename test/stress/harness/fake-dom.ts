/**
 * A minimal DOM, enough to run the viewer webview script (media/viewer/main.ts) outside a browser and
 * inspect what it builds. Every HTML-parsing entry point (innerHTML, outerHTML, insertAdjacentHTML,
 * document.write, DOMParser, createContextualFragment) is recorded as a violation: message data must
 * only ever become text nodes.
 */

export class FakeNode {
  parent: FakeElement | undefined;
  constructor(readonly nodeType: number) {}
  remove(): void {
    if (this.parent) {
      const i = this.parent.childNodes.indexOf(this);
      if (i >= 0) this.parent.childNodes.splice(i, 1);
      this.parent = undefined;
    }
  }
  get textContent(): string {
    return '';
  }
  set textContent(_v: string) {
    /* overridden by elements */
  }
}

export class FakeText extends FakeNode {
  constructor(public data: string) {
    super(3);
  }
  override get textContent(): string {
    return this.data;
  }
}

export interface DomLog {
  violations: string[];
  created: string[];
}

export class FakeElement extends FakeNode {
  childNodes: FakeNode[] = [];
  attrs = new Map<string, string>();
  dataset: Record<string, string> = {};
  listeners = new Map<string, ((ev: unknown) => void)[]>();
  hidden = false;
  scrollTop = 0;
  scrollHeight = 1000;
  clientHeight = 500;
  offsetHeight = 20;
  private readonly classes = new Set<string>();
  [key: string]: unknown;

  constructor(
    readonly tagName: string,
    readonly log: DomLog,
    readonly doc: FakeDocument,
  ) {
    super(1);
  }

  get id(): string {
    return this.attrs.get('id') ?? '';
  }
  set id(v: string) {
    this.attrs.set('id', v);
  }
  get className(): string {
    return [...this.classes].join(' ');
  }
  set className(v: string) {
    this.classes.clear();
    for (const c of v.split(/\s+/).filter(Boolean)) this.classes.add(c);
  }
  get classList() {
    return {
      add: (...c: string[]) => {
        for (const x of c) this.classes.add(x);
      },
      remove: (...c: string[]) => {
        for (const x of c) this.classes.delete(x);
      },
      contains: (c: string) => this.classes.has(c),
      toggle: (c: string) => (this.classes.has(c) ? (this.classes.delete(c), false) : (this.classes.add(c), true)),
    };
  }
  get attributes(): { name: string; value: string }[] {
    return [...this.attrs].map(([name, value]) => ({ name, value }));
  }
  setAttribute(name: string, value: string): void {
    if (/^on/i.test(name)) this.log.violations.push(`setAttribute(${name}) on <${this.tagName}>`);
    this.attrs.set(name.toLowerCase(), String(value));
  }
  getAttribute(name: string): string | null {
    return this.attrs.get(name.toLowerCase()) ?? null;
  }
  override get textContent(): string {
    return this.childNodes.map((c) => c.textContent).join('');
  }
  override set textContent(v: string) {
    for (const c of this.childNodes) c.parent = undefined;
    this.childNodes = v === '' ? [] : [this.adopt(new FakeText(String(v)))];
  }
  set innerHTML(v: string) {
    this.log.violations.push(`innerHTML on <${this.tagName}>: ${String(v).slice(0, 80)}`);
  }
  get innerHTML(): string {
    return '';
  }
  set outerHTML(v: string) {
    this.log.violations.push(`outerHTML on <${this.tagName}>: ${String(v).slice(0, 80)}`);
  }
  insertAdjacentHTML(_pos: string, v: string): void {
    this.log.violations.push(`insertAdjacentHTML on <${this.tagName}>: ${String(v).slice(0, 80)}`);
  }
  private adopt(n: FakeNode): FakeNode {
    n.remove();
    n.parent = this;
    return n;
  }
  appendChild(n: FakeNode): FakeNode {
    if (n instanceof FakeElement && n.tagName === '#fragment') {
      for (const c of [...n.childNodes]) this.appendChild(c);
      return n;
    }
    this.childNodes.push(this.adopt(n));
    return n;
  }
  append(...ns: FakeNode[]): void {
    for (const n of ns) this.appendChild(n);
  }
  insertBefore(n: FakeNode, ref: FakeNode | null | undefined): FakeNode {
    if (!ref) return this.appendChild(n);
    const nodes = n instanceof FakeElement && n.tagName === '#fragment' ? [...n.childNodes] : [n];
    for (const x of nodes) {
      this.adopt(x);
      const i = this.childNodes.indexOf(ref);
      this.childNodes.splice(i < 0 ? this.childNodes.length : i, 0, x);
    }
    return n;
  }
  replaceChildren(...ns: FakeNode[]): void {
    for (const c of this.childNodes) c.parent = undefined;
    this.childNodes = [];
    for (const n of ns) this.appendChild(n);
  }
  get children(): FakeElement[] {
    return this.childNodes.filter((c): c is FakeElement => c instanceof FakeElement);
  }
  get firstChild(): FakeNode | null {
    return this.childNodes[0] ?? null;
  }
  get firstElementChild(): FakeElement | null {
    return this.children[0] ?? null;
  }
  get lastElementChild(): FakeElement | null {
    const c = this.children;
    return c[c.length - 1] ?? null;
  }
  addEventListener(type: string, fn: (ev: unknown) => void): void {
    (this.listeners.get(type) ?? this.listeners.set(type, []).get(type)!).push(fn);
  }
  removeEventListener(): void {}
  dispatch(type: string, ev: unknown): void {
    for (const fn of this.listeners.get(type) ?? []) fn(ev);
  }
  getBoundingClientRect() {
    return { top: 0, bottom: 20, left: 0, right: 100, width: 100, height: 20 };
  }
  scrollIntoView(): void {}
  focus(): void {}
  /** Every element below this one (depth first). */
  descendants(): FakeElement[] {
    return this.children.flatMap((c) => [c, ...c.descendants()]);
  }
  /** Text nodes below this one. */
  texts(): FakeText[] {
    return this.childNodes.flatMap((c) => (c instanceof FakeText ? [c] : c instanceof FakeElement ? c.texts() : []));
  }
  private matches(sel: string): boolean {
    return sel.split(',').some((raw) => {
      const s = raw.trim();
      if (s === '*') return true;
      if (s.startsWith('.')) return this.classes.has(s.slice(1));
      if (s.startsWith('#')) return this.id === s.slice(1);
      return this.tagName === s.toLowerCase();
    });
  }
  querySelectorAll(sel: string): FakeElement[] {
    return this.descendants().filter((d) => d.matches(sel));
  }
  querySelector(sel: string): FakeElement | null {
    return this.querySelectorAll(sel)[0] ?? null;
  }
}

export class FakeDocument {
  readonly log: DomLog = { violations: [], created: [] };
  readonly body: FakeElement;
  title = '';
  constructor(ids: string[]) {
    this.body = new FakeElement('body', this.log, this);
    for (const id of ids) {
      const e = new FakeElement('div', this.log, this);
      e.id = id;
      this.body.appendChild(e);
    }
  }
  createElement(tag: string): FakeElement {
    const t = String(tag).toLowerCase();
    this.log.created.push(t);
    return new FakeElement(t, this.log, this);
  }
  createTextNode(data: string): FakeText {
    return new FakeText(String(data));
  }
  createDocumentFragment(): FakeElement {
    return new FakeElement('#fragment', this.log, this);
  }
  getElementById(id: string): FakeElement | null {
    if (this.body.id === id) return this.body;
    return this.body.descendants().find((d) => d.id === id) ?? null;
  }
  querySelectorAll(sel: string): FakeElement[] {
    return this.body.querySelectorAll(sel);
  }
  querySelector(sel: string): FakeElement | null {
    return this.body.querySelector(sel);
  }
  write(v: string): void {
    this.log.violations.push(`document.write: ${String(v).slice(0, 80)}`);
  }
  createRange() {
    return {
      createContextualFragment: (v: string) => {
        this.log.violations.push(`createContextualFragment: ${String(v).slice(0, 80)}`);
        return this.createDocumentFragment();
      },
    };
  }
}
