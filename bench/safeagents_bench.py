"""safeagents speed: decision time per tool call as a session grows, where it goes, and added streaming latency.

Run from the repo root: `python bench/safeagents_bench.py` (about two minutes on 2 cores). Writes
runs/bench/safeagents.json and runs/bench/safeagents.md. `--as before` files the numbers under another name (the json
keeps one result per name; the md shows them all, `after` last), e.g. for the code of an older commit:
`git archive COMMIT harness_adapters | tar -x -C /tmp/old && PYTHONPATH=/tmp/old python bench/safeagents_bench.py --as before`.

Decision times are measured in this process (the guard alone, `Guard.check`: stages 1 and 2, both packs), driving
sessions the way an agent does, one request per step, each carrying the whole conversation so far; a full atif-scan
of the same conversation is the reference. The profile is of one such session to 200 steps. The streaming numbers use three processes on
127.0.0.1: the scripted upstream (this file with `--serve-upstream PORT`), the proxy as the real command line
(`safeagents serve --upstream ... --port ...`), and the client here, which also goes straight to the same upstream
process; direct and proxied rounds alternate so load from other work on the machine falls on both.
"""
from __future__ import annotations
import asyncio, json, os, statistics, sys, time
from pathlib import Path
import httpx
from harness_adapters.detectors import Scanner
from harness_adapters.scripted import ScriptedUpstream

PACKS = ("harness_adapters.packs.smoldataenvs:checks", "harness_adapters.packs.traj2envs:checks")
STEPS, DRIVEN, WINDOW, FULL_REPS, SESSIONS, SINGLE = (1, 10, 50, 200), 10, 5, 5, 48, 100


def pct(xs, q): xs = sorted(xs); return xs[min(len(xs) - 1, int(q * len(xs)))]


def conversation(n):
    steps = [{"source": "system", "message": "You are a coding agent."}, {"source": "user", "message": "Analyse data.csv and fix the tests."}]
    for i in range(n):
        cmd = f"python -c \"import pandas as pd; df=pd.read_csv('data.csv'); print(df.describe())\" && pytest -q tests/test_{i}.py"
        steps.append({"source": "agent", "message": f"Step {i}: checking.", "tool_calls": [{"tool_call_id": f"c{i}", "function_name": "bash", "arguments": {"command": cmd}}],
                      "observation": {"results": [{"source_call_id": f"c{i}", "content": "ok\n" * 20}]}})
    steps[-1] = {k: v for k, v in steps[-1].items() if k != "observation"}
    return steps


def drive(guard, n_steps: int, session: str | None, tag: str = "") -> list[float]:
    "Milliseconds `guard` takes to decide each step of one session driven to `n_steps` steps, a request a step (`tag` makes its prompt its own)."
    out = []
    for n in range(1, n_steps + 1):
        conv = conversation(n)
        if tag: conv[1] = {**conv[1], "message": f"{conv[1]['message']} ({tag})"}
        t = time.perf_counter(); guard.check(conv, {"bash"}, session=session); out.append((time.perf_counter() - t) * 1000)
    return out


def decision_times():
    "Per step count: decision time p50/p99 over the driven sessions (their last WINDOW steps up to n), and a full scan's."
    from harness_adapters.guard import Guard
    g, sc = Guard(PACKS), Scanner(PACKS)
    runs = [drive(g, max(STEPS), f"d{k}") for k in range(DRIVEN)]
    bare = [drive(g, max(STEPS), None, f"bare {k}") for k in range(DRIVEN)]  # requests without a session id
    out = {}
    for n in STEPS:
        inc = [ms for r in runs for ms in r[max(0, n - WINDOW):n]]
        nosid = [ms for r in bare for ms in r[max(0, n - WINDOW):n]]
        full = []
        for _ in range(FULL_REPS):
            conv = conversation(n); t = time.perf_counter(); sc.full_scan(conv); full.append((time.perf_counter() - t) * 1000)
        out[n] = {"incremental_p50_ms": statistics.median(inc), "incremental_p99_ms": pct(inc, 0.99),
                  "full_p50_ms": statistics.median(full), "full_p99_ms": pct(full, 0.99), "decisions": len(inc),
                  "no_session_p50_ms": statistics.median(nosid), "no_session_p99_ms": pct(nosid, 0.99)}
    return out


def profile(n_steps: int = 200, top: int = 14) -> str:
    "cProfile of one session driven to `n_steps` steps: the functions that take the time, by cumulative time."
    import cProfile, io, pstats
    from harness_adapters.guard import Guard
    g, pr = Guard(PACKS), cProfile.Profile()
    pr.enable(); drive(g, n_steps, "profiled"); pr.disable()
    buf = io.StringIO()
    pstats.Stats(pr, stream=buf).sort_stats("cumulative").print_stats(top)
    text = buf.getvalue()
    text = text[text.index("ncalls"):] if "ncalls" in text else text
    return "\n".join(l.replace(str(Path.cwd()) + "/", "").replace(sys.prefix + "/", "") for l in text.strip().splitlines())


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


async def one_plain(client, url):
    "Milliseconds of one non-streamed chat call."
    body = {"model": "m", "messages": [{"role": "user", "content": "write a long answer"}], "tools": [{"type": "function", "function": {"name": "bash"}}]}
    t0 = time.perf_counter()
    r = await client.post(url, json=body)
    assert r.status_code == 200, r.status_code
    r.json()
    return (time.perf_counter() - t0) * 1000


async def rounds(client, base, k, stream=True):
    "`k` rounds of SESSIONS concurrent streams (or non-streamed calls) against `base`: per-call results and wall time."
    res, t0 = [], time.perf_counter()
    for _ in range(k):
        res += await asyncio.gather(*[(one_stream if stream else one_plain)(client, f"{base(i)}/chat/completions") for i in range(SESSIONS)])
    return res, time.perf_counter() - t0


async def single(client, up_url, px_url, n=SINGLE):
    "One call at a time, direct and proxied in turn: non-streamed latency and time to the first content event (ms)."
    out = {f"{m}_{k}": [] for m in ("plain", "first_event") for k in ("direct", "proxy")}
    for i in range(n):
        for k, base in (("direct", f"{up_url}/v1"), ("proxy", f"{px_url}/s/one{i}/v1")):
            out[f"plain_{k}"].append(await one_plain(client, base + "/chat/completions"))
            out[f"first_event_{k}"].append((await one_stream(client, base + "/chat/completions"))[0] * 1000)
    return {k: statistics.median(v) for k, v in out.items()}


def summary(res, wall):
    ttft = [r[0] * 1000 for r in res]
    return {"ttft_p50_ms": statistics.median(ttft), "ttft_p99_ms": pct(ttft, 0.99), "stream_p50_ms": statistics.median(r[1] * 1000 for r in res),
            "chunks_per_s": sum(r[2] for r in res) / wall, "streams": len(res), "wall_s": wall}


async def load(up_url, px_url, blocks=BLOCKS):
    out = {"direct": ([], 0.0), "proxy": ([], 0.0)}
    plain = {"direct": [], "proxy": []}
    # idle connections dropped after 2 s: the servers (uvicorn) close theirs after 5 s, and reusing one as it closes fails
    async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=200, keepalive_expiry=2.0)) as c:
        await rounds(c, lambda i: up_url + "/v1", 1); await rounds(c, lambda i: f"{px_url}/s/w{i}/v1", 1)  # warm-up, not counted
        one = await single(c, up_url, px_url)
        for _ in range(blocks):
            for k, base in (("direct", lambda i: up_url + "/v1"), ("proxy", lambda i: f"{px_url}/s/s{i}/v1")):
                res, wall = await rounds(c, base, ROUNDS_PER_BLOCK)
                out[k] = (out[k][0] + res, out[k][1] + wall)
                plain[k] += (await rounds(c, base, 1, stream=False))[0]
    r = {k: summary(*v) for k, v in out.items()}
    for k in plain: r[k]["plain_p50_ms"] = statistics.median(plain[k])
    return r | {"single": one}


# `safeagents serve` under cProfile; uvicorn re-raises the SIGTERM it stopped on, which exits here through `finally`
PROFILED = """import cProfile, signal, sys
from harness_adapters.safeagents import main
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
pr = cProfile.Profile(); pr.enable()
try: main(sys.argv[1:])
finally: pr.disable(); pr.dump_stats({out!r})
"""


def proxy_load(profile_to: str | None = None, blocks: int = BLOCKS):
    "The upstream and the proxy (`safeagents serve`, under cProfile when `profile_to`) each in its own process; the client here, going to both in turn."
    import shutil, subprocess
    up_port, px_port = free_port(), free_port()
    exe = shutil.which("safeagents") or sys.exit("the `safeagents` console script is not installed (pip install -e .)")
    procs = []
    try:
        procs.append(subprocess.Popen([sys.executable, __file__, "--serve-upstream", str(up_port)]))
        up_url = f"http://127.0.0.1:{up_port}"
        wait_up(up_url + "/v1/models", procs[0])
        # profiled: the same command line, `safeagents.main` run under cProfile in a plain Python process
        run = [sys.executable, "-c", PROFILED.format(out=profile_to)] if profile_to else [exe]
        procs.append(subprocess.Popen(run + ["serve", "--upstream", up_url, "--host", "127.0.0.1", "--port", str(px_port)] + sum((["--plugin", p] for p in PACKS), [])))
        px_url = f"http://127.0.0.1:{px_port}"
        wait_up(px_url + "/v1/models", procs[1])   # through the proxy to the upstream
        return asyncio.run(asyncio.wait_for(load(up_url, px_url, blocks), 300))
    finally:
        for p in reversed(procs):
            p.terminate()  # uvicorn stops on SIGTERM, so cProfile writes its file
            try: p.wait(20)
            except subprocess.TimeoutExpired: p.kill()


def streaming():
    "Added latency and throughput, measured unprofiled; then where the proxy's event loop spends its time, in a second, profiled run."
    r = proxy_load()
    prof = Path("/tmp") / f"safeagents-proxy-{os.getpid()}.prof"
    proxy_load(str(prof), blocks=1)
    return r | {"added_ttft_p50_ms": r["proxy"]["ttft_p50_ms"] - r["direct"]["ttft_p50_ms"],
                "added_ttft_p99_ms": r["proxy"]["ttft_p99_ms"] - r["direct"]["ttft_p99_ms"],
                "added_plain_p50_ms": r["proxy"]["plain_p50_ms"] - r["direct"]["plain_p50_ms"],
                "throughput_ratio": r["proxy"]["chunks_per_s"] / r["direct"]["chunks_per_s"],
                "proxy_profile": proxy_profile(prof),
                "setup": "client (this process) -> `safeagents serve` (own process) -> scripted upstream (own process); "
                         "direct: client -> the same upstream process; rounds alternate direct/proxy",
                "reply": {"content_chunks": UPSTREAM_REPLY["chunks"], "sleep_per_chunk_s": UPSTREAM_REPLY["sleep_chunk"], "tool_calls": 1}}


def proxy_profile(path: Path, top: int = 16) -> str:
    "The proxy process's event-loop thread by own time (the checks run on worker threads: the decision table times them)."
    import io, pstats
    if not path.exists(): return ""
    buf = io.StringIO()
    st = pstats.Stats(str(path), stream=buf)
    st.sort_stats("tottime").print_stats(top)
    path.unlink()
    text = buf.getvalue()
    text = text[text.index("ncalls"):] if "ncalls" in text else text
    return "\n".join(l.replace(str(Path.cwd()) + "/", "").replace(sys.prefix + "/", "") for l in text.strip().splitlines())


def markdown_one(name, r):
    lines = [f"## {name}", "", r.get("code", ""), "",
             f"Decision time per tool call (`Guard.check`), {DRIVEN} sessions driven a request a step to {max(STEPS)} steps "
             f"(the last {WINDOW} steps up to n of each), and a full atif-scan of the same conversation:", "",
             "| agent steps | decision p50 (ms) | decision p99 (ms) | no session id p50 / p99 (ms) | full scan p50 (ms) | full scan p99 (ms) |", "|---|---|---|---|---|---|"]
    for n, d in r["decision"].items():
        bare = f"{d['no_session_p50_ms']:.2f} / {d['no_session_p99_ms']:.2f}" if "no_session_p50_ms" in d else "-"
        lines.append(f"| {n} | {d['incremental_p50_ms']:.2f} | {d['incremental_p99_ms']:.2f} | {bare} | {d['full_p50_ms']:.2f} | {d['full_p99_ms']:.2f} |")
    if r.get("profile"):
        lines += ["", f"Where the time goes: one session driven to {max(STEPS)} steps under cProfile (cumulative seconds, "
                  "profiler overhead included):", "", "```", r["profile"], "```"]
    s = r.get("streaming")
    if s and s.get("single"):
        o = s["single"]
        rows = [("1 session", "non-streamed call", o["plain_direct"], o["plain_proxy"]),
                ("1 session", "first streamed event", o["first_event_direct"], o["first_event_proxy"]),
                (f"{SESSIONS} sessions", "non-streamed call", s["direct"]["plain_p50_ms"], s["proxy"]["plain_p50_ms"]),
                (f"{SESSIONS} sessions", "first streamed event", s["direct"]["ttft_p50_ms"], s["proxy"]["ttft_p50_ms"])]
        lines += ["", "Added latency (goal: at most 2 ms at the median in each row; one tool call an answer, checked by both packs):", "",
                  "| load | what | direct p50 (ms) | proxy p50 (ms) | added (ms) |", "|---|---|---|---|---|"]
        lines += [f"| {a} | {b} | {d:.2f} | {p:.2f} | {p - d:+.2f} |" for a, b, d, p in rows]
    if s:
        lines += ["", f"{SESSIONS} concurrent streaming sessions x {BLOCKS * ROUNDS_PER_BLOCK} rounds per path, same run; client, proxy "
                  "(`safeagents serve`, both packs) and scripted upstream each in its own process on 127.0.0.1, "
                  f"direct and proxied rounds alternating. Machine: {r['machine']} (1-min load average {r['load_avg_1min'][0]} before, "
                  f"{r['load_avg_1min'][1]} after).", "",
                  "| path | TTFT p50 (ms) | TTFT p99 (ms) | stream p50 (ms) | chunks/s |", "|---|---|---|---|---|"]
        for k in ("direct", "proxy"):
            lines.append(f"| {k} | {s[k]['ttft_p50_ms']:.1f} | {s[k]['ttft_p99_ms']:.1f} | {s[k]['stream_p50_ms']:.1f} | {s[k]['chunks_per_s']:.0f} |")
        lines.append(f"\nAdded TTFT p50: {s['added_ttft_p50_ms']:.1f} ms (p99: {s['added_ttft_p99_ms']:.1f} ms); proxy/direct throughput: {s['throughput_ratio']:.2f} (goal: at least 0.95).")
        if s.get("proxy_profile"):
            lines += ["", "Where the proxy's event loop spends its time: a second run of the same load (one block) with the proxy under "
                      "cProfile, by own time:", "", "```", s["proxy_profile"], "```"]
    return "\n".join(lines)


def markdown(results: dict) -> str:
    names = sorted(results, key=lambda k: (k == "after", k))
    head = ["# safeagents speed", "", "`python bench/safeagents_bench.py` (`--as NAME` for another code version; see its docstring).", ""]
    d = {k: {str(n): v for n, v in results[k]["decision"].items()} for k in names}  # step counts are strings once read back
    if len(names) > 1:
        head += ["| agent steps | " + " | ".join(f"{k} p50 / p99 (ms)" for k in names) + " |", "|---|" + "---|" * len(names)]
        for n in d[names[-1]]:
            head.append(f"| {n} | " + " | ".join(f"{d[k][n]['incremental_p50_ms']:.2f} / {d[k][n]['incremental_p99_ms']:.2f}" if n in d[k] else "-" for k in names) + " |")
        head.append("")
    return "\n".join(head + [markdown_one(k, results[k]) + "\n" for k in names])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve-upstream"]: serve_upstream(int(sys.argv[2])); sys.exit(0)
    import argparse, os, subprocess
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--as", dest="name", default="after", help="file the numbers under this name (default: after)")
    ap.add_argument("--no-streaming", action="store_true", help="decision times and profile only")
    a = ap.parse_args()
    import harness_adapters
    code = Path(harness_adapters.__file__).resolve().parent
    try: rev = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError: rev = ""
    load0 = os.getloadavg()[0]
    r = {"decision": decision_times(), "profile": profile(), "streaming": None if a.no_streaming else streaming(),
         "machine": "2 shared CPU cores, no GPU", "plugins": list(PACKS),
         "when": time.strftime("%Y-%m-%d %H:%M")}
    where = code.relative_to(Path.cwd()) if code.is_relative_to(Path.cwd()) else code
    r["code"] = f"Code: `{where}`" + (f" at commit {rev}" if rev else "") + f", measured {r['when']}."
    r["load_avg_1min"] = [round(load0, 2), round(os.getloadavg()[0], 2)]  # before and after: other work on the same cores
    out = Path("runs/bench"); out.mkdir(parents=True, exist_ok=True)
    f = out / "safeagents.json"
    old = json.loads(f.read_text()) if f.exists() else {}
    results = old if "decision" not in old else {}  # a file of the older single-result shape is replaced
    results[a.name] = r
    f.write_text(json.dumps(results, indent=1))
    (out / "safeagents.md").write_text(markdown(results))
    print(markdown(results))
