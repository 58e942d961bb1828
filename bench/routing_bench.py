"""Benchmark: sticky routing against round-robin, two vLLM replicas of `tiny` behind one safeagents proxy.

    python bench/routing_bench.py [--sessions 12] [--turns 5] [--words 300] [--workers 4] [--reps 2] [--out runs/bench]

The workload is what an agent harness sends: multi-turn sessions, each call re-sending the whole history plus a new
user message (a tool result's worth of --words random words; the first message is twice that), 16 greedy output
tokens a call, streamed. --workers sessions are in flight at once. Two `tiny` replicas (`serving.Replicas`, vLLM's
prefix caching on, its default) serve both arms; each arm is a proxy in front of the same two
(`ProxyConfig(routing=...)`: `sticky`, the default, keeps each session on the replica its first call went to;
`round-robin` sends each call to the next replica). The arms alternate, rep by rep (sticky, round-robin, sticky, ...),
every session's words fresh, so neither arm finds the other's prefixes cached and load from other work falls on both.

Measured per arm, over all its reps: the prefix-cache hit rate (vLLM's `vllm:prefix_cache_hits` over
`vllm:prefix_cache_queries`, summed over both replicas, before and after), time to first token (the first streamed
content chunk, client side: median and p90 over calls after a session's first, the ones a cache can help), and calls
per second of wall time. One run, a ratio against the other arm on the same machine in the same run; not a timed test.

Everything goes to OUT/routing.json and a table to OUT/routing.md.
"""
import argparse, json, os, platform, random, re, statistics, sys, time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchrecord                      # the revision, where the files go

from harness_adapters.safeagents import Proxy, ProxyConfig
from harness_adapters.serving import Replicas, ServerConfig

WORDS = ("river stone cloud market lantern copper meadow violin harbor pepper signal orchard candle basalt ferry "
         "glacier tunnel walnut compass saddle").split()


def counters(urls: list[str]) -> tuple[float, float]:
    "Prefix-cache hits and queries (tokens), summed over the replicas' Prometheus metrics."
    hits = queries = 0.0
    for u in urls:
        text = httpx.get(f"{u}/metrics", timeout=10).text
        hits += sum(float(v) for v in re.findall(r"^vllm:prefix_cache_hits_total\{[^}]*\} (\S+)$", text, re.M))
        queries += sum(float(v) for v in re.findall(r"^vllm:prefix_cache_queries_total\{[^}]*\} (\S+)$", text, re.M))
    return hits, queries


def call(base: str, messages: list[dict]) -> tuple[float, str]:
    "One streamed chat call: seconds to the first content chunk, and the reply's text."
    body = {"model": "tiny", "messages": messages, "max_tokens": 16, "temperature": 0, "stream": True, "ignore_eos": True}
    t0, first, text = time.perf_counter(), None, ""
    with httpx.stream("POST", f"{base}/chat/completions", json=body, timeout=600) as r:
        r.raise_for_status()
        for line in r.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]": continue
            d = json.loads(line[6:])
            piece = (d.get("choices") or [{}])[0].get("delta", {}).get("content") or ""
            if piece and first is None: first = time.perf_counter() - t0
            text += piece
    return (first if first is not None else time.perf_counter() - t0), text


def session(px: Proxy, sid: str, turns: int, words: int, seed: int) -> list[float]:
    "One multi-turn session through the proxy; the time to first token of each call."
    rng, msgs, ttft = random.Random(seed), [], []
    for t in range(turns):
        n = words * 2 if t == 0 else words
        msgs.append({"role": "user", "content": " ".join(rng.choice(WORDS) for _ in range(n)) + "\nWhat is the third word?"})
        s, text = call(px.base_url(sid), msgs)
        msgs.append({"role": "assistant", "content": text})
        ttft.append(s)
    return ttft


def arm(urls: list[str], policy: str, rep: int, a) -> dict:
    "One rep of one arm: a proxy with `policy` in front of the replicas, the sessions, the counters before and after."
    h0, q0 = counters(urls)
    with Proxy(ProxyConfig(",".join(urls), routing=policy)) as px:
        t0 = time.perf_counter()
        with ThreadPoolExecutor(a.workers) as ex:
            runs = list(ex.map(lambda i: session(px, f"{policy}-{rep}-{i}", a.turns, a.words, hash((policy, rep, i)) & 0xFFFF),
                               range(a.sessions)))
        wall = time.perf_counter() - t0
        per_replica = {u: list(px.state.router.sessions.values()).count(u) for u in urls}
    h1, q1 = counters(urls)
    return {"policy": policy, "rep": rep, "wall_s": round(wall, 2), "hits": h1 - h0, "queries": q1 - q0,
            "ttft_first": [r[0] for r in runs], "ttft_later": [x for r in runs for x in r[1:]], "sessions_per_replica": per_replica}


def summary(rows: list[dict], calls_per_rep: int) -> dict:
    later = sorted(x for r in rows for x in r["ttft_later"])
    hits, queries = sum(r["hits"] for r in rows), sum(r["queries"] for r in rows)
    return {"prefix_cache_hit_rate": round(hits / queries, 3) if queries else None,
            "ttft_later_median_ms": round(statistics.median(later) * 1000, 1),
            "ttft_later_p90_ms": round(later[int(0.9 * (len(later) - 1))] * 1000, 1),
            "calls_per_s": round(calls_per_rep * len(rows) / sum(r["wall_s"] for r in rows), 3)}


def table(res: dict) -> str:
    s, rr = res["arms"]["sticky"], res["arms"]["round-robin"]
    ratio = lambda k: f"{s[k] / rr[k]:.2f}×" if s[k] and rr[k] else "—"
    lines = ["# Routing: sticky against round-robin, two `tiny` replicas behind one proxy",
             "", f"`python bench/routing_bench.py {res['argv']}` at {res['revision']} on {res['started']}: {res['machine']}, "
             f"1-min load average {res['load_avg_1min'][0]} before and {res['load_avg_1min'][1]} after; "
             f"{res['sessions']} sessions of {res['turns']} turns a rep, {res['workers']} in flight, {res['reps']} reps an arm, alternating.", "",
             "| | sticky | round-robin | sticky / round-robin |", "|---|---|---|---|"]
    for k, name in (("prefix_cache_hit_rate", "prefix-cache hit rate (tokens)"), ("ttft_later_median_ms", "time to first token, median, calls after the first (ms)"),
                    ("ttft_later_p90_ms", "time to first token, p90 (ms)"), ("calls_per_s", "calls a second")):
        lines.append(f"| {name} | {s[k]} | {rr[k]} | {ratio(k)} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=12); ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--words", type=int, default=300); ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--reps", type=int, default=2); ap.add_argument("--out", default="runs/bench")
    a = ap.parse_args(argv)
    rev = benchrecord.revision()
    load0, started = os.getloadavg()[0], datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    rows = {"sticky": [], "round-robin": []}
    with Replicas(2, ServerConfig("tiny", kv_cache_gib=1, startup_timeout_s=600)) as reps:
        arm(reps.urls, "sticky", -1, argparse.Namespace(**{**vars(a), "sessions": 2, "turns": 2}))   # warm-up, not kept
        for rep in range(a.reps):
            for policy in rows:
                rows[policy].append(arm(reps.urls, policy, rep, a))
                print(policy, rep, {k: v for k, v in rows[policy][-1].items() if not k.startswith("ttft")}, flush=True)
    res = {"argv": " ".join(sys.argv[1:] if argv is None else argv), "revision": rev, "started": started,
           "machine": f"{os.cpu_count()} CPU cores ({platform.machine()}), no GPU", "load_avg_1min": [round(load0, 2), round(os.getloadavg()[0], 2)],
           "sessions": a.sessions, "turns": a.turns, "workers": a.workers, "reps": a.reps, "words": a.words,
           "arms": {p: summary(r, a.sessions * a.turns) for p, r in rows.items()}, "rows": rows}
    benchrecord.save(a.out, "routing", res, table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
