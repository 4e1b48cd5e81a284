// Attachment files where msgbrowse puts them (Signal: `<root>/export/<conversation>/<rel_path>`, else
// `<root>/<rel_path>`), refusing any path that escapes the root (`..`, absolute paths, symlinks pointing outside).
import fs from 'node:fs';
import path from 'node:path';

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The real file for an attachment, or undefined when it is missing or would escape `root`. */
export function resolveAttachment(
  root: string,
  source: string,
  conversation: string,
  relPath: string,
): string | undefined {
  if (!relPath || relPath.includes('\0') || path.isAbsolute(relPath) || /^[a-zA-Z]:/.test(relPath)) return undefined;
  const clean = relPath.replace(/^\.\//, '');
  let base = root;
  if (source === 'signal') {
    if (!conversation || conversation.includes('/') || conversation.includes('\\') || conversation === '..')
      return undefined;
    base = path.join(root, 'export', conversation);
  }
  const full = path.resolve(base, clean);
  if (!isInside(root, full)) return undefined;
  try {
    const realRoot = fs.realpathSync(root);
    const real = fs.realpathSync(full);
    if (!isInside(realRoot, real) || !fs.statSync(real).isFile()) return undefined;
    return real;
  } catch {
    return undefined;
  }
}

export const isInlineImage = (file: string): boolean => /\.(png|jpe?g|gif|webp|bmp|avif)$/i.test(file);
