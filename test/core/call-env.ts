/** A use case's call environment over one opened fixture archive, for the core tests that call use cases directly. */
import { inThread, openArchive } from '../../src/archive';
import type { AsyncArchive, CallEnv, ServerContext } from '../../src/core';

export const CITATION = { scheme: 'vscode', authority: 'msgbrowse.msgbrowse-vscode' };

export interface FixtureCalls {
  archive: AsyncArchive;
  env(extra?: Partial<CallEnv>): CallEnv;
  close(): Promise<void>;
}

export async function callsOn(file: string): Promise<FixtureCalls> {
  const archive = inThread(await openArchive(file));
  const ctx: ServerContext = {
    archive: async () => archive,
    semantic: async () => ({ available: false, reason: 'no embedding model in these tests' }),
    citation: CITATION,
    version: '0.0.0-test',
  };
  return {
    archive,
    env: (extra) => ({ ctx, archive: ctx.archive, signal: new AbortController().signal, ...extra }),
    close: () => archive.close(),
  };
}
