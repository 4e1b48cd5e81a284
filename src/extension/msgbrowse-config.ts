/** msgbrowse's config.yaml and its `journal.exclude_conversations`, read from a YAML subset: never a guessed name. */
import fs from 'node:fs';
import path from 'node:path';
import { isFile, userConfigDir, type DiscoveryEnv } from './discovery';

/** Where msgbrowse looks for config.yaml when `--config` is not given, in its order (each workspace folder first). */
export function msgbrowseConfigCandidates(
  e: Pick<DiscoveryEnv, 'env' | 'platform' | 'home' | 'workspaceFolders'>,
): string[] {
  const out: string[] = [];
  const add = (f: string) => {
    if (!out.includes(f)) out.push(f);
  };
  for (const w of e.workspaceFolders) add(path.join(w, 'config.yaml'));
  add(path.join(e.home, '.config', 'msgbrowse', 'config.yaml'));
  const ucd = userConfigDir(e);
  if (ucd) add(path.join(ucd, 'msgbrowse', 'config.yaml'));
  if (e.platform !== 'win32') add('/etc/msgbrowse/config.yaml');
  return out;
}

/** A YAML scalar: quotes removed ('' and \" escapes), a trailing ` # comment` dropped from plain ones. */
function scalar(raw: string): string | undefined {
  const t = raw.trim();
  if (t === '' || t === '~' || t === 'null') return undefined;
  if (t.startsWith('"')) {
    const m = /^"((?:[^"\\]|\\.)*)"\s*(#.*)?$/.exec(t);
    return m
      ? m[1]
          .replace(/\\(["\\/])/g, '$1')
          .replace(/\\t/g, '\t')
          .replace(/\\n/g, '\n')
      : undefined;
  }
  if (t.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'\s*(#.*)?$/.exec(t);
    return m ? m[1].replace(/''/g, "'") : undefined;
  }
  return t.replace(/\s+#.*$/, '').trim() || undefined;
}

/** Splits a flow sequence body on commas outside quotes. */
function flowItems(body: string): string[] | undefined {
  const items: string[] = [];
  let cur = '';
  let q: string | undefined;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (!q && ch === ',') {
      items.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
    if (q === '"' && ch === '\\') cur += body[++i] ?? '';
    else if (q && ch === q) q = undefined;
    else if (!q && (ch === '"' || ch === "'")) q = ch;
  }
  if (q) return undefined;
  if (cur.trim() !== '') items.push(cur);
  return items.map((x) => scalar(x)).filter((x): x is string => x !== undefined);
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const isBlank = (line: string) => line.trim() === '' || line.trimStart().startsWith('#');

/** `journal.exclude_conversations` of a msgbrowse config.yaml (empty when absent or not understood). */
export function parseJournalExcludes(text: string): string[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let i = lines.findIndex((l) => /^journal\s*:\s*(#.*)?$/.test(l));
  if (i < 0) return [];
  // The journal block: lines indented more than `journal:`.
  for (i++; i < lines.length; i++) {
    const line = lines[i];
    if (isBlank(line)) continue;
    const ind = indentOf(line);
    if (ind === 0) return [];
    const m = /^\s*exclude_conversations\s*:(.*)$/.exec(line);
    if (!m) continue;
    const rest = m[1].trim();
    if (rest.startsWith('[')) {
      const end = rest.lastIndexOf(']');
      return end > 0 ? (flowItems(rest.slice(1, end)) ?? []) : [];
    }
    if (rest !== '' && !rest.startsWith('#')) return [];
    // A block sequence: `- item` lines at this key's indent or deeper.
    const out: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j];
      if (isBlank(l)) continue;
      const item = /^(\s*)-(?:\s+(.*))?$/.exec(l);
      if (!item || item[1].length < ind) break;
      const v = scalar(item[2] ?? '');
      if (v !== undefined) out.push(v);
    }
    return out;
  }
  return [];
}

/** The first msgbrowse config file that exists, with its journal exclusions (undefined: none found or unreadable). */
export function findJournalExcludes(
  candidates: readonly string[],
  read: (file: string) => string | undefined = readIfFile,
): { file: string; names: string[] } | undefined {
  for (const file of candidates) {
    const text = read(file);
    if (text === undefined) continue;
    return { file, names: [...new Set(parseJournalExcludes(text))] };
  }
  return undefined;
}

function readIfFile(file: string): string | undefined {
  try {
    return isFile(file) ? fs.readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}
