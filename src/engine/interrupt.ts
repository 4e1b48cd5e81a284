/**
 * Interrupting a running SQLite statement from the client.
 *
 * WASM SQLite runs on the worker's only thread, so `sqlite3_interrupt` cannot be called while a statement runs.
 * Instead every connection the worker opens gets a progress handler (installed through
 * `sqlite3_auto_extension`, so connections the archive layer reopens later get it too) that polls a shared
 * cancel flag every few thousand VM steps and returns non-zero to stop the statement with SQLITE_INTERRUPT.
 */
import { loadEngine } from '../archive/wasm-engine';

/** VM instructions between polls: ~10 µs of work, so a cancel takes effect well within a millisecond. */
export const PROGRESS_STEPS = 2000;

let installed: Promise<void> | undefined;

/** Installs `shouldStop` as the progress handler of every SQLite connection opened in this thread from now on. */
export function installInterruptHandler(shouldStop: () => boolean): Promise<void> {
  if (!installed) {
    installed = loadEngine().then(({ sqlite3 }) => {
      const handler = sqlite3.wasm.installFunction('i(p)', () => (shouldStop() ? 1 : 0));
      const rc = sqlite3.capi.sqlite3_auto_extension((pDb) => {
        sqlite3.capi.sqlite3_progress_handler(pDb, PROGRESS_STEPS, handler, 0);
        return 0;
      });
      if (rc !== 0) throw new Error(`Could not install the query interrupt handler (SQLite result code ${rc}).`);
    });
    installed.catch(() => {
      installed = undefined;
    });
  }
  return installed;
}
