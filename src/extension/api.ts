/**
 * The API activate() returns to other extensions:
 *
 *   const api = await vscode.extensions.getExtension<MsgbrowseApi>('msgbrowse.msgbrowse-vscode')?.activate();
 *   await api?.ready;
 *   if (api?.state().kind === 'ready') for (const hit of (await api.search('lease')).hits) api.openCitation(hit);
 */
import type * as vscode from 'vscode';
import type { ArchiveState } from './archive-service';
import type { CitationRef } from './citation-ref';
import type { SearchHit, SearchResult } from './search-service';

export type { ArchiveState, CitationRef, SearchHit, SearchResult };

/** A message to cite: its ids, or a search hit carrying them. */
export type CitationTarget = CitationRef | SearchHit;

export interface MsgbrowseApi {
  /** Bumped on incompatible changes. */
  readonly apiVersion: 1;
  /** The id VS Code knows msgbrowse's MCP server by (e.g. `workbench.mcp.startServer`, tool sources). */
  readonly mcpServerId: string;
  /** Resolves (never rejects) once the first archive resolution/open attempt has finished. */
  readonly ready: Promise<void>;
  state(): ArchiveState;
  readonly onDidChangeState: vscode.Event<ArchiveState>;
  /** Ranked as `search_messages` ranks, over what a model may see; rejects when no archive can be served. */
  search(query: string): Promise<SearchResult>;
  /** Opens the conversation viewer at a message, highlighted (`side`: beside the active editor). */
  openCitation(target: CitationTarget, options?: { side?: boolean }): void;
  /** The citation URI of a message, as the MCP tools emit it and the URI handler opens it. */
  citationUri(target: CitationTarget): string;
}
