/**
 * The offline test host's host.env (KEY=value lines written by scripts/test-host/setup.sh: NODE22, NODE24, CS_ENTRY,
 * CHROMIUM, …), for the scripts that use what it installed.
 */
import fs from 'node:fs';
import path from 'node:path';

/** KEY=value lines of `<dir>/host.env`; {} when there is none. */
export function readHostEnv(dir) {
  try {
    return Object.fromEntries(
      fs
        .readFileSync(path.join(dir, 'host.env'), 'utf8')
        .split('\n')
        .flatMap((l) => {
          const m = /^([A-Z0-9_]+)=(.*)$/.exec(l.trim());
          return m ? [[m[1], m[2]]] : [];
        }),
    );
  } catch {
    return {};
  }
}
