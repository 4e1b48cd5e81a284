// Cancelling a running SQLite statement: WASM SQLite runs on the worker's only thread, so `sqlite3_interrupt` cannot be
// called meanwhile; every connection (`sqlite3_auto_extension`, so reopened ones too) instead gets a progress handler
// that polls a shared cancel flag and stops the statement with SQLITE_INTERRUPT.
import { loadEngine } from '../archive/wasm-engine';

/** VM instructions between polls of the flag. */
const PROGRESS_STEPS = 2000;

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
