/** Assertions shared by the robustness suites: what a "well-formed result or clean error" is. */
import assert from 'node:assert/strict';

/** A V8 stack frame line, a source location or an absolute file path: none may reach a client. */
const LEAK_PATTERNS: { name: string; re: RegExp }[] = [
  { name: 'stack frame', re: /^\s*at\s+\S.*(\(|:\d+)/m },
  { name: 'inline stack frame', re: /\bat\s+[\w.<>$[\] ]+\s+\((?:node:|file:|\/|[A-Za-z]:\\)/ },
  { name: 'node internals', re: /\bnode:internal\b/ },
  { name: 'source location', re: /\.(?:ts|js|mjs|cjs)(?::\d+){1,2}\b/ },
  { name: 'node_modules path', re: /node_modules[\\/]/ },
  {
    name: 'absolute source path',
    re: /(?:^|[\s("'])\/(?:work|home|usr|tmp|Users|private|var)\/[^\s"')]*\/(?:src|dist|test)\//,
  },
  { name: 'internal error class', re: /\b(?:TypeError|ReferenceError|RangeError|SyntaxError): / },
];

/** Returns the first leak found in `text`, or undefined. */
export function findLeak(text: string): string | undefined {
  for (const p of LEAK_PATTERNS) {
    const m = p.re.exec(text);
    if (m) return `${p.name}: ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 80))}`;
  }
  return undefined;
}

export interface ToolCallResultLike {
  isError?: boolean;
  content?: unknown;
  structuredContent?: unknown;
  [k: string]: unknown;
}

export function textOf(result: ToolCallResultLike): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content
    .filter(
      (c): c is { type: 'text'; text: string } =>
        !!c && typeof c === 'object' && (c as { type?: unknown }).type === 'text',
    )
    .map((c) => c.text)
    .join('\n');
}

export type Verdict = { kind: 'ok' } | { kind: 'error'; message: string };

/**
 * Checks one tool result: either a well-formed success (structuredContent object — the SDK client has
 * already validated it against the tool's outputSchema — plus a non-empty text block), or `isError: true`
 * with a non-empty, leak-free message. Throws an AssertionError naming the problem otherwise.
 */
export function checkToolResult(result: ToolCallResultLike, label: string): Verdict {
  assert.ok(Array.isArray(result.content), `${label}: result has no content array`);
  const text = textOf(result);
  const leak = findLeak(text);
  assert.equal(leak, undefined, `${label}: result text leaks internals (${leak})`);
  if (result.isError === true) {
    assert.ok(text.trim().length > 0, `${label}: isError result with an empty message`);
    assert.ok(
      !/^\s*(undefined|null|\[object Object\]|Error)\s*$/i.test(text),
      `${label}: meaningless error ${JSON.stringify(text)}`,
    );
    return { kind: 'error', message: text };
  }
  assert.ok(
    result.structuredContent !== null && typeof result.structuredContent === 'object',
    `${label}: success without structuredContent`,
  );
  assert.ok(text.trim().length > 0, `${label}: success without a text block`);
  return { kind: 'ok' };
}

/** Rejects after `ms` with a labelled error (the timer is cleared when `p` settles). */
export async function withTimeout<T>(p: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout: ${label} took more than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Records every unhandled rejection and uncaught exception while installed. `assertNone()` fails with
 * what was seen; `dispose()` removes the listeners.
 */
export function trapUnhandled(): { seen: unknown[]; assertNone(): void; dispose(): void } {
  const seen: unknown[] = [];
  const onRejection = (reason: unknown) => void seen.push(reason);
  const onException = (err: unknown) => void seen.push(err);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    seen,
    assertNone() {
      assert.equal(
        seen.length,
        0,
        `unhandled rejections / exceptions: ${seen.map((e) => (e instanceof Error ? (e.stack ?? e.message) : String(e))).join('\n---\n')}`,
      );
    },
    dispose() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}
