/** The live sessions of the HTTP transport (a McpServer and its transport each): activity, eviction, shutdown. */
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { McpServer } from '@modelcontextprotocol/server';

export interface Session {
  readonly id: string;
  readonly server: McpServer;
  readonly transport: NodeStreamableHTTPServerTransport;
  /** HTTP requests of this session still open (an SSE GET stays open for the session's life). */
  active: number;
  lastSeen: number;
}

export class SessionRegistry extends Map<string, Session> {
  constructor(private readonly onClosed: (id: string) => void) {
    super();
  }

  /** Marks one request of the session as started; returns the function that marks it finished. */
  track(session: Session): () => void {
    session.active++;
    session.lastSeen = Date.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      session.active--;
      session.lastSeen = Date.now();
    };
  }

  async close(id: string): Promise<void> {
    const s = this.get(id);
    if (!s) return;
    this.delete(id);
    await s.server.close().catch(() => {});
    await s.transport.close().catch(() => {});
    this.onClosed(id);
  }

  /** Forgets a session whose transport already closed itself. */
  forget(id: string): void {
    if (this.delete(id)) this.onClosed(id);
  }

  /** Sessions with no open request that were last seen before `cutoff`. */
  idleSince(cutoff: number): Session[] {
    return [...this.values()].filter((s) => s.active === 0 && s.lastSeen < cutoff);
  }

  leastRecentlyUsedIdle(): Session | undefined {
    const idle = this.idleSince(Number.POSITIVE_INFINITY);
    return idle.reduce<Session | undefined>((lru, s) => (!lru || s.lastSeen < lru.lastSeen ? s : lru), undefined);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.keys()].map((id) => this.close(id)));
  }
}
