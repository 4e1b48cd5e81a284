/** A call's result or its error as plain data, so two implementations can be compared with deepEqual. */
export type Outcome = { ok: true; value: unknown } | { ok: false; name: string; code?: string; message: string };

export async function outcome(fn: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    const err = e as Error & { code?: string };
    return { ok: false, name: err.name, code: err.code, message: err.message };
  }
}
