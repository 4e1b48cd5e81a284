/**
 * Holds the open archive: opens it lazily on first use, checks per call (one stat) whether the file was
 * replaced, reopens when it was, and never caches a failure (the next call retries).
 */
import * as fs from 'node:fs';
import type { OpenedArchive, ArchiveOpener, RuntimeLog } from './types';

export interface HeldArchive {
  readonly opened: OpenedArchive;
  /** Bumps on every (re)open. */
  readonly generation: number;
  readonly dev: number;
  readonly ino: number;
}

function identity(file: string): { dev: number; ino: number } | undefined {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? { dev: st.dev, ino: st.ino } : undefined;
}

/** db + -wal stat fingerprint: changes on every commit or checkpoint (cheap: two stats). */
export function stateStamp(file: string): string {
  const f = (p: string) => {
    const st = fs.statSync(p, { throwIfNoEntry: false, bigint: true });
    return st ? `${st.ino}:${st.size}:${st.mtimeNs}` : '-';
  };
  return `${f(file)}|${f(`${file}-wal`)}`;
}

export class ArchiveHolder {
  private current?: HeldArchive;
  private opening?: { token: number; promise: Promise<HeldArchive> };
  private readonly retired = new Map<OpenedArchive, NodeJS.Timeout>();
  private token = 0;
  private generation = 0;
  private disposed = false;
  lastError?: { message: string; code?: string };
  isOpening = false;

  constructor(
    private path: string,
    private readonly opener: ArchiveOpener,
    private readonly log: RuntimeLog,
    private readonly graceMs: number,
    private readonly onEvent: (e: { kind: 'opened'; path: string } | { kind: 'error'; error: string } | { kind: 'replaced' }) => void,
  ) {}

  get configuredPath(): string {
    return this.path;
  }

  /** The currently open archive without checking the disk (may be undefined). */
  peek(): HeldArchive | undefined {
    return this.current;
  }

  setPath(p: string): void {
    this.path = p;
    this.invalidate();
  }

  /** Drops the current handle (closed after the grace period); the next `get()` reopens. */
  invalidate(): void {
    this.token++;
    this.opening = undefined;
    if (this.current) this.retire(this.current.opened);
    this.current = undefined;
  }

  async get(): Promise<HeldArchive> {
    if (this.disposed) throw new Error('the msgbrowse server is shutting down');
    const cur = this.current;
    if (cur) {
      const id = identity(cur.opened.path);
      if (id && id.dev === cur.dev && id.ino === cur.ino) return cur;
      this.log('info', id ? `archive file was replaced: reopening ${cur.opened.path}` : `archive file disappeared: ${cur.opened.path}`);
      this.invalidate();
      this.onEvent({ kind: 'replaced' });
    }
    if (!this.opening) {
      const token = this.token;
      this.opening = { token, promise: this.open(token) };
    }
    return this.opening.promise;
  }

  private async open(token: number): Promise<HeldArchive> {
    const wanted = this.path;
    this.isOpening = true;
    try {
      const opened = await this.opener(wanted);
      if (this.disposed || token !== this.token) {
        // Settings changed while opening: discard and serve the new settings instead.
        await opened.archive.close().catch(() => {});
        if (this.disposed) throw new Error('the msgbrowse server is shutting down');
        return this.get();
      }
      const id = identity(opened.path) ?? { dev: -1, ino: -1 };
      const held: HeldArchive = { opened, generation: ++this.generation, dev: id.dev, ino: id.ino };
      this.current = held;
      this.lastError = undefined;
      this.log('info', `opened archive ${opened.path}`);
      this.onEvent({ kind: 'opened', path: opened.path });
      return held;
    } catch (e) {
      if (token === this.token && !this.disposed) {
        const message = e instanceof Error ? e.message : String(e);
        const code = (e as { code?: unknown }).code;
        const changed = this.lastError?.message !== message;
        this.lastError = { message, code: typeof code === 'string' ? code : undefined };
        if (changed) {
          this.log('error', `cannot open archive ${wanted}: ${message}`);
          this.onEvent({ kind: 'error', error: message });
        }
      }
      throw e;
    } finally {
      if (this.opening?.token === token) this.opening = undefined;
      this.isOpening = false;
    }
  }

  private retire(opened: OpenedArchive): void {
    const t = setTimeout(() => {
      this.retired.delete(opened);
      opened.archive.close().catch(() => {});
    }, this.graceMs);
    t.unref();
    this.retired.set(opened, t);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.invalidate();
    const all = [...this.retired.keys()];
    for (const t of this.retired.values()) clearTimeout(t);
    this.retired.clear();
    await Promise.all(all.map((o) => o.archive.close().catch(() => {})));
  }
}
