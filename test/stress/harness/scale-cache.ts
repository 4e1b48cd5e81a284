/**
 * A large generated archive cached across runs in the OS temp dir (e.g. `msgbrowse-load-100k.sqlite`),
 * rebuilt only when missing or invalid. Validity: a sidecar JSON written after a complete build records the
 * generator options and the file's size and mtime; anything else (a crash mid-build, other options, a
 * touched file) triggers a rebuild. The build writes to a temporary name and renames at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildScaleArchive, type ScaleArchiveDescription, type ScaleArchiveOptions } from '../../fixtures/index';

const FORMAT = 1;

interface Sidecar {
  format: number;
  options: ScaleArchiveOptions;
  size: number;
  mtimeMs: number;
  desc: ScaleArchiveDescription;
}

export interface CachedScaleArchive {
  file: string;
  desc: ScaleArchiveDescription;
  /** True when this call built it (and how long that took). */
  built: boolean;
  buildSeconds: number;
}

function sameOptions(a: ScaleArchiveOptions, b: ScaleArchiveOptions): boolean {
  const keys: (keyof ScaleArchiveOptions)[] = ['messages', 'conversations', 'dim', 'model', 'seed', 'vocabularySize'];
  return keys.every((k) => a[k] === b[k]);
}

export function cachedScaleArchive(name: string, options: ScaleArchiveOptions): CachedScaleArchive {
  const file = path.join(os.tmpdir(), `${name}.sqlite`);
  const sidecarFile = path.join(os.tmpdir(), `${name}.json`);
  try {
    const side = JSON.parse(fs.readFileSync(sidecarFile, 'utf8')) as Sidecar;
    const st = fs.statSync(file);
    const noWal = !fs.existsSync(`${file}-wal`) && !fs.existsSync(`${file}-shm`);
    if (
      side.format === FORMAT &&
      sameOptions(side.options, options) &&
      st.size === side.size &&
      st.mtimeMs === side.mtimeMs &&
      noWal
    ) {
      return { file, desc: { ...side.desc, path: file }, built: false, buildSeconds: 0 };
    }
  } catch {
    /* missing or unreadable: rebuild */
  }
  const started = Date.now();
  const tmp = path.join(os.tmpdir(), `${name}.building-${process.pid}.sqlite`);
  for (const f of [file, `${file}-wal`, `${file}-shm`, sidecarFile, tmp, `${tmp}-wal`, `${tmp}-shm`])
    fs.rmSync(f, { force: true });
  const desc = buildScaleArchive(tmp, { progress: false, ...options });
  for (const side of ['-wal', '-shm'])
    if (fs.existsSync(tmp + side)) throw new Error(`scale build left ${tmp}${side} behind`);
  fs.renameSync(tmp, file);
  const st = fs.statSync(file);
  const sidecar: Sidecar = {
    format: FORMAT,
    options,
    size: st.size,
    mtimeMs: st.mtimeMs,
    desc: { ...desc, path: file },
  };
  fs.writeFileSync(sidecarFile, JSON.stringify(sidecar));
  return { file, desc: sidecar.desc, built: true, buildSeconds: (Date.now() - started) / 1000 };
}
