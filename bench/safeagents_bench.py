"""safeagents speed: decision time per tool call (incremental vs full atif-scan) and added streaming latency.

Run from the repo root: `python bench/safeagents_bench.py` (about a minute on 2 cores). Writes
runs/bench/safeagents.json and runs/bench/safeagents.md.
"""
from __future__ import annotations
import asyncio, json, statistics, sys, time
from pathlib import Path
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[1] / "tests")]
import httpx
from harness_adapters.detectors import Scanner
from harness_adapters.safeagents import Proxy, ProxyConfig
from test_safeagents import ScriptedUpstream

PACKS = ("harness_adapters.packs.smoldataenvs:checks", "harness_adapters.packs.traj2envs:checks")
STEPS, REPS, SESSIONS, ROUNDS = (1, 10, 50), 40, 48, 3


def pct(xs, q): xs = sorted(xs); return xs[min(len(xs) - 1, int(q * len(xs)))]


def conversation(n):
    steps = [{"source": "system", "message": "You are a coding agent."}, {"source": "user", "message": "Analyse data.csv and fix the tests."}]
    for i in range(n):
        cmd = f"python -c \"import pandas as pd; df=pd.read_csv('data.csv'); print(df.describe())\" && pytest -q tests/test_{i}.py"
        steps.append({"source": "agent", "message": f"Step {i}: checking.", "tool_calls": [{"tool_call_id": f"c{i}", "function_name": "bash", "arguments": {"command": cmd}}],
                      "observation": {"results": [{"source_call_id": f"c{i}", "content": "ok\n" * 20}]}})
    steps[-1] = {k: v for k, v in steps[-1].items() if k != "observation"}
    return steps


def decision_times():
    sc, out = Scanner(PACKS), {}
    for n in STEPS:
        conv, inc, full = conversation(n), [], []
        for r in range(REPS):
            prev = conversation(n - 1) if n > 1 else None
            if prev: sc.scan(prev[:-1] + [{k: v for k, v in prev[-1].items()}], session=f"b{n}-{r}")  # the session has seen the earlier steps
            t = time.perf_counter(); sc.scan(conv, session=f"b{n}-{r}"); inc.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter(); sc.full_scan(conv); full.append((time.perf_counter() - t) * 1000)
        out[n] = {"incremental_p50_ms": statistics.median(inc), "incremental_p99_ms": pct(inc, 0.99),
                  "full_p50_ms": statistics.median(full), "full_p99_ms": pct(full, 0.99)}
    return out


async def one_stream(client, url, i):
    t0 = time.perf_counter(); ttft = None; n = 0
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "write a long answer"}],
            "tools": [{"type": "function", "function": {"name": "bash"}}]}
    async with client.stream("POST", url, json=body) as r:
        async for line in r.aiter_lines():
            if line.startswith("data: ") and '"content"' in line and ttft is None: ttft = time.perf_counter() - t0
            n += line.startswith("data: ")
    return ttft, time.perf_counter() - t0, n


async def load(base, label):
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=200)) as c:
        res, t0 = [], time.perf_counter()
        for _ in range(ROUNDS):
            res += await asyncio.gather(*[one_stream(c, f"{base(i)}/chat/completions", i) for i in range(SESSIONS)])
        wall = time.perf_counter() - t0
    ttft = [r[0] * 1000 for r in res]
    return {"ttft_p50_ms": statistics.median(ttft), "ttft_p99_ms": pct(ttft, 0.99), "chunks_per_s": sum(r[2] for r in res) / wall, "streams": len(res), "wall_s": wall}


def streaming():
    reply = {"text": "word " * 200, "chunks": 40, "calls": [("bash", {"command": "pytest -q"})], "sleep_chunk": 0.002}
    with ScriptedUpstream(default=reply) as up, Proxy(ProxyConfig(up.url, plugins=PACKS)) as px:
        direct = asyncio.run(load(lambda i: up.url + "/v1", "direct"))
        proxied = asyncio.run(load(lambda i: px.base_url(f"s{i}"), "proxy"))
    return {"direct": direct, "proxy": proxied, "added_ttft_p50_ms": proxied["ttft_p50_ms"] - direct["ttft_p50_ms"],
            "throughput_ratio": proxied["chunks_per_s"] / direct["chunks_per_s"]}


def markdown(r):
    lines = ["| agent steps | incremental p50 (ms) | incremental p99 (ms) | full p50 (ms) | full p99 (ms) |", "|---|---|---|---|---|"]
    for n, d in r["decision"].items():
        lines.append(f"| {n} | {d['incremental_p50_ms']:.2f} | {d['incremental_p99_ms']:.2f} | {d['full_p50_ms']:.2f} | {d['full_p99_ms']:.2f} |")
    s = r["streaming"]
    lines += ["", f"{SESSIONS} concurrent streaming sessions x {ROUNDS} rounds, same run:", "",
              "| path | TTFT p50 (ms) | TTFT p99 (ms) | chunks/s |", "|---|---|---|---|"]
    for k in ("direct", "proxy"):
        lines.append(f"| {k} | {s[k]['ttft_p50_ms']:.1f} | {s[k]['ttft_p99_ms']:.1f} | {s[k]['chunks_per_s']:.0f} |")
    lines.append(f"\nAdded TTFT p50: {s['added_ttft_p50_ms']:.1f} ms; proxy/direct throughput: {s['throughput_ratio']:.2f}.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    r = {"decision": decision_times(), "streaming": streaming(), "machine": "2 shared CPU cores, no GPU", "plugins": list(PACKS)}
    out = Path("runs/bench"); out.mkdir(parents=True, exist_ok=True)
    (out / "safeagents.json").write_text(json.dumps(r, indent=1))
    (out / "safeagents.md").write_text(markdown(r))
    print(markdown(r))
