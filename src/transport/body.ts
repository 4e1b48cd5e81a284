/** Reads a JSON request body with a hard size limit. */
import type { IncomingMessage } from 'node:http';

export class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Reads and parses the body; rejects with BodyError 413 over `limit`, 400 on invalid JSON. */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new BodyError(413, -32000, `Payload too large: the limit is ${limit} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(new BodyError(413, -32000, `Payload too large: the limit is ${limit} bytes`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (err) => {
      if (!failed) {
        failed = true;
        reject(new BodyError(400, -32000, `Bad request body: ${err.message}`));
      }
    });
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new BodyError(400, -32700, 'Parse error: Invalid JSON'));
      }
    });
  });
}
