/**
 * The single seam between the extension and the server core (`src/mcp/runtime`): builds a runtime (archive +
 * semantic backend + ServerContext) for one archive path and one embeddings configuration, and reduces its status
 * to what the extension shows. Pass another `openArchive` (e.g. worker-backed) through `RuntimeOptions`.
 */
import type { EmbedConfig } from '../embed/types';
import type { CitationFormat, LogLevel, ServerContext } from '../core/context';
import { createRuntime, type ArchiveOpener, type SemanticStatus } from '../core';

export interface RuntimeOptions {
  archivePath: string;
  embed: EmbedConfig;
  citation: CitationFormat;
  cacheDir: string;
  version: string;
  log(level: LogLevel, message: string): void;
  openArchive?: ArchiveOpener;
}

export interface RuntimeStatus {
  conversations: number;
  messages: number;
  fingerprint: string;
  semantic: { ready: boolean; state: SemanticStatus['state']; reason?: string };
}

export type RuntimeChange = 'opened' | 'changed' | 'semantic' | 'error';

export interface ExtensionRuntime {
  readonly context: ServerContext;
  /** Opens the archive if needed and reports what it holds; rejects with the archive's clear error. */
  status(): Promise<RuntimeStatus>;
  /** Forces a reopen (file replaced on disk). */
  reload(): Promise<void>;
  onDidChange(listener: (kind: RuntimeChange) => void): () => void;
  dispose(): Promise<void>;
}

export type RuntimeFactory = (opts: RuntimeOptions) => ExtensionRuntime;

export function describeSemantic(s: SemanticStatus): RuntimeStatus['semantic'] {
  switch (s.state) {
    case 'ready':
      return { ready: true, state: s.state };
    case 'building':
      return { ready: false, state: s.state, reason: `building the vector index for ${s.model} (${s.count} vectors)` };
    case 'unknown':
      return { ready: false, state: s.state, reason: 'not loaded yet (loads on the first semantic query)' };
    default:
      return { ready: false, state: s.state, reason: s.reason };
  }
}

export const defaultRuntimeFactory: RuntimeFactory = (opts) => {
  const rt = createRuntime({
    archivePath: opts.archivePath,
    embed: opts.embed,
    citation: opts.citation,
    cacheDir: opts.cacheDir,
    version: opts.version,
    log: opts.log,
    openArchive: opts.openArchive,
    watchIntervalMs: 2000,
  });
  return {
    context: rt.context,
    async status() {
      const s = await rt.describe();
      if (s.archive.state === 'error') throw new Error(s.archive.error);
      if (!s.summary) throw new Error(`the archive ${s.archivePath} could not be read`);
      return {
        conversations: s.summary.conversations,
        messages: s.summary.messages,
        fingerprint: s.summary.fingerprint,
        semantic: describeSemantic(s.semantic),
      };
    },
    reload: () => rt.reload(),
    onDidChange(listener) {
      return rt.onDidChange((e) => {
        if (e.kind === 'archive-opened') listener('opened');
        else if (e.kind === 'archive-changed') listener('changed');
        else if (e.kind === 'archive-error') listener('error');
        else if (e.kind === 'semantic') listener('semantic');
      });
    },
    dispose: () => rt.dispose(),
  };
};
