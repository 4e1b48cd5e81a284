/**
 * Holds the open archive: opens it lazily, reopens when the file was replaced (checked on every call), never caches a
 * failure. `check()` (files' fingerprint now versus at open) is the change detector the runtime's poll runs.
 */
import { ArchiveError, currentStamps, fingerprint, type FileStamp, stamp } from '../archive/index';
import { schemaNotice } from './compatibility';
import type { OpenedArchive, ArchiveOpener, RuntimeLog } from './types';

export interface HeldArchive {
  readonly opened: OpenedArchive;
  /** Bumps on every (re)open. */
  readonly generation: number;
  /** The database file's stamp at open: another dev/ino at the path means the file was replaced. */
  readonly db: FileStamp | null;
  readonly openedAt: string;
}

/** The fingerprint of the archive files at `file` now (two stats). */
export function archiveFingerprint(file: string): string {
  return fingerprint(currentStamps(file));
}

/** Another file (or none) at the path than the one opened. */
const replaced = (held: HeldArchive, db: FileStamp | null) =>
  !db || !held.db || db.dev !== held.db.dev || db.ino !== held.db.ino;

export class ArchiveHolder {
  private current?: HeldArchive;
  private opening?: { token: number; promise: Promise<HeldArchive> };
  private readonly retired = new Map<OpenedArchive, NodeJS.Timeout>();
  private token = 0;
  private generation = 0;
  private disposed = false;
  /** The last open's failure, with the configured path's fingerprint at that moment (the poll retries on a change). */
  lastError?: { message: string; code?: string; fingerprint: string };
  isOpening = false;

  /** `configuredPath` '' means no archive is selected: calls reject with `missingMessage()`. */
  constructor(
    public configuredPath: string,
    private readonly opener: ArchiveOpener,
    private readonly log: RuntimeLog,
    private readonly graceMs: number,
    private readonly onEvent: (
      e: { kind: 'opened'; path: string } | { kind: 'error'; error: string } | { kind: 'replaced' },
    ) => void,
    private readonly missingMessage: () => string = () => 'No msgbrowse archive is selected.',
  ) {}

  /** The change detector: the open archive's files now versus at open. */
  check() {
    const held = this.current;
    if (!held) return undefined;
    const now = currentStamps(held.opened.path);
    return { held, fingerprint: fingerprint(now), replaced: replaced(held, now.db), gone: !now.db };
  }

  /** The open archive, without checking the disk. */
  peek(): HeldArchive | undefined {
    return this.current;
  }

  setPath(p: string): void {
    this.configuredPath = p;
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
    const held = this.current;
    if (held) {
      // Every call: one stat, since only a replaced database file matters here (the poll watches the rest).
      const db = stamp(held.opened.path);
      if (!replaced(held, db)) return held;
      const p = held.opened.path;
      this.log('info', db ? `archive file was replaced: reopening ${p}` : `archive file disappeared: ${p}`);
      this.invalidate();
      this.onEvent({ kind: 'replaced' });
    }
    if (this.configuredPath === '') throw new ArchiveError('no_archive_selected', this.missingMessage());
    if (!this.opening) {
      const token = this.token;
      this.opening = { token, promise: this.open(token) };
    }
    return this.opening.promise;
  }

  private async open(token: number): Promise<HeldArchive> {
    const wanted = this.configuredPath;
    this.isOpening = true;
    try {
      const opened = await this.opener(wanted);
      if (this.disposed || token !== this.token) {
        // Settings changed while opening: discard and serve the new settings instead.
        await opened.archive.close().catch(() => {});
        if (this.disposed) throw new Error('the msgbrowse server is shutting down');
        return this.get();
      }
      const stamps = currentStamps(opened.path);
      const held: HeldArchive = { opened, generation: ++this.generation, db: stamps.db, openedAt: fingerprint(stamps) };
      this.current = held;
      this.lastError = undefined;
      const notice = schemaNotice(opened.schemaVersion);
      this.log('info', `opened archive ${opened.path}${notice ? ` (${notice})` : ''}`);
      this.onEvent({ kind: 'opened', path: opened.path });
      return held;
    } catch (e) {
      if (token === this.token && !this.disposed) {
        const message = e instanceof Error ? e.message : String(e);
        const code = (e as { code?: unknown }).code;
        const changed = this.lastError?.message !== message;
        const fingerprint = archiveFingerprint(wanted);
        this.lastError = { message, code: typeof code === 'string' ? code : undefined, fingerprint };
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
