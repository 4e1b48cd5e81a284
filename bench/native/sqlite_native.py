"""Python sqlite3 reference for the archive benchmark:
    python3 sqlite_native.py <db> <cases.json> '<plan json>'
Opens <db> read-only (mode=ro), prints a JSON "ready" line, then for every case key read from stdin replays that
case's statements (all rows fetched) by the timing plan and prints a JSON result line; "quit" ends it."""
import json
import os
import sqlite3
import sys
import time

file, cases_file, plan_json = sys.argv[1:4]
plan = json.loads(plan_json)
cases = {c["key"]: c for c in json.load(open(cases_file, encoding="utf-8"))}


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def now():
    return time.perf_counter() * 1000


def send(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()


rss0 = rss()
t0 = now()
db = sqlite3.connect(f"file:{file}?mode=ro", uri=True, cached_statements=256)
db.execute("SELECT count(*) FROM sqlite_master").fetchall()
open_ms = now() - t0
send({"type": "ready", "engine": "python-sqlite3", "version": sqlite3.sqlite_version, "python": sys.version.split()[0],
      "openMs": open_ms, "rss0": rss0, "rssOpen": rss()})


SLOW_MS = 2000  # a case whose first run takes longer (a pathological plan) is timed once, without more warm-up


def _s(v):
    # String(v) as JavaScript prints numbers (integers without ".0").
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def keys_of(description, rows):
    """Same rule as bench/lib/trace.ts rowKey."""
    names = [d[0] for d in description or []]
    out = []
    for r in rows:
        row = dict(zip(names, r))
        if "id" in row:
            out.append(_s(row["id"]))
        elif "url" in row:
            out.append(f"{_s(row['url'])}#{_s(row.get('cnt'))}")
        elif "conversation_id" in row:
            out.append(f"c{_s(row['conversation_id'])}")
        else:
            out.append(json.dumps(list(row.values())))
    return out


def time_sync(fn):
    w0 = now()
    fn()
    if now() - w0 > SLOW_MS:
        s = now()
        fn()
        return [now() - s]
    i = 1
    while i < plan["warmMin"] or now() - w0 < plan["warmMs"]:
        fn()
        i += 1
    out = []
    s0 = now()
    while len(out) < plan["max"] and (len(out) < plan["min"] or now() - s0 < plan["budgetMs"]):
        s = now()
        fn()
        out.append(now() - s)
    return out


for line in sys.stdin:
    key = line.strip()
    if key == "quit":
        send({"type": "end", "rssEnd": rss()})
        break
    c = cases.get(key)
    if c is None:
        send({"type": "result", "key": key, "samples": [], "rows": -1})
        continue
    stmts = [(s["sql"], s["params"]) for s in c["statements"]]
    box = [0, []]

    def run():
        n = 0
        out = []
        for sql, params in stmts:
            cur = db.execute(sql, params)
            rows = cur.fetchall()
            n += len(rows)
            out.append((cur.description, rows))
        box[0] = n
        box[1] = out

    samples = time_sync(run)
    send({"type": "result", "key": key, "samples": samples, "rows": box[0], "keys": [keys_of(d, r) for d, r in box[1]]})
