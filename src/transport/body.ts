/** Reads a JSON request body with a hard size limit. */
import type { IncomingMessage } from 'node:http';

export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code = -32000,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Rejects with BodyError 413 over `limit`, 400 on invalid JSON. */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const tooLarge = () => new BodyError(413, `Payload too large: the limit is ${limit} bytes`);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const fail = (e: BodyError) => {
      failed = true;
      chunks.length = 0;
      reject(e);
    };
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      fail(tooLarge());
      req.resume();
    });
    req.on('error', (err) => !failed && fail(new BodyError(400, `Bad request body: ${err.message}`)));
    req.on('end', () => {
      if (failed) return;
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new BodyError(400, 'Parse error: Invalid JSON', -32700));
      }
    });
  });
}
