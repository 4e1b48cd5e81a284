/** The gate every HTTP request passes first: path, Host (DNS rebinding), Origin (browsers), then the secret. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export type RefusalReason = 'path' | 'host' | 'origin' | 'secret';

/** How the secret is presented: `Authorization: Bearer <token>` (CLI) or a custom header (extension). */
export type SecretScheme = { kind: 'bearer' } | { kind: 'header'; name: string };

// 404 for every refusal: VS Code answers 401/403 with an OAuth sign-in a stale token would send a person into.
export const REFUSAL_STATUS = 404;

export interface GuardOptions {
  path: string;
  secret: string;
  scheme: SecretScheme;
  /** Accepted `Host` values (lowercase `host:port`); undefined only for sockets and pipes, which no browser reaches. */
  allowedHosts?: ReadonlySet<string>;
  /** Accept any Host on this port (remote listening on a wildcard address, explicitly allowed). */
  anyHostOnPort?: number;
  /** Accepted `Origin` values (lowercase, no trailing slash); a request without one is not a browser's. */
  allowedOrigins: ReadonlySet<string>;
}

export interface Refusal {
  reason: RefusalReason;
  /** Never echoes the secret. */
  message: string;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

/** Constant-time equality: equal-length digests, so neither content nor length leaks through timing. */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  if (Array.isArray(v)) return v.length === 1 ? v[0] : undefined; // duplicated headers are never trusted
  return v;
}

function presentedSecret(req: IncomingMessage, scheme: SecretScheme): string | undefined {
  if (scheme.kind === 'header') return header(req, scheme.name);
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header(req, 'authorization') ?? '');
  return m ? m[1] : undefined;
}

/** Pathname of the request target (query ignored); undefined for absolute-form or malformed targets. */
function requestPath(req: IncomingMessage): string | undefined {
  const url = req.url ?? '';
  if (!url.startsWith('/')) return undefined;
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Loopback `host:port` spellings accepted for a TCP listener on `host:port`. */
export function loopbackHosts(boundHost: string, port: number): Set<string> {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  const h = boundHost.toLowerCase();
  hosts.add(h.includes(':') && !h.startsWith('[') ? `[${h}]:${port}` : `${h}:${port}`);
  return hosts;
}

export function loopbackOrigins(port: number): Set<string> {
  return new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]);
}

export function checkRequest(req: IncomingMessage, opts: GuardOptions): Refusal | undefined {
  if (requestPath(req) !== opts.path)
    return { reason: 'path', message: `Not found: this server only serves ${opts.path}` };
  if (opts.allowedHosts) {
    const host = header(req, 'host')?.trim().toLowerCase();
    const portOk = opts.anyHostOnPort && host?.endsWith(`:${opts.anyHostOnPort}`);
    if (!host || (!opts.allowedHosts.has(host) && !portOk))
      return { reason: 'host', message: 'Refused: Host header is not this loopback server (possible DNS rebinding)' };
  }
  const origin = header(req, 'origin');
  if (origin !== undefined && !opts.allowedOrigins.has(origin.trim().toLowerCase().replace(/\/$/, '')))
    return { reason: 'origin', message: 'Refused: cross-origin requests are not allowed' };
  const given = presentedSecret(req, opts.scheme);
  // Compared even when nothing was presented, so timing does not tell which check failed.
  const ok = secretsEqual(given ?? '', opts.secret);
  if (given === undefined || !ok) {
    const how = opts.scheme.kind === 'bearer' ? 'Authorization: Bearer <token>' : `${opts.scheme.name} header`;
    return { reason: 'secret', message: `Refused: missing or wrong secret (${how})` };
  }
  return undefined;
}
