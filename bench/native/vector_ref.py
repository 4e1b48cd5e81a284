"""Vector references for the benchmark (numpy).

  python3 vector_ref.py export <db> <model> <outdir> <queries>
      Reads every embedding of <model> straight from SQLite (python sqlite3, read-only; msgbrowse's join
      embeddings -> messages by hash), writes mat.npy (float32 rows as stored), ids.npy (message ids) and
      queries.npy (<queries> deterministic query vectors near stored rows / between topics).
  python3 vector_ref.py bench <outdir> <k> <warmup>
      Exact float64 cosine top-k for every query (ground truth; ties by message id), then numpy's reference:
      rows normalised once in float32, per query `mat @ q` + argpartition + argsort of the k. Prints JSON.
"""
import json
import os
import sqlite3
import sys
import time

import numpy as np


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def export(db, model, outdir, nq):
    t0 = time.perf_counter()
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    n, dim = con.execute("SELECT count(*), max(dim) FROM embeddings WHERE model = ?", (model,)).fetchone()
    mat = np.empty((n, dim), dtype=np.float32)
    ids = np.empty(n, dtype=np.int64)
    i = 0
    for mid, vec in con.execute(
        "SELECT m.id, e.vec FROM embeddings e JOIN messages m ON m.hash = e.message_hash WHERE e.model = ? ORDER BY e.rowid",
        (model,),
    ):
        mat[i] = np.frombuffer(vec, dtype="<f4")
        ids[i] = mid
        i += 1
    mat = mat[:i]
    ids = ids[:i]
    rng = np.random.default_rng(20261129)
    std = mat[: min(i, 100000)].std(axis=0)
    qs = np.empty((nq, dim), dtype=np.float32)
    for j in range(nq):
        a = mat[rng.integers(i)]
        if j % 2 == 0:  # paraphrase-like: near one stored message
            qs[j] = a + rng.normal(0, 1, dim).astype(np.float32) * std * 0.5
        else:  # between two topics
            b = mat[rng.integers(i)]
            qs[j] = 0.5 * (a + b) + rng.normal(0, 1, dim).astype(np.float32) * std * 0.3
    np.save(os.path.join(outdir, "mat.npy"), mat)
    np.save(os.path.join(outdir, "ids.npy"), ids)
    np.save(os.path.join(outdir, "queries.npy"), qs)
    print(json.dumps({"n": int(i), "dim": int(dim), "seconds": time.perf_counter() - t0}))


def bench(outdir, k, warmup):
    mat = np.load(os.path.join(outdir, "mat.npy"))
    ids = np.load(os.path.join(outdir, "ids.npy"))
    qs = np.load(os.path.join(outdir, "queries.npy"))
    n, dim = mat.shape
    # Ground truth: exact float64 cosine, chunked, top-k by (score desc, id asc).
    t0 = time.perf_counter()
    q64 = qs.astype(np.float64)
    q64 /= np.linalg.norm(q64, axis=1, keepdims=True)
    cand_s = [[] for _ in qs]
    cand_i = [[] for _ in qs]
    chunk = 65536
    for s in range(0, n, chunk):
        m = mat[s : s + chunk].astype(np.float64)
        norms = np.linalg.norm(m, axis=1)
        sc = (m @ q64.T) / np.where(norms == 0, np.inf, norms)[:, None]
        take = min(k + 50, sc.shape[0])
        for j in range(len(qs)):
            col = sc[:, j]
            top = np.argpartition(-col, take - 1)[:take] if take < len(col) else np.arange(len(col))
            cand_s[j].append(col[top])
            cand_i[j].append(ids[s + top])
    exact_ids, exact_scores = [], []
    for j in range(len(qs)):
        sc = np.concatenate(cand_s[j])
        ii = np.concatenate(cand_i[j])
        order = np.lexsort((ii, -sc))[:k]
        exact_ids.append([int(x) for x in ii[order]])
        exact_scores.append([float(x) for x in sc[order]])
    exact_s = time.perf_counter() - t0
    # numpy reference.
    norms = np.linalg.norm(mat, axis=1)
    norms[norms == 0] = 1
    mat /= norms[:, None]
    rss_ready = rss()
    times, np_ids = [], []
    order = list(range(min(warmup, len(qs)))) + list(range(len(qs)))
    for pos, j in enumerate(order):
        t = time.perf_counter()
        q = qs[j]
        qn = q / np.linalg.norm(q)
        s = mat @ qn
        idx = np.argpartition(-s, k)[:k]
        idx = idx[np.argsort(-s[idx], kind="stable")]
        dt = (time.perf_counter() - t) * 1000
        if pos >= min(warmup, len(qs)):
            times.append(dt)
            np_ids.append([int(x) for x in ids[idx]])
    print(json.dumps({
        "n": int(n), "dim": int(dim), "times": times, "numpyIds": np_ids, "exactIds": exact_ids,
        "exactScores": exact_scores, "exactSeconds": exact_s, "rssReady": rss_ready,
        "numpy": np.__version__, "cpus": os.cpu_count(),
    }))


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        bench(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
