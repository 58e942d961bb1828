"""safeagents speed: decision time per tool call as a session grows, where it goes, and added streaming latency.

Run from the repo root: `python bench/safeagents_bench.py` (about two minutes on 2 cores). Writes
runs/bench/safeagents.json and runs/bench/safeagents.md. `--as before` files the numbers under another name (the json
keeps one result per name; the md shows them all, `after` last), e.g. for the code of an older commit:
`git archive COMMIT harness_adapters | tar -x -C /tmp/old && PYTHONPATH=/tmp/old python bench/safeagents_bench.py --as before`.

Decision times are measured in this process (the guard alone, `Guard.check`: stages 1 and 2, both packs and the
effect rules as `rollouts.PACKS` runs them; `--without-effects`: the packs alone), driving
sessions the way an agent does, one request per step, each carrying the whole conversation so far; a full atif-scan
of the same conversation is the reference. The profile is of one such session to 200 steps. The streaming numbers use three processes on
127.0.0.1: the scripted upstream (this file with `--serve-upstream PORT`), the proxy as the real command line
(`safeagents serve --upstream ... --port ...`), and the client here (aiohttp), which also goes straight to the same
upstream process; direct and proxied rounds alternate so load from other work on the machine falls on both. The load
runs three times: all processes sharing both cores; the proxy pinned alone on one core (as when the model's work is
on an accelerator); and with the upstream at a model's pace. Each records the CPU time every process spent per call,
the one figure here that other work on the machine does not move much.
"""
from __future__ import annotations
import asyncio, json, os, statistics, sys, time
from pathlib import Path
import httpx  # wait_up only; the load client is aiohttp (`one_stream`)
from harness_adapters.detectors import Scanner
try: from harness_adapters.safeagents import shard   # a pool's comma-separated URLs: each session's proxy (one proxy: itself)
except ImportError: shard = lambda url, session: url  # older code (`--as before`): one proxy
from harness_adapters.scripted import ScriptedUpstream
from harness_adapters.serving import free_port

PACKS = ("harness_adapters.packs.smoldataenvs:checks", "harness_adapters.packs.traj2envs:checks", "harness_adapters.effects:zones")
STEPS, DRIVEN, WINDOW, FULL_REPS, SESSIONS, SINGLE = (1, 10, 50, 200), 10, 5, 5, 48, 100
CONTEXT = False   # `--context`: the driven sessions declare a task context (`effects.TaskContext`)


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
    for k in range(DRIVEN) if CONTEXT else ():   # each driven session told its task context, as a rollout tells the proxy
        from harness_adapters.effects import TaskContext
        g.set_context(f"d{k}", TaskContext(own=("/workspace",)))
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


def check_costs(n: int = 200, top: int = 6) -> dict:
    """The decision on one answer as the streaming loads send it (a 200-word message and a call) and on a short one, in
    new sessions (p50 ms); and, for the long answer, the step-scoped checks that take the most of it (atif-scan's
    `SurfaceDetector._judge` timed per check, mean us a decision)."""
    import collections
    import atif_scan.detectors.text as T
    from harness_adapters.guard import Guard
    g, spent = Guard(PACKS), collections.Counter()
    def answer(text): return [{"source": "user", "message": "write a long answer"}, {"source": "agent", "message": text, "tool_calls": [
        {"tool_call_id": "c0", "function_name": "bash", "arguments": {"command": "pytest -q"}}]}]
    out = {}
    for name, text in (("long", UPSTREAM_REPLY["text"]), ("short", SHORT_REPLY["text"])):
        ms = []
        for i in range(n):
            t = time.perf_counter(); g.check(answer(text), {"bash"}, session=f"{name}{i}"); ms.append((time.perf_counter() - t) * 1000)
        out[f"{name}_p50_ms"] = statistics.median(ms)
    judge = T.SurfaceDetector._judge
    def timed(self, surface, reads):
        t = time.perf_counter()
        try: return judge(self, surface, reads)
        finally: spent[self.spec.id] += time.perf_counter() - t
    T.SurfaceDetector._judge = timed
    try:
        for i in range(n): g.check(answer(UPSTREAM_REPLY["text"]), {"bash"}, session=f"timed{i}")
    finally: T.SurfaceDetector._judge = judge
    out["checks_us"] = {k: round(v / n * 1e6, 1) for k, v in spent.most_common(top)}
    out["all_checks_us"] = round(sum(spent.values()) / n * 1e6, 1)
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
# a short answer (a sentence and a call, as most agent steps are), asked for with model "short"
SHORT_REPLY = {"text": "Let me run the tests.", "calls": [("bash", {"command": "pytest -q"})]}
# the long answer at a model's pace (50 chunks a second a session, a mid-size model decoding on a GPU): model "paced"
PACED_REPLY = UPSTREAM_REPLY | {"sleep_chunk": 0.02}
BLOCKS, ROUNDS_PER_BLOCK = 3, 2  # direct and proxied rounds alternate (D P D P) so machine noise hits both alike


def serve_upstream(port: int):
    "Child process: the scripted upstream on 127.0.0.1:`port`, in its own process, until SIGTERM."
    up = ScriptedUpstream(default=UPSTREAM_REPLY)
    replies = {"short": SHORT_REPLY, "paced": PACED_REPLY}
    up.next = lambda body: replies.get(body.get("model"), UPSTREAM_REPLY)  # and no request kept: memory stays flat
    up.server.config.port = port
    up.server.run()



def wait_up(url: str, proc, timeout: float = 30):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if proc.poll() is not None: raise RuntimeError(f"{proc.args} exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code == 200: return
        except httpx.HTTPError: pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


def _body(model="m", stream=False):
    return json.dumps({"model": model, "stream": stream, "messages": [{"role": "user", "content": "write a long answer"}],
                       "tools": [{"type": "function", "function": {"name": "bash"}}]}).encode()


def _has_text(raw: bytes) -> bool:
    "Whether SSE bytes carry a non-empty content delta (parsed only until the first is found)."
    for line in raw.split(b"\n"):
        if line.startswith(b"data: {") and any((c.get("delta") or {}).get("content") for c in json.loads(line[6:]).get("choices") or []): return True
    return False


async def one_stream(client, url, model="m"):
    """Time to the first non-empty content delta, total time, and SSE data lines of one streamed chat call. The
    client is aiohttp reading raw bytes: with httpx parsing every line, the client's own CPU per call was 2-3x the
    proxy's, and on 2 shared cores it set the pace of both paths."""
    t0 = time.perf_counter(); ttft = None; buf = b""
    async with client.post(url, data=_body(model, True), headers={"content-type": "application/json"}) as r:
        assert r.status == 200, r.status
        async for raw in r.content.iter_any():
            if ttft is None:
                buf += raw
                if _has_text(buf[:buf.rfind(b"\n")]): ttft = time.perf_counter() - t0
            else: buf += raw
    return ttft, time.perf_counter() - t0, buf.count(b"\ndata: ") + buf.startswith(b"data: ")


async def one_plain(client, url, model="m"):
    "Milliseconds of one non-streamed chat call."
    t0 = time.perf_counter()
    async with client.post(url, data=_body(model), headers={"content-type": "application/json"}) as r:
        assert r.status == 200, r.status
        json.loads(await r.read())
    return (time.perf_counter() - t0) * 1000


def cpu_s(pid: int | None = None) -> float:
    "CPU seconds (user + system) used so far by process `pid`, or by this one, all threads."
    if pid is None: return time.process_time()
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


async def rounds(client, base, k, stream=True, pids=None, cpu=None, model="m"):
    """`k` rounds of SESSIONS concurrent streams (or non-streamed calls) against `base`: per-call results and wall time.
    With `pids` ({name: pid or None for this process}), the CPU seconds each used are added to `cpu`."""
    c0 = {n: cpu_s(p) for n, p in (pids or {}).items()}
    res, t0 = [], time.perf_counter()
    for _ in range(k):
        res += await asyncio.gather(*[(one_stream if stream else one_plain)(client, f"{base(i)}/chat/completions", model) for i in range(SESSIONS)])
    for n, p in (pids or {}).items(): cpu[n] = cpu.get(n, 0.0) + cpu_s(p) - c0[n]
    return res, time.perf_counter() - t0


async def single(client, up_url, px_url, n=SINGLE):
    """One call at a time, direct and proxied in turn: non-streamed latency and time to the first content event (ms),
    for the long answer of the load runs and for a short one (`SHORT_REPLY`)."""
    out = {}
    for i in range(n):
        for k, base in (("direct", f"{up_url}/v1"), ("proxy", f"{shard(px_url, f'one{i}')}/s/one{i}/v1")):
            for reply, model in (("", "m"), ("short_", "short")):
                out.setdefault(f"{reply}plain_{k}", []).append(await one_plain(client, base + "/chat/completions", model))
                out.setdefault(f"{reply}first_event_{k}", []).append((await one_stream(client, base + "/chat/completions", model))[0] * 1000)
    return {k: statistics.median(v) for k, v in out.items()}


def summary(res, wall):
    ttft = [r[0] * 1000 for r in res]
    return {"ttft_p50_ms": statistics.median(ttft), "ttft_p99_ms": pct(ttft, 0.99), "stream_p50_ms": statistics.median(r[1] * 1000 for r in res),
            "chunks_per_s": sum(r[2] for r in res) / wall, "streams": len(res), "wall_s": wall}


async def load(up_url, px_url, blocks=BLOCKS, pids=None, model="m"):
    "The single-session latencies, then `blocks` blocks of 48-session rounds, direct and proxied in turn; CPU per streamed call in each process."
    import aiohttp
    out = {"direct": ([], 0.0), "proxy": ([], 0.0)}
    plain, cpu = {"direct": [], "proxy": []}, {"direct": {}, "proxy": {}}
    # idle connections dropped after 2 s: the servers (uvicorn) close theirs after 5 s, and reusing one as it closes fails
    conn = aiohttp.TCPConnector(limit=200, keepalive_timeout=2.0)
    async with aiohttp.ClientSession(connector=conn, timeout=aiohttp.ClientTimeout(total=60)) as c:
        await rounds(c, lambda i: up_url + "/v1", 1); await rounds(c, lambda i: f"{shard(px_url, f'w{i}')}/s/w{i}/v1", 1)  # warm-up, not counted
        one = await single(c, up_url, px_url) if model == "m" else None
        for _ in range(blocks):
            for k, base in (("direct", lambda i: up_url + "/v1"), ("proxy", lambda i: f"{shard(px_url, f's{i}')}/s/s{i}/v1")):
                res, wall = await rounds(c, base, ROUNDS_PER_BLOCK, pids=pids, cpu=cpu[k], model=model)
                out[k] = (out[k][0] + res, out[k][1] + wall)
                plain[k] += (await rounds(c, base, 1, stream=False, model=model))[0]
    r = {k: summary(*v) for k, v in out.items()}
    for k in plain:
        r[k]["plain_p50_ms"] = statistics.median(plain[k])
        if pids: r[k]["cpu_ms_per_call"] = {n: 1000 * t / len(out[k][0]) for n, t in cpu[k].items()}
    return r | {"single": one}


# `safeagents serve` under cProfile; uvicorn re-raises the SIGTERM it stopped on, which exits here through `finally`
# (timed by the event loop's thread CPU time, so waiting for sockets is not counted, and the guard's worker threads are not in it)
PROFILED = """import cProfile, signal, sys, time
from harness_adapters.safeagents import main
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
pr = cProfile.Profile(time.thread_time); pr.enable()
try: main(sys.argv[1:])
finally: pr.disable(); pr.dump_stats({out!r})
"""


def proxy_load(profile_to: str | None = None, blocks: int = BLOCKS, pin: bool = False, model: str = "m"):
    """The upstream and the proxy (`safeagents serve`, under cProfile when `profile_to`) each in its own process; the
    client here, going to both in turn. `pin`: the proxy alone on CPU 1, the client and the upstream on CPU 0, as when
    the model server's work is on an accelerator and the proxy does not share cores with it."""
    import shutil, subprocess, tempfile
    up_port, px_port = free_port(), free_port()
    exe = shutil.which("safeagents") or sys.exit("the `safeagents` console script is not installed (pip install -e .)")
    procs, mine = [], os.sched_getaffinity(0)
    on = (lambda cpu: (lambda: os.sched_setaffinity(0, {cpu}))) if pin else (lambda cpu: None)
    if pin: os.sched_setaffinity(0, {0})
    try:
        procs.append(subprocess.Popen([sys.executable, __file__, "--serve-upstream", str(up_port)], preexec_fn=on(0)))
        up_url = f"http://127.0.0.1:{up_port}"
        wait_up(up_url + "/v1/models", procs[0])
        # profiled: the same command line, `safeagents.main` run under cProfile in a plain Python process
        run = [sys.executable, "-c", PROFILED.format(out=profile_to)] if profile_to else [exe]
        # run from /tmp: `python -c` puts the working directory first on sys.path, where a checkout's own code would win over PYTHONPATH
        procs.append(subprocess.Popen(run + ["serve", "--upstream", up_url, "--host", "127.0.0.1", "--port", str(px_port)] + sum((["--plugin", p] for p in PACKS), []),
                                      preexec_fn=on(1), cwd=tempfile.gettempdir()))
        px_url = f"http://127.0.0.1:{px_port}"
        wait_up(px_url + "/v1/models", procs[1])   # through the proxy to the upstream
        pids = {"client": None, "proxy": procs[1].pid, "upstream": procs[0].pid}
        return asyncio.run(asyncio.wait_for(load(up_url, px_url, blocks, pids, model), 300))
    finally:
        os.sched_setaffinity(0, mine)
        for p in reversed(procs):
            p.terminate()  # uvicorn stops on SIGTERM, so cProfile writes its file
            try: p.wait(20)
            except subprocess.TimeoutExpired: p.kill()


def streaming():
    "Added latency and throughput, measured unprofiled; then where the proxy's event loop spends its time, in a second, profiled run."
    r = proxy_load()
    pinned = proxy_load(pin=True) if len(os.sched_getaffinity(0)) >= 2 else None
    paced = proxy_load(model="paced", blocks=1)
    for x in (pinned, paced):
        if x: x |= {"added_ttft_p50_ms": x["proxy"]["ttft_p50_ms"] - x["direct"]["ttft_p50_ms"],
                    "added_plain_p50_ms": x["proxy"]["plain_p50_ms"] - x["direct"]["plain_p50_ms"],
                    "throughput_ratio": x["proxy"]["chunks_per_s"] / x["direct"]["chunks_per_s"]}
    prof = Path("/tmp") / f"safeagents-proxy-{os.getpid()}.prof"
    proxy_load(str(prof), blocks=1)
    return r | {"pinned": pinned, "paced": paced, "added_ttft_p50_ms": r["proxy"]["ttft_p50_ms"] - r["direct"]["ttft_p50_ms"],
                "added_ttft_p99_ms": r["proxy"]["ttft_p99_ms"] - r["direct"]["ttft_p99_ms"],
                "added_plain_p50_ms": r["proxy"]["plain_p50_ms"] - r["direct"]["plain_p50_ms"],
                "throughput_ratio": r["proxy"]["chunks_per_s"] / r["direct"]["chunks_per_s"],
                "proxy_profile": proxy_profile(prof),
                "setup": "client (this process) -> `safeagents serve` (own process) -> scripted upstream (own process); "
                         "direct: client -> the same upstream process; rounds alternate direct/proxy",
                "reply": {"content_chunks": UPSTREAM_REPLY["chunks"], "sleep_per_chunk_s": UPSTREAM_REPLY["sleep_chunk"], "tool_calls": 1}}


def group_cpu_s(pgid: int) -> float:
    "CPU seconds used so far by every live process of process group `pgid` (a vLLM server: its API server and engine)."
    total = 0.0
    for d in Path("/proc").iterdir():
        if not d.name.isdigit(): continue
        try: f = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError: continue
        if int(f[2]) == pgid: total += (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    return total


VLLM_TOOLS = [{"type": "function", "function": {"name": "bash", "description": "Run a shell command",
               "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}]


async def vllm_stream(client, url, tokens):
    "Time to the first content event, total time and events of one streamed call that generates exactly `tokens` tokens."
    body = {"model": "tiny", "stream": True, "max_tokens": tokens, "ignore_eos": True, "temperature": 0.0, "tools": VLLM_TOOLS,
            "messages": [{"role": "user", "content": "Explain what a unit test is, then list the files here."}]}
    t0 = time.perf_counter(); first = None; buf = b""
    async with client.post(url, json=body) as r:
        assert r.status == 200, (r.status, await r.text())
        async for raw in r.content.iter_any():
            if first is None: first = time.perf_counter() - t0
            buf += raw
    return first, time.perf_counter() - t0, buf.count(b"\ndata: ") + buf.startswith(b"data: ")


def vllm_load(sizes=(8, 48), tokens=64, reps=2):
    """The real upstream: vLLM serving `tiny` on CPU (this project's embedded model, as in CI and the CPU experiments),
    with `safeagents serve` in front. Per load: time to the first event, tokens/s, and CPU per call in the proxy and in
    vLLM's processes (API server and engine), direct and proxied rounds alternating."""
    import shutil, subprocess, aiohttp
    from harness_adapters.serving import ServerConfig, VLLMServer
    exe = shutil.which("safeagents")
    with VLLMServer(ServerConfig("tiny", max_num_seqs=max(sizes))) as srv:
        px_port = free_port()
        px = subprocess.Popen([exe, "serve", "--upstream", srv.url, "--host", "127.0.0.1", "--port", str(px_port)] + sum((["--plugin", p] for p in PACKS), []))
        try:
            px_url = f"http://127.0.0.1:{px_port}"; wait_up(px_url + "/v1/models", px)
            async def run():
                out = {}
                async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=600)) as c:
                    await asyncio.gather(*[vllm_stream(c, f"{srv.url}/v1/chat/completions", 8) for _ in range(max(sizes))])  # warm-up
                    for n in sizes:
                        acc = {k: {"res": [], "wall": 0.0, "px": 0.0, "vllm": 0.0} for k in ("direct", "proxy")}
                        for _ in range(reps):
                            for k, base in (("direct", lambda i: srv.url), ("proxy", lambda i: f"{px_url}/s/v{n}-{i}")):
                                c0, v0, t0 = cpu_s(px.pid), group_cpu_s(srv.proc.pid), time.perf_counter()
                                acc[k]["res"] += await asyncio.gather(*[vllm_stream(c, f"{base(i)}/v1/chat/completions", tokens) for i in range(n)])
                                acc[k]["wall"] += time.perf_counter() - t0
                                acc[k]["px"] += cpu_s(px.pid) - c0; acc[k]["vllm"] += group_cpu_s(srv.proc.pid) - v0
                        out[n] = {k: {"ttft_p50_ms": statistics.median(r[0] * 1000 for r in a["res"]),
                                      "tokens_per_s": tokens * len(a["res"]) / a["wall"], "calls": len(a["res"]),
                                      "cpu_ms_per_call": {"proxy": 1000 * a["px"] / len(a["res"]), "vllm": 1000 * a["vllm"] / len(a["res"])}}
                                  for k, a in acc.items()}
                return out
            return {"tokens": tokens, "loads": asyncio.run(run())}
        finally:
            px.terminate(); px.wait(20)


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
    c = r.get("checks")
    if c:
        lines += ["", f"The decision on one answer in a new session: {c['short_p50_ms']:.2f} ms p50 for a short one (a sentence and a call), "
                  f"{c['long_p50_ms']:.2f} ms for the 200-word one the streaming loads send. Of the long answer's, the step-scoped checks "
                  f"judging its surfaces take {c['all_checks_us'] / 1000:.2f} ms; the costliest (mean us a decision):", "",
                  "| check | us |", "|---|---|"] + [f"| {k} | {v:.0f} |" for k, v in c["checks_us"].items()]
    s = r.get("streaming")
    if s and s.get("single"):
        o, pin = s["single"], s.get("pinned")
        rows = [("1 session", f"{what}, {ans}", o[f"{pre}{key}_direct"], o[f"{pre}{key}_proxy"])
                for pre, ans in (("short_", "short answer"), ("", "200-word answer")) if f"{pre}plain_direct" in o
                for key, what in (("plain", "non-streamed call"), ("first_event", "first streamed event"))]
        rows += [(f"{SESSIONS} sessions{where}", f"{what}, 200-word answer", x["direct"][key], x["proxy"][key])
                 for where, x in (("", s), (", proxy on its own core", pin), (", at a model's pace", s.get("paced"))) if x
                 for key, what in (("plain_p50_ms", "non-streamed call"), ("ttft_p50_ms", "first streamed event"))]
        lines += ["", "Added latency (goal: at most 2 ms at the median in each row; one tool call an answer, checked by both packs):", "",
                  "| load | what | direct p50 (ms) | proxy p50 (ms) | added (ms) |", "|---|---|---|---|---|"]
        lines += [f"| {a} | {b} | {d:.2f} | {p:.2f} | {p - d:+.2f} |" for a, b, d, p in rows]
    if s:
        lines += ["", f"{SESSIONS} concurrent streaming sessions x {BLOCKS * ROUNDS_PER_BLOCK} rounds per path, same run; client (aiohttp), proxy "
                  "(`safeagents serve`, both packs) and scripted upstream each in its own process on 127.0.0.1, "
                  f"direct and proxied rounds alternating; each answer is 200 words in {UPSTREAM_REPLY['chunks']} chunks "
                  f"{UPSTREAM_REPLY['sleep_chunk'] * 1000:g} ms apart (a stress pace: {SESSIONS} sessions x {1 / UPSTREAM_REPLY['sleep_chunk']:.0f} chunks/s), then one tool call. "
                  f"Shared: all three processes on both cores; pinned: the proxy alone on one core, client and upstream on the other; "
                  f"paced: shared cores, chunks {PACED_REPLY['sleep_chunk'] * 1000:g} ms apart (a model decoding {1 / PACED_REPLY['sleep_chunk']:.0f} tokens/s a session). Machine: {r['machine']} (1-min load average {r['load_avg_1min'][0]} before, "
                  f"{r['load_avg_1min'][1]} after).", "",
                  "| cores | path | TTFT p50 (ms) | TTFT p99 (ms) | stream p50 (ms) | chunks/s | throughput vs direct | CPU ms a call: client / proxy / upstream |",
                  "|---|---|---|---|---|---|---|---|"]
        for where, x in (("shared", s), ("pinned", s.get("pinned")), ("paced", s.get("paced"))):
            if not x: continue
            for k in ("direct", "proxy"):
                c = x[k].get("cpu_ms_per_call")
                cpu = f"{c['client']:.2f} / {c['proxy']:.2f} / {c['upstream']:.2f}" if c else "-"
                ratio = f"{x[k]['chunks_per_s'] / x['direct']['chunks_per_s']:.2f}x"
                lines.append(f"| {where} | {k} | {x[k]['ttft_p50_ms']:.1f} | {x[k]['ttft_p99_ms']:.1f} | {x[k]['stream_p50_ms']:.1f} | {x[k]['chunks_per_s']:.0f} | {ratio} | {cpu} |")
        lines.append(f"\nShared cores: added TTFT p50 {s['added_ttft_p50_ms']:.1f} ms (p99: {s['added_ttft_p99_ms']:.1f} ms), proxy/direct throughput "
                     f"{s['throughput_ratio']:.2f}" + "".join(f"; {w}: added TTFT p50 {s[w]['added_ttft_p50_ms']:.1f} ms, throughput {s[w]['throughput_ratio']:.2f}"
                                                            for w in ("pinned", "paced") if s.get(w)) + " (goal: at least 0.95).")
        c = s["proxy"].get("cpu_ms_per_call")
        if c:
            x = s["proxy"]; per = x["chunks_per_s"] * x["wall_s"] / x["streams"]  # SSE events a call
            lines.append(f"\nThe proxy's CPU per relayed event at the stress pace: about {1000 * c['proxy'] / per:.0f} us (the scripted upstream's: "
                         f"{1000 * c['upstream'] / per:.0f} us), so one core relays about {per / c['proxy'] * 1000:,.0f} events/s with the check of each answer included.")
        v = r.get("vllm")
        if v:
            lines += ["", f"Against the real upstream: vLLM serving `tiny` on CPU (2 cores shared with the proxy and the client), each call "
                      f"streaming exactly {v['tokens']} tokens with a tool declared; direct and proxied rounds alternating:", "",
                      "| sessions | path | first event p50 (ms) | tokens/s | vs direct | CPU ms a call: proxy / vLLM |", "|---|---|---|---|---|---|"]
            for n, x in v["loads"].items():
                for k in ("direct", "proxy"):
                    c = x[k]["cpu_ms_per_call"]
                    lines.append(f"| {n} | {k} | {x[k]['ttft_p50_ms']:.1f} | {x[k]['tokens_per_s']:.0f} | "
                                 f"{x[k]['tokens_per_s'] / x['direct']['tokens_per_s']:.2f}x | {c['proxy']:.1f} / {c['vllm']:.0f} |")
        if s.get("proxy_profile"):
            lines += ["", "Where the proxy's event loop spends its CPU: a second run of the same load (one block) with the proxy under "
                      "cProfile timed by the event loop thread's CPU time (waiting on sockets is not counted; the checks run on worker "
                      "threads, timed in the decision table above), by own time:", "", "```", s["proxy_profile"], "```"]
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
    ap.add_argument("--without-effects", action="store_true", help="the two packs only, without the effect rules (`effects:zones`)")
    ap.add_argument("--no-vllm", action="store_true", help="skip the load against a real vLLM server (tiny on CPU)")
    ap.add_argument("--context", action="store_true", help="the driven sessions declare a task context (the agent's own /workspace)")
    a = ap.parse_args()
    CONTEXT = a.context
    import harness_adapters
    code = Path(harness_adapters.__file__).resolve().parent
    try:
        rev = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        if rev and subprocess.run(["git", "-C", str(code), "status", "--porcelain", "--", "."], capture_output=True, text=True).stdout.strip():
            rev += " with uncommitted changes"
    except OSError: rev = ""
    if a.without_effects: PACKS = PACKS[:2]
    load0 = os.getloadavg()[0]
    r = {"decision": decision_times(), "profile": profile(), "checks": check_costs(), "streaming": None if a.no_streaming else streaming(),
         "vllm": None if a.no_streaming or a.no_vllm else vllm_load(),
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
