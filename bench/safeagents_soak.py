"""safeagents soak: many concurrent sessions for a bounded time; no turn lost or given to another session, memory bounded.

Run from the repo root: `python bench/safeagents_soak.py` (1,000 sessions for 60 s; `--sessions N --seconds S` to
change). Writes runs/bench/safeagents_soak.json and runs/bench/safeagents_soak.md.

Three processes on 127.0.0.1: an echo upstream (this file with `--serve-upstream PORT`: each answer carries the marker
of the request's last user message, in a tool call, whole or streamed, OpenAI or Anthropic), the proxy as the real
command line (`safeagents serve --capture`, both packs), and the client here: `--sessions` sessions, each sending one
request after another (the four API modes in turn) until the time is up. Checked: every answer carries its own
request's marker; each session takes its captured turns every 10 requests (DELETE, as the trainer does) and finds
exactly the requests it made, in order, each answered with its own marker (none lost, none another session's); the
proxy's RSS, sampled every 5 s, levels off. The wall time runs past `--seconds` by the requests still in flight.
"""
from __future__ import annotations
import argparse, asyncio, json, os, re, subprocess, sys, time
from pathlib import Path
import httpx
from harness_adapters.serving import free_port

PACKS = ("harness_adapters.packs.smoldataenvs:checks", "harness_adapters.packs.traj2envs:checks")
MARK = re.compile(r"soak:[\w-]+:\d+")
BASH = {"type": "function", "function": {"name": "bash", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}}
BASH_A = {"name": "bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
MODES = [("openai", False), ("openai", True), ("anthropic", False), ("anthropic", True)]


def serve_upstream(port: int):
    "Child process: an upstream whose answers echo the marker of the request's last user message."
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    def marker(body):
        m = MARK.search(json.dumps(body["messages"][-1]))
        return m.group(0) if m else "none"

    async def chat(req):
        body = await req.json(); mk = marker(body); args = json.dumps({"command": f"echo {mk}"})
        call = {"id": "call_0", "type": "function", "function": {"name": "bash", "arguments": args}}
        if not body.get("stream"):
            return JSONResponse({"id": "c", "object": "chat.completion", "created": 1, "model": "m", "prompt_token_ids": [1, 2],
                                 "choices": [{"index": 0, "finish_reason": "tool_calls", "token_ids": [3, 4], "message": {"role": "assistant", "content": "ok", "tool_calls": [call]}}]})
        def ch(delta, fin=None, **kw): return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", **kw,
                                                                    "choices": [{"index": 0, "delta": delta, "finish_reason": fin, "token_ids": [3]}]}) + "\n\n"
        async def gen():
            yield ch({"role": "assistant", "content": "ok"}, prompt_token_ids=[1, 2])
            yield ch({"tool_calls": [{"index": 0, **call, "function": {"name": "bash", "arguments": args[:10]}}]})
            yield ch({"tool_calls": [{"index": 0, "function": {"arguments": args[10:]}}]})
            yield ch({}, "tool_calls"); yield "data: [DONE]\n\n"
        return StreamingResponse(gen(), media_type="text/event-stream")

    async def messages(req):
        body = await req.json(); mk = marker(body)
        msg = {"id": "m", "type": "message", "role": "assistant", "model": "m", "stop_reason": "tool_use", "stop_sequence": None,
               "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "toolu_0", "name": "bash", "input": {"command": f"echo {mk}"}}],
               "usage": {"input_tokens": 1, "output_tokens": 1}}
        if not body.get("stream"): return JSONResponse(msg)
        def ev(d): return f"event: {d['type']}\ndata: {json.dumps(d)}\n\n"
        async def gen():
            yield ev({"type": "message_start", "message": {**msg, "content": [], "stop_reason": None}})
            yield ev({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
            yield ev({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}})
            yield ev({"type": "content_block_stop", "index": 0})
            yield ev({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_0", "name": "bash", "input": {}}})
            yield ev({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": json.dumps({"command": f"echo {mk}"})}})
            yield ev({"type": "content_block_stop", "index": 1})
            yield ev({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 1}})
            yield ev({"type": "message_stop"})
        return StreamingResponse(gen(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]), Route("/v1/messages", messages, methods=["POST"]),
                            Route("/v1/models", lambda r: JSONResponse({"data": []}))])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", backlog=4096)


def rss_mb(pid: int) -> float:
    return int(open(f"/proc/{pid}/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def wait_up(url: str, proc, timeout: float = 60):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if proc.poll() is not None: raise RuntimeError(f"{url}: process exited ({proc.returncode})")
        try: httpx.get(url + "/v1/models", timeout=2); return
        except httpx.HTTPError: time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


async def session(client, url, token, sid, stop_at, tally, errors):
    """One session: requests one after another until `stop_at`, each answer carrying its own marker; every 10 requests
    (a rollout's worth) and at the end it takes its captured turns from the proxy (DELETE, as the trainer does) and
    checks them: exactly the requests it made since the last time, in order, each answered with its own marker."""
    k, pending = 0, []
    async def take():
        r = await client.delete(f"{url}/safeagents/sessions/{sid}/turns", headers={"X-Safeagents-Admin": token})
        turns = r.json()["turns"]
        ks = [int(m.group(0).split(":")[2]) if (m := MARK.search(json.dumps(t["messages"]))) else -1 for t in turns]
        tally["turns"] += len(turns); tally["lost"] += len(set(pending) - set(ks)); tally["extra"] += len(set(ks) - set(pending))
        tally["out_of_order"] += ks != sorted(ks)
        for t, kk in zip(turns, ks):
            ids = set(MARK.findall(json.dumps(t["messages"])) + MARK.findall(json.dumps(t["message"])))
            tally["misattributed"] += ids != {f"soak:{sid}:{kk}"} or t["session"] != sid
        pending.clear()
    while time.time() < stop_at:
        api, stream = MODES[(k + int(sid[1:])) % 4]
        mk = f"soak:{sid}:{k}"
        body = {"model": "m", "stream": stream, "messages": [{"role": "user", "content": f"run {mk}"}]}
        body |= {"max_tokens": 20, "tools": [BASH_A]} if api == "anthropic" else {"tools": [BASH]}
        try:
            r = await client.post(f"{url}/s/{sid}/v1/" + ("messages" if api == "anthropic" else "chat/completions"), json=body)
            got = MARK.findall(r.text)
            if r.status_code != 200 or set(got) != {mk}: errors.append(f"{sid} {k}: {r.status_code} {r.text[:200]!r}")
            pending.append(k); tally["requests"] += 1
        except httpx.HTTPError as e: errors.append(f"{sid} {k}: {type(e).__name__}")
        k += 1
        if k % 10 == 0: await take()
    await take()


async def load(url, token, n, seconds, proxy_pid):
    tally, errors, rss = dict.fromkeys(("requests", "turns", "lost", "extra", "out_of_order", "misattributed"), 0), [], []
    # httpx's default idle expiry (5 s), as a harness's client would have: the proxy must keep connections longer
    limits = httpx.Limits(max_connections=n + 16, max_keepalive_connections=n + 16)
    async with httpx.AsyncClient(timeout=httpx.Timeout(120.0), limits=limits) as client:
        t0 = time.time(); stop_at = t0 + seconds
        async def sample():
            while time.time() < stop_at: rss.append((round(time.time() - t0), rss_mb(proxy_pid))); await asyncio.sleep(5)
        await asyncio.gather(sample(), *(session(client, url, token, f"s{i}", stop_at, tally, errors) for i in range(n)))
        wall = time.time() - t0
    return tally, errors, rss, wall


def main():
    ap = argparse.ArgumentParser(); ap.add_argument("--sessions", type=int, default=1000); ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--serve-upstream", type=int); a = ap.parse_args()
    if a.serve_upstream: return serve_upstream(a.serve_upstream)
    up_port, px_port, token = free_port(), free_port(), "soak-admin-token"
    up_url, px_url = f"http://127.0.0.1:{up_port}", f"http://127.0.0.1:{px_port}"
    exe = str(Path(sys.executable).parent / "safeagents")
    procs = [subprocess.Popen([sys.executable, __file__, "--serve-upstream", str(up_port)])]
    try:
        wait_up(up_url, procs[0])
        procs.append(subprocess.Popen([exe, "serve", "--upstream", up_url, "--port", str(px_port), "--capture"] + sum((["--plugin", p] for p in PACKS), []),
                                      env=os.environ | {"SAFEAGENTS_ADMIN_TOKEN": token}))
        wait_up(px_url, procs[1])
        rss0 = rss_mb(procs[1].pid)
        tally, errors, rss, wall = asyncio.run(load(px_url, token, a.sessions, a.seconds, procs[1].pid))
        rss_end = rss_mb(procs[1].pid)
    finally:
        for p in procs: p.terminate()
        for p in procs: p.wait(30)
    r = {"sessions": a.sessions, "seconds": a.seconds, "wall_s": round(wall, 1), **tally, "errors": len(errors),
         "error_examples": errors[:5], "requests_per_s": round(tally["requests"] / wall, 1),
         "proxy_rss_mb": {"start": round(rss0, 1), "samples": [(t, round(m, 1)) for t, m in rss], "end": round(rss_end, 1)},
         "cpus": os.cpu_count()}
    out = Path("runs/bench"); out.mkdir(parents=True, exist_ok=True)
    (out / "safeagents_soak.json").write_text(json.dumps(r, indent=1))
    (out / "safeagents_soak.md").write_text(markdown(r))
    print(markdown(r))
    return 0 if not errors and not any(tally[k] for k in ("lost", "extra", "out_of_order", "misattributed")) else 1


def markdown(r) -> str:
    rs = r["proxy_rss_mb"]
    return (f"# safeagents soak\n\n`python bench/safeagents_soak.py --sessions {r['sessions']} --seconds {r['seconds']:g}` "
            f"({r['cpus']} CPUs; echo upstream, `safeagents serve --capture` with both packs, and the client in three processes).\n\n"
            f"| sessions | wall s | requests | req/s | errors | turns read | lost | not asked for | out of order | misattributed | proxy RSS start → end (MB) |\n"
            f"|---|---|---|---|---|---|---|---|---|---|---|\n"
            f"| {r['sessions']} | {r['wall_s']} | {r['requests']} | {r['requests_per_s']} | {r['errors']} | {r['turns']} | {r['lost']} | {r['extra']} | "
            f"{r['out_of_order']} | {r['misattributed']} | {rs['start']} → {rs['end']} |\n\n"
            f"Proxy RSS every 5 s (s, MB): {', '.join(f'{t:g}: {m}' for t, m in rs['samples'])}.\n"
            + (f"\nFirst errors: {r['error_examples']}\n" if r["errors"] else ""))


if __name__ == "__main__":
    sys.exit(main())
