/**
 * Keeps the server's V8 young generation from growing: without this, the first busy scavenges grow it to 16 MB per
 * semi-space, and it stays that size for the life of the process.
 *
 * A server's garbage is short-lived (request objects, rows, JSON), so a small young generation costs no measured
 * speed (calls or index builds). With a 100k-vector index loaded, the CLI's main heap is 27 MB instead of 35 MB
 * (its new space 8 MB instead of 16 MB; bench/analysis.md, issue 15).
 *
 * `--max-semi-space-size` would do the same, but only on node's command line, which a `bin` entry cannot pass on
 * every platform. V8 reads the growth factor each time it considers growing the young generation, so setting it
 * at start takes effect. That is V8's behaviour, not an API: test/cli/memory.test.ts fails on a Node whose V8 stops
 * honouring it.
 *
 * It must come before the rest of the bundle runs, because loading the bundle already grows the young generation.
 * So the entry imports this module first, for its side effect.
 *
 * It applies to the whole process, the engine and index-build workers too. Each worker's start resets it, so it is
 * re-applied once each worker is online (src/engine/v8-flags.ts): without that, the main thread's new space was
 * 8 MB once the engine worker had started and 16 MB once an index build had run. It is set only by this CLI: the
 * extension never changes the V8 settings of VS Code's extension host.
 */
import { keepV8Flags } from '../engine/v8-flags';

export const YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1';

// Kept: every worker thread's start resets run-time V8 flags, so the engine re-applies it after each (v8-flags.ts).
keepV8Flags([YOUNG_GENERATION_FLAG]);
