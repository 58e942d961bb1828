"""safeagents speed: decision time per tool call (incremental vs full atif-scan) and added streaming latency.

Run from the repo root: `python bench/safeagents_bench.py` (about a minute on 2 cores). Writes
runs/bench/safeagents.json and runs/bench/safeagents.md.

Decision times are measured in this process (the guard alone). The streaming numbers use three processes on
127.0.0.1: the scripted upstream (this file with `--serve-upstream PORT`), the proxy as the real command line
(`safeagents serve --upstream ... --port ...`), and the client here, which also goes straight to the same upstream
process; direct and proxied rounds alternate so load from other work on the machine falls on both.
"""
from __future__ import annotations
import asyncio, json, statistics, sys, time
from pathlib import Path
import httpx
from harness_adapters.detectors import Scanner
from harness_adapters.scripted import ScriptedUpstream

PACKS = ("harness_adapters.packs.smoldataenvs:checks", "harness_adapters.packs.traj2envs:checks")
STEPS, REPS, SESSIONS = (1, 10, 50), 40, 48


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


UPSTREAM_REPLY = {"text": "word " * 200, "chunks": 40, "calls": [("bash", {"command": "pytest -q"})], "sleep_chunk": 0.002}
BLOCKS, ROUNDS_PER_BLOCK = 3, 2  # direct and proxied rounds alternate (D P D P) so machine noise hits both alike


def serve_upstream(port: int):
    "Child process: the scripted upstream on 127.0.0.1:`port`, in its own process, until SIGTERM."
    up = ScriptedUpstream(default=UPSTREAM_REPLY)
    up.server.config.port = port
    up.server.run()


def free_port() -> int:
    import socket
    with socket.socket() as s: s.bind(("127.0.0.1", 0)); return s.getsockname()[1]


def wait_up(url: str, proc, timeout: float = 30):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if proc.poll() is not None: raise RuntimeError(f"{proc.args} exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code == 200: return
        except httpx.HTTPError: pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


async def one_stream(client, url):
    "Time to the first non-empty content delta, total time, and SSE data lines of one streamed chat call."
    t0 = time.perf_counter(); ttft = None; n = 0
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "write a long answer"}],
            "tools": [{"type": "function", "function": {"name": "bash"}}]}
    async with client.stream("POST", url, json=body) as r:
        assert r.status_code == 200, r.status_code
        async for line in r.aiter_lines():
            if not line.startswith("data: "): continue
            n += 1
            if ttft is None and line != "data: [DONE]" and any((c.get("delta") or {}).get("content") for c in json.loads(line[6:]).get("choices") or []):
                ttft = time.perf_counter() - t0
    return ttft, time.perf_counter() - t0, n


async def rounds(client, base, k):
    "`k` rounds of SESSIONS concurrent streams against `base`: per-stream results and wall time."
    res, t0 = [], time.perf_counter()
    for _ in range(k):
        res += await asyncio.gather(*[one_stream(client, f"{base(i)}/chat/completions") for i in range(SESSIONS)])
    return res, time.perf_counter() - t0


def summary(res, wall):
    ttft = [r[0] * 1000 for r in res]
    return {"ttft_p50_ms": statistics.median(ttft), "ttft_p99_ms": pct(ttft, 0.99), "stream_p50_ms": statistics.median(r[1] * 1000 for r in res),
            "chunks_per_s": sum(r[2] for r in res) / wall, "streams": len(res), "wall_s": wall}


async def load(up_url, px_url):
    out = {"direct": ([], 0.0), "proxy": ([], 0.0)}
    # idle connections dropped after 2 s: the servers (uvicorn) close theirs after 5 s, and reusing one as it closes fails
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=200, keepalive_expiry=2.0)) as c:
        await rounds(c, lambda i: up_url + "/v1", 1); await rounds(c, lambda i: f"{px_url}/s/w{i}/v1", 1)  # warm-up, not counted
        for _ in range(BLOCKS):
            for k, base in (("direct", lambda i: up_url + "/v1"), ("proxy", lambda i: f"{px_url}/s/s{i}/v1")):
                res, wall = await rounds(c, base, ROUNDS_PER_BLOCK)
                out[k] = (out[k][0] + res, out[k][1] + wall)
    return {k: summary(*v) for k, v in out.items()}


def streaming():
    "The upstream and the proxy (`safeagents serve`) each in its own process; the client here, going to both in turn."
    import shutil, subprocess
    up_port, px_port = free_port(), free_port()
    exe = shutil.which("safeagents") or sys.exit("the `safeagents` console script is not installed (pip install -e .)")
    procs = []
    try:
        procs.append(subprocess.Popen([sys.executable, __file__, "--serve-upstream", str(up_port)]))
        up_url = f"http://127.0.0.1:{up_port}"
        wait_up(up_url + "/v1/models", procs[0])
        procs.append(subprocess.Popen([exe, "serve", "--upstream", up_url, "--host", "127.0.0.1", "--port", str(px_port)] + sum((["--plugin", p] for p in PACKS), [])))
        px_url = f"http://127.0.0.1:{px_port}"
        wait_up(px_url + "/v1/models", procs[1])   # through the proxy to the upstream
        r = asyncio.run(asyncio.wait_for(load(up_url, px_url), 150))
    finally:
        for p in reversed(procs):
            p.terminate()
            try: p.wait(10)
            except subprocess.TimeoutExpired: p.kill()
    return r | {"added_ttft_p50_ms": r["proxy"]["ttft_p50_ms"] - r["direct"]["ttft_p50_ms"],
                "added_ttft_p99_ms": r["proxy"]["ttft_p99_ms"] - r["direct"]["ttft_p99_ms"],
                "throughput_ratio": r["proxy"]["chunks_per_s"] / r["direct"]["chunks_per_s"],
                "setup": "client (this process) -> `safeagents serve` (own process) -> scripted upstream (own process); "
                         "direct: client -> the same upstream process; rounds alternate direct/proxy",
                "reply": {"content_chunks": UPSTREAM_REPLY["chunks"], "sleep_per_chunk_s": UPSTREAM_REPLY["sleep_chunk"], "tool_calls": 1}}


def markdown(r):
    lines = ["| agent steps | incremental p50 (ms) | incremental p99 (ms) | full p50 (ms) | full p99 (ms) |", "|---|---|---|---|---|"]
    for n, d in r["decision"].items():
        lines.append(f"| {n} | {d['incremental_p50_ms']:.2f} | {d['incremental_p99_ms']:.2f} | {d['full_p50_ms']:.2f} | {d['full_p99_ms']:.2f} |")
    s = r["streaming"]
    lines += ["", f"{SESSIONS} concurrent streaming sessions x {BLOCKS * ROUNDS_PER_BLOCK} rounds per path, same run; client, proxy "
              "(`safeagents serve`, both packs) and scripted upstream each in its own process on 127.0.0.1, "
              f"direct and proxied rounds alternating. Machine: {r['machine']} (1-min load average {r['load_avg_1min'][0]} before, "
              f"{r['load_avg_1min'][1]} after).", "",
              "| path | TTFT p50 (ms) | TTFT p99 (ms) | stream p50 (ms) | chunks/s |", "|---|---|---|---|---|"]
    for k in ("direct", "proxy"):
        lines.append(f"| {k} | {s[k]['ttft_p50_ms']:.1f} | {s[k]['ttft_p99_ms']:.1f} | {s[k]['stream_p50_ms']:.1f} | {s[k]['chunks_per_s']:.0f} |")
    lines.append(f"\nAdded TTFT p50: {s['added_ttft_p50_ms']:.1f} ms (p99: {s['added_ttft_p99_ms']:.1f} ms); proxy/direct throughput: {s['throughput_ratio']:.2f}.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve-upstream"]: serve_upstream(int(sys.argv[2])); sys.exit(0)
    import os
    load0 = os.getloadavg()[0]
    r = {"decision": decision_times(), "streaming": streaming(), "machine": "2 shared CPU cores, no GPU", "plugins": list(PACKS),
         "load_avg_1min": [round(load0, 2), round(os.getloadavg()[0], 2)]}  # before and after: other work on the same cores
    out = Path("runs/bench"); out.mkdir(parents=True, exist_ok=True)
    (out / "safeagents.json").write_text(json.dumps(r, indent=1))
    (out / "safeagents.md").write_text(markdown(r))
    print(markdown(r))
