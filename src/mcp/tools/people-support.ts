/** What the two people tools share: the schema check (contacts exist since msgbrowse schema v2). */
import type { AsyncArchive } from '../../archive/types';
import { ToolError } from '../../core/errors';

export async function requirePeople(archive: AsyncArchive, signal: AbortSignal): Promise<number> {
  const { schemaVersion } = await archive.summary(signal);
  if (schemaVersion < 2) {
    throw new ToolError(`this archive (msgbrowse schema v${schemaVersion}) keeps no people: contacts exist since schema v2 — update msgbrowse and re-import to get them`);
  }
  return schemaVersion;
}
