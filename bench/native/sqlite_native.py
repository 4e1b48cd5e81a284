"""Python sqlite3 reference for the archive benchmark:
    python3 sqlite_native.py <db> <cases.json> '<plan json>'
Opens <db> read-only (mode=ro), replays each case's statements (all rows fetched), prints JSON to stdout."""
import json
import resource
import sqlite3
import sys
import time

file, cases_file, plan_json = sys.argv[1:4]
plan = json.loads(plan_json)
cases = json.load(open(cases_file, encoding="utf-8"))


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def now():
    return time.perf_counter() * 1000


rss0 = rss()
t0 = now()
db = sqlite3.connect(f"file:{file}?mode=ro", uri=True, cached_statements=256)
db.execute("SELECT count(*) FROM sqlite_master").fetchall()
open_ms = now() - t0
rss_open = rss()


def time_sync(fn):
    w0 = now()
    i = 0
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


results = {}
for c in cases:
    stmts = [(s["sql"], s["params"]) for s in c["statements"]]
    box = [0]

    def run():
        n = 0
        for sql, params in stmts:
            n += len(db.execute(sql, params).fetchall())
        box[0] = n

    samples = time_sync(run)
    results[c["key"]] = {"samples": samples, "rows": box[0]}

print(json.dumps({"engine": "python-sqlite3", "version": sqlite3.sqlite_version, "python": sys.version.split()[0],
                  "openMs": open_ms, "rssOpen": rss_open, "rss0": rss0, "rssEnd": rss(), "results": results}))
