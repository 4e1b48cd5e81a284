/**
 * The server's V8 young generation stays at the size it starts with (1 MB per semi-space) instead of growing to
 * 16 MB per semi-space after the first busy scavenges, where it would stay for the life of the process.
 *
 * A server's garbage is short-lived (request objects, rows, JSON), so the small young generation costs no measured
 * speed, and the process stays about 15 MB smaller (bench/analysis.md, issue 15). `--max-semi-space-size` would do
 * the same but only on node's command line, which a `bin` entry cannot pass on every platform; the growth factor is
 * read whenever V8 considers growing the young generation, so setting it at start takes effect. It must come
 * before the rest of the bundle runs: loading it keeps most of what it allocates, and V8 grows the young generation
 * right away when most of a scavenge survives (and never shrinks it back on a busy server). So the entry imports this
 * module first, for its side effect.
 *
 * It applies to the whole process (the engine and index-build workers too) and only to this CLI: the extension never
 * changes the V8 settings of VS Code's extension host.
 */
import * as v8 from 'node:v8';

export const YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1';

v8.setFlagsFromString(YOUNG_GENERATION_FLAG);
