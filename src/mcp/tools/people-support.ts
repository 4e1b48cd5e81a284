import { type ArchiveParts, type AsyncArchive, ToolError } from '../../core';

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
