/** What the two people tools share: the archive must have msgbrowse's contacts (its tables, whatever its version). */
import type { ArchiveParts, AsyncArchive } from '../../archive/types';
import { ToolError } from '../../core/errors';

export async function requirePeople(archive: AsyncArchive, signal: AbortSignal): Promise<ArchiveParts> {
  const { parts, schemaVersion } = await archive.summary(signal);
  if (!parts.people) {
    throw new ToolError(
      'this archive keeps no people: it has no contacts and contact_identifiers tables (msgbrowse writes them since schema v2)' +
        (schemaVersion < 2 ? ' — update msgbrowse and re-import to get them' : '') +
        '; the message tools work without them',
    );
  }
  return parts;
}
