/**
 * The disclosure ledger: one JSON line per tool call or resource read served to a model, never beside the archive.
 * Each line is one append, so concurrent writers never interleave; past `maxBytes` the file becomes `<file>.1`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isBesideArchive } from './cache-dir';

const LEDGER_VERSION = 1;
export const LEDGER_FILE_NAME = 'disclosures.jsonl';
/** Default size cap of the current file (the rotated one holds as much again). */
const LEDGER_MAX_BYTES = 4 * 1024 * 1024;

export interface DisclosedMessage {
  /** Full hash, or the 16-hex prefix a citation link carries. */
  hash: string;
  message_id?: number;
  conversation_id?: number;
}

/** What the MCP boundary reports after every tool call and resources/read (see ServerContext.disclose). */
export interface Disclosure {
  /** ISO 8601, UTC. */
  time: string;
  client?: { name: string; version?: string };
  kind: 'tool' | 'resource';
  /** Tool name, or resource template name (`message`, `conversation`). */
  name: string;
  /** The tool's arguments; `{ uri }` for a resource read. */
  arguments: unknown;
  ok: boolean;
  error?: string;
  messages: DisclosedMessage[];
}

export interface DisclosureEntry extends Disclosure {
  v: typeof LEDGER_VERSION;
}

/** Whether the ledger would be in or under the archive's directory (never written there). */
export function ledgerBesideArchive(ledgerFile: string, archiveFile: string): boolean {
  return isBesideArchive(path.dirname(path.resolve(ledgerFile)), archiveFile);
}

export const rotatedLedgerFile = (file: string): string => `${file}.1`;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses one line; undefined for anything that is not a ledger entry. */
export function parseLedgerLine(line: string): DisclosureEntry | undefined {
  const text = line.trim();
  if (!text) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(v) || v.v !== LEDGER_VERSION) return undefined;
  if (typeof v.time !== 'string' || typeof v.name !== 'string' || (v.kind !== 'tool' && v.kind !== 'resource'))
    return undefined;
  if (typeof v.ok !== 'boolean' || !Array.isArray(v.messages)) return undefined;
  const messages = v.messages.filter((m): m is DisclosedMessage => isRecord(m) && typeof m.hash === 'string');
  return { ...(v as unknown as DisclosureEntry), messages };
}

export interface LedgerContents {
  /** Newest first. */
  entries: DisclosureEntry[];
  /** Lines that could not be read. */
  skipped: number;
}

function readLines(file: string): string[] {
  try {
    return fs.readFileSync(file, 'utf8').split('\n');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** Reads the ledger (rotated file, then current), newest first; at most `limit` entries (default all). */
export function readLedger(file: string, limit = Infinity): LedgerContents {
  const lines = [...readLines(rotatedLedgerFile(file)), ...readLines(file)];
  const entries: DisclosureEntry[] = [];
  let skipped = 0;
  for (let i = lines.length - 1; i >= 0 && entries.length < limit; i--) {
    if (!lines[i].trim()) continue;
    const e = parseLedgerLine(lines[i]);
    if (e) entries.push(e);
    else skipped++;
  }
  return { entries, skipped };
}

interface LedgerWriterOptions {
  maxBytes?: number;
  /** The archive being served: the writer refuses to write into its directory. */
  archivePath?: () => string | undefined;
  onAppend?: (entry: DisclosureEntry) => void;
  /** Where write failures go (the ledger never fails a call). */
  log?: (message: string) => void;
}

/** Appends entries to `file` (created 0600 in a 0700 directory when missing). */
export class LedgerWriter {
  private checkedTail = false;

  constructor(
    readonly file: string,
    private readonly options: LedgerWriterOptions = {},
  ) {}

  /** Whether the entry was written; never throws. */
  append(d: Disclosure): boolean {
    const entry: DisclosureEntry = { v: LEDGER_VERSION, ...d };
    try {
      const archive = this.options.archivePath?.();
      if (archive && ledgerBesideArchive(this.file, archive))
        throw new Error(`refusing to write the ledger ${this.file} beside the archive ${archive}`);
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      this.rotateIfFull();
      // A torn last line (a crash mid-write) must not swallow the next entry: start on a fresh line.
      const prefix = this.checkedTail ? '' : this.tailNeedsNewline() ? '\n' : '';
      this.checkedTail = true;
      fs.appendFileSync(this.file, `${prefix}${JSON.stringify(entry)}\n`, { mode: 0o600 });
    } catch (e) {
      this.options.log?.(`disclosure ledger: ${e instanceof Error ? e.message : String(e)}`);
      return false;
    }
    try {
      this.options.onAppend?.(entry);
    } catch {
      /* a listener's failure is not the ledger's */
    }
    return true;
  }

  /** Removes every entry (the current and the rotated file). */
  clear(): void {
    for (const f of [this.file, rotatedLedgerFile(this.file)]) fs.rmSync(f, { force: true });
    this.checkedTail = true;
  }

  read(limit?: number): LedgerContents {
    return readLedger(this.file, limit);
  }

  private rotateIfFull(): void {
    const size = fs.statSync(this.file, { throwIfNoEntry: false })?.size ?? 0;
    if (size < (this.options.maxBytes ?? LEDGER_MAX_BYTES)) return;
    try {
      fs.renameSync(this.file, rotatedLedgerFile(this.file));
    } catch (e) {
      // Another writer rotated it first: fine.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    this.checkedTail = true;
  }

  private tailNeedsNewline(): boolean {
    let fd: number | undefined;
    try {
      fd = fs.openSync(this.file, 'r');
      const size = fs.fstatSync(fd).size;
      if (size === 0) return false;
      const b = Buffer.alloc(1);
      fs.readSync(fd, b, 0, 1, size - 1);
      return b[0] !== 0x0a;
    } catch {
      return false;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }
}

/**
 * Every message a result names, found generically so new tools are covered: any object with a `message_id` and a
 * `hash`, or a `link` / `uri` carrying `?h=`. De-duplicated by hash, in the order found.
 */
export function collectDisclosedMessages(value: unknown): DisclosedMessage[] {
  const out = new Map<string, DisclosedMessage>();
  const seen = new Set<unknown>();
  const visit = (v: unknown, depth: number): void => {
    if (depth > 32 || typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      for (const x of v) visit(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    const id = typeof o.message_id === 'number' ? o.message_id : undefined;
    let hash = typeof o.hash === 'string' && /^[0-9a-f]{4,64}$/i.test(o.hash) ? o.hash.toLowerCase() : undefined;
    if (!hash && id !== undefined) hash = anchorOf(o.link) ?? anchorOf(o.uri);
    if (hash && id !== undefined && !out.has(hash))
      out.set(hash, {
        hash,
        message_id: id,
        ...(typeof o.conversation_id === 'number' ? { conversation_id: o.conversation_id } : {}),
      });
    for (const x of Object.values(o)) visit(x, depth + 1);
  };
  visit(value, 0);
  return [...out.values()];
}

function anchorOf(link: unknown): string | undefined {
  if (typeof link !== 'string') return undefined;
  const m = /[?&]h(?:=|%3D)([0-9a-f]{4,64})\b/i.exec(link);
  return m ? m[1].toLowerCase() : undefined;
}
