/**
 * The demo archive: a small, believable msgbrowse archive shipped gzipped in media/demo/ and unpacked into the
 * extension's global storage on request (never beside user data).
 */
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type * as vscode from 'vscode';
import { ARCHIVE_FILE_NAME } from '../core';

export async function materializeDemo(ext: vscode.ExtensionContext): Promise<string> {
  const gz = path.join(ext.extensionPath, 'media', 'demo', `${ARCHIVE_FILE_NAME}.gz`);
  const dir = path.join(ext.globalStorageUri.fsPath, 'demo');
  const file = path.join(dir, ARCHIVE_FILE_NAME);
  const bytes = gunzipSync(await fs.promises.readFile(gz));
  fs.mkdirSync(dir, { recursive: true });
  let same = false;
  try {
    same = (await fs.promises.readFile(file)).equals(bytes);
  } catch {
    /* not there yet */
  }
  if (!same) {
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.promises.writeFile(tmp, bytes);
    for (const ext of ['-wal', '-shm']) fs.rmSync(file + ext, { force: true });
    await fs.promises.rename(tmp, file);
  }
  return file;
}
