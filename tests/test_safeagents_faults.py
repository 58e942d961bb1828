"""safeagents under faults: bad requests, a broken upstream, clients that leave, a judge that raises or hangs.

Run: `python -m pytest tests/test_safeagents_faults.py -v` (loopback only, about 30 s). Every case asserts that the
proxy answers with a JSON error in the API's own shape, or a well-formed stream that ends in an error event, within
a deadline; and that a good session, run beside the faults the whole time, is never disturbed.
"""
from __future__ import annotations
import asyncio, json, os, signal, socket, struct, subprocess, sys, threading, time
import httpx, pytest
from harness_adapters.runs import read_jsonl
from harness_adapters.safeagents import Proxy, ProxyConfig

BASH = {"type": "function", "function": {"name": "bash", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}}
BASH_A = {"name": "bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}
MSGS = [{"role": "user", "content": "count the lines"}]
MAX_BODY = 64 * 1024
DEADLINE = 10.0  # no answer of the proxy may take longer than this (its upstream timeout is 1.5 s)


# ---------------------------------------------------------------- a faulty upstream (test double)
def _oa_chunk(delta, fin=None):
    return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": fin}]}

def _oa_stream(call=True) -> bytes:
    ev = [_oa_chunk({"role": "assistant", "content": "ok "})]
    if call: ev += [_oa_chunk({"tool_calls": [{"index": 0, "id": "call_0", "type": "function", "function": {"name": "bash", "arguments": '{"command": "wc -l data.csv"}'}}]})]
    ev += [_oa_chunk({}, "tool_calls" if call else "stop")]
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in ev) + b"data: [DONE]\n\n"

OA_WHOLE = {"id": "c1", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": "ok", "tool_calls": [{"id": "call_0", "type": "function",
                        "function": {"name": "bash", "arguments": '{"command": "wc -l data.csv"}'}}]}}]}

def _an_events(call=True) -> bytes:
    def ev(d): return f"event: {d['type']}\ndata: {json.dumps(d)}\n\n".encode()
    out = [ev({"type": "message_start", "message": {"id": "m1", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": None}}),
           ev({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
           ev({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
           ev({"type": "content_block_stop", "index": 0})]
    if call: out += [ev({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_0", "name": "bash", "input": {}}}),
                     ev({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"command": "wc -l data.csv"}'}}),
                     ev({"type": "content_block_stop", "index": 1})]
    out += [ev({"type": "message_delta", "delta": {"stop_reason": "tool_use" if call else "end_turn"}, "usage": {"output_tokens": 3}}),
            ev({"type": "message_stop"})]
    return b"".join(out)

AN_WHOLE = {"id": "m1", "type": "message", "role": "assistant", "model": "m", "stop_reason": "tool_use",
            "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "toolu_0", "name": "bash", "input": {"command": "wc -l data.csv"}}]}

def _head(status=200, ctype="application/json", length=None, extra=b"") -> bytes:
    h = f"HTTP/1.1 {status} X\r\ncontent-type: {ctype}\r\n" + (f"content-length: {length}\r\n" if length is not None else "")
    return h.encode() + extra + b"\r\n"

def _whole(body:bytes, status=200, ctype="application/json") -> bytes:
    return _head(status, ctype, len(body)) + body


class FaultyUpstream:
    """A test double for a broken model server on 127.0.0.1, speaking raw HTTP/1.1 so that it can break the protocol.

    The request's `model` names the fault (see `FAULTS`); `good` answers properly (a tool call, whole or streamed, in
    the request's API). It counts the connections that are open, so a test can see that the proxy lets go of them."""
    FAULTS = ("good", "status500", "status400_html", "nonjson", "json_list", "json_types", "garbled_sse", "typed_sse",
              "truncated_body", "truncated_sse", "reset", "reset_headers", "stall_headers", "stall_stream", "slow_stream", "huge_sse_line")

    def __init__(self):
        self.open, self.served, self.loop = 0, 0, asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self): self.thread.start(); self.ready.wait(10); return self
    def __exit__(self, *a):
        asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop); self.thread.join(5)

    async def _shutdown(self):
        self.srv.close()
        ts = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in ts: t.cancel()
        await asyncio.gather(*ts, return_exceptions=True)

    @property
    def url(self): return f"http://127.0.0.1:{self.port}"

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.srv = srv = self.loop.run_until_complete(asyncio.start_server(self._conn, "127.0.0.1", 0))
        self.port = srv.sockets[0].getsockname()[1]; self.ready.set()
        self.loop.run_forever()

    async def _conn(self, r:asyncio.StreamReader, w:asyncio.StreamWriter):
        self.open += 1
        try:
            while True:
                head = await r.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path = lines[0].split(" ")[:2]
                hs = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:] if l)}
                body = await r.readexactly(int(hs.get("content-length", 0)))
                self.served += 1
                if not await self._answer(method, path, json.loads(body) if body else {}, w): break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError): pass
        finally:
            self.open -= 1
            w.close()

    def _reset(self, w):
        w.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); w.transport.abort()

    async def _answer(self, method, path, body, w) -> bool:
        "Write the answer; False when the connection must not be reused."
        fault, stream, anth = body.get("model"), body.get("stream") is True, path.endswith("/messages")
        sse_ok = _an_events() if anth else _oa_stream()
        if method == "GET": w.write(_whole(b'{"object": "list", "data": []}')); await w.drain(); return True
        if fault == "good" or not isinstance(fault, str) or fault not in self.FAULTS:
            w.write(_whole(sse_ok, ctype="text/event-stream") if stream else _whole(json.dumps(AN_WHOLE if anth else OA_WHOLE).encode()))
        elif fault == "status500": w.write(_whole(b'{"error": {"message": "boom"}}', 500))
        elif fault == "status400_html": w.write(_whole(b"<html>bad request</html>", 400, "text/html"))
        elif fault == "nonjson": w.write(_whole(b"<html>\xff\xfe not json", ctype="text/html"))
        elif fault == "json_list": w.write(_whole(b"[1, 2, 3]"))
        elif fault == "json_types":
            bad = ({"content": "not a list", "stop_reason": 5} if anth else {"choices": [{"message": "a string"}, 7, {"message": {"tool_calls": [5, {"function": 3}]}}]})
            w.write(_whole(json.dumps(bad).encode()))
        elif fault == "garbled_sse":
            w.write(_head(ctype="text/event-stream", length=None, extra=b"connection: close\r\n")
                    + b"data: {not json\n\n\xff\xfe\x00garbage\n\ndata: \x80\x81\n\nevent: \ndata:\n\n::::\n\n"); await w.drain(); return False
        elif fault == "typed_sse":  # valid JSON, wrong types everywhere
            evs = ([b'[1,2]', b'"str"', b'5', b'null', b'{"type": 5}', b'{"type": "content_block_start", "index": [], "content_block": 3}',
                    b'{"type": "content_block_delta", "index": 0, "delta": "x"}', b'{"type": "message_delta", "delta": 5}']
                   if anth else [b'[1,2]', b'"error"', b'5', b'null', b'{"choices": 5}', b'{"choices": ["x", {"delta": 5}]}',
                                 b'{"choices": [{"index": 0, "delta": {"tool_calls": [5, {"index": "a", "function": {"name": 5, "arguments": 7}}]}}]}',
                                 b'{"choices": [{"index": 0, "delta": {"content": 5, "tool_calls": {"x": 1}}, "finish_reason": 9}], "prompt_token_ids": 3}'])
            w.write(_head(ctype="text/event-stream", extra=b"connection: close\r\n") + b"".join(b"data: " + e + b"\n\n" for e in evs))
            await w.drain(); return False
        elif fault == "truncated_body":
            b = json.dumps(AN_WHOLE if anth else OA_WHOLE).encode()
            w.write(_head(length=len(b)) + b[:len(b) // 2]); await w.drain(); return False
        elif fault == "truncated_sse":
            w.write(_head(ctype="text/event-stream", length=len(sse_ok)) + sse_ok[:len(sse_ok) // 2]); await w.drain(); return False
        elif fault == "reset":
            w.write(_head(ctype="text/event-stream", extra=b"connection: close\r\n") + sse_ok[:len(sse_ok) // 2]); await w.drain()
            await asyncio.sleep(0.05); self._reset(w); return False
        elif fault == "reset_headers": self._reset(w); return False
        elif fault == "stall_headers": await asyncio.sleep(30); return False
        elif fault == "stall_stream":
            w.write(_head(ctype="text/event-stream", extra=b"connection: close\r\n") + sse_ok[:40]); await w.drain()
            await asyncio.sleep(30); return False
        elif fault == "slow_stream":  # a long stream, one event every 20 ms: the client goes away in the middle
            w.write(_head(ctype="text/event-stream", extra=b"connection: close\r\n")); await w.drain()
            for i in range(500):
                e = _an_events(False).split(b"\n\n")[2] + b"\n\n" if anth else b"data: " + json.dumps(_oa_chunk({"content": f"{i} "})).encode() + b"\n\n"
                w.write(e); await w.drain(); await asyncio.sleep(0.02)
            return False
        elif fault == "huge_sse_line":  # 8 MB without a blank line: an event that never ends
            w.write(_head(ctype="text/event-stream", extra=b"connection: close\r\n") + b"data: " + b"x" * (8 << 20)); await w.drain(); return False
        await w.drain()
        return True


# ---------------------------------------------------------------- fixtures
def rss_mb() -> float:
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

RELEASE = threading.Event()  # lets a hung judge go at the end of its test

def _judge(request, name, args, findings):
    "A judge that raises when the user's request says `raise`, hangs on `hang`, else allows."
    if "raise" in request: raise RuntimeError("the judge fell over")
    if "hang" in request: RELEASE.wait(60)
    return None


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    "A faulty upstream and a proxy in front of it (small body limit, 1.5 s upstream timeout), and a good session beside."
    d = tmp_path_factory.mktemp("faults")
    with FaultyUpstream() as up:
        # Anthropic requests relayed to the upstream's /v1/messages (the path without capture), so that its faults are
        # the Messages stream's; the chat-completions path they take in capture mode is the OpenAI rows'
        px = Proxy(ProxyConfig(up.url, events=str(d / "events.jsonl"), capture=True, max_body=MAX_BODY, timeout_s=1.5,
                               messages_via_chat=False)).start()
        side = GoodSession(px.url); side.start()
        try: yield up, px, side
        finally:
            side.stop(); px.stop()
    assert side.errors == [], side.errors[:3]
    assert side.ok > 0


class GoodSession(threading.Thread):
    "A normal agent session beside the faults: streamed and whole requests in both APIs, each must succeed."
    def __init__(self, url):
        super().__init__(daemon=True); self.url, self.ok, self.errors, self.halt = url, 0, [], threading.Event()
    def stop(self): self.halt.set(); self.join(30)
    def run(self):
        with httpx.Client(timeout=DEADLINE) as c:
            i = 0
            while not self.halt.is_set():
                try: good(c, self.url, session="beside", api=("openai", "anthropic")[i % 2], stream=bool(i // 2 % 2)); self.ok += 1
                except Exception as e: self.errors.append(repr(e))
                i += 1; self.halt.wait(0.05)


def post(c:httpx.Client, url, api="openai", session="f", **kw) -> httpx.Response:
    return c.post(f"{url}/s/{session}/v1/" + ("messages" if api == "anthropic" else "chat/completions"), **kw)

def good(c:httpx.Client, url, session="good", api="openai", stream=False):
    "A good request; asserts it got the tool call back."
    body = ({"model": "good", "max_tokens": 50, "messages": MSGS, "tools": [BASH_A]} if api == "anthropic"
            else {"model": "good", "messages": MSGS, "tools": [BASH]}) | {"stream": stream}
    r = post(c, url, api, session, json=body)
    assert r.status_code == 200, (r.status_code, r.text[:300])
    if stream:
        evs = parse_sse(r.content)
        assert not any(is_error(n, d) for n, d in evs), r.text[:300]
        assert "wc -l data.csv" in r.text
    else: assert "wc -l" in r.text and "blocked" not in r.text

def parse_sse(raw:bytes) -> list[tuple[str|None, dict|str]]:
    "The events of a stream; asserts each is well formed (a JSON object, or [DONE])."
    out = []
    for ev in raw.decode().split("\n\n"):
        if not ev.strip(): continue
        name = next((l[6:].strip() for l in ev.split("\n") if l.startswith("event:")), None)
        data = "\n".join(l[5:].lstrip() for l in ev.split("\n") if l.startswith("data:"))
        out.append((name, data if data == "[DONE]" else json.loads(data)))
        assert data == "[DONE]" or isinstance(out[-1][1], dict), ev[:200]
    assert raw.endswith(b"\n\n"), raw[-200:]
    return out

def is_error(name, d) -> bool:
    return isinstance(d, dict) and ("error" in d and (name == "error" or d.get("type") == "error" or "choices" not in d))

def assert_api_error(r:httpx.Response, lo=400, hi=599):
    "A JSON error in the shape both SDKs read: `error.message` and `error.type`."
    assert lo <= r.status_code <= hi, (r.status_code, r.text[:300])
    e = r.json()["error"]
    assert isinstance(e["message"], str) and e["message"] and isinstance(e["type"], str), r.text[:300]

def assert_stream_error(r:httpx.Response):
    "A stream that is well formed and ends in an error event (or an error status with a JSON error)."
    if r.status_code != 200: return assert_api_error(r)
    evs = parse_sse(r.content)
    assert evs and is_error(*evs[-1]), r.text[-300:]


# ---------------------------------------------------------------- bad requests
BAD_BODIES = {
    "empty": b"", "not json": b"{'messages': }", "truncated": b'{"model": "good", "messages": [{"role": "user", "con',
    "a list": b"[]", "a string": b'"hello"', "null": b"null", "a number": b"12",
    "invalid utf-8": b'{"model": "good", "messages": [{"role": "user", "content": "\xff\xfe\xc3"}]}',
    "deep arrays": b"[" * 30000 + b"]" * 30000,
    "deep objects": b'{"model": "good", "messages": ' + b'{"a": ' * 10000 + b"1" + b"}" * 10000 + b"}",
    "deep messages": b'{"model": "good", "messages": [{"role": "user", "content": ' + b"[" * 20000 + b"]" * 20000 + b"}]}",
    "nan": b'{"model": "good", "messages": [], "temperature": NaN}',
    "huge number": b'{"model": "good", "messages": [], "max_tokens": 1' + b"0" * 5000 + b"}",
}

@pytest.mark.parametrize("api", ["openai", "anthropic"])
@pytest.mark.parametrize("case", list(BAD_BODIES))
def test_malformed_body(rig, api, case):
    up, px, _ = rig
    with httpx.Client(timeout=DEADLINE) as c:
        r = post(c, px.url, api, content=BAD_BODIES[case], headers={"content-type": "application/json"})
        assert_api_error(r, 400, 499)
        good(c, px.url, api=api)


def _types(api) -> dict:
    "Requests with a wrong type in one field each."
    base = {"model": "good", "messages": MSGS, "tools": [BASH_A if api == "anthropic" else BASH]} | ({"max_tokens": 50} if api == "anthropic" else {})
    cases = {"messages an int": {"messages": 5}, "messages a string": {"messages": "hi"}, "messages a dict": {"messages": {"role": "user"}},
             "message an int": {"messages": [5]}, "message null": {"messages": [None]}, "message a list": {"messages": [[]]},
             "content an int": {"messages": [{"role": "user", "content": 5}]}, "content a dict": {"messages": [{"role": "user", "content": {"a": 1}}]},
             "content parts of ints": {"messages": [{"role": "user", "content": [1, 2]}]},
             "content part text an int": {"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]},
             "role an int": {"messages": [{"role": 5, "content": "x"}]}, "role missing": {"messages": [{"content": "x"}]},
             "tools an int": {"tools": 5}, "tools a string": {"tools": "bash"}, "tools a dict": {"tools": {"name": "bash"}},
             "tool an int": {"tools": [5]}, "tool function an int": {"tools": [{"type": "function", "function": 5}]},
             "tool name an int": {"tools": [{"type": "function", "function": {"name": 5}}, {"name": 6}]},
             "stream a string": {"stream": "yes"}, "stream an int": {"stream": 1}, "stream a list": {"stream": []},
             "model an int": {"model": 5}, "model null": {"model": None}, "functions an int": {"functions": 5},
             "functions of ints": {"functions": [1]}, "stream_options an int": {"stream_options": 5, "stream": True},
             "max_tokens a string": {"max_tokens": "many"}, "system an int": {"system": 5}, "system parts of ints": {"system": [1]},
             "system part text an int": {"system": [{"type": "text", "text": 5}]},
             "assistant tool_calls an int": {"messages": MSGS + [{"role": "assistant", "tool_calls": 5}]},
             "assistant tool_calls of ints": {"messages": MSGS + [{"role": "assistant", "tool_calls": [5, {"function": 5}, {"function": {"name": 5, "arguments": 5}}]}]},
             "assistant tool_use input a string": {"messages": MSGS + [{"role": "assistant", "content": [{"type": "tool_use", "id": 5, "name": 5, "input": "x"}]}]},
             "tool result content an int": {"messages": MSGS + [{"role": "tool", "tool_call_id": 5, "content": 5}, {"role": "user", "content": [{"type": "tool_result", "tool_use_id": 5, "content": 5}]}]},
             }
    return {k: base | v for k, v in cases.items()}

@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_wrong_types(rig, api):
    "A wrong type in any field: a 400 in the API's shape, or (a field the upstream judges) its answer, checked; never a 500 or a crash."
    up, px, _ = rig
    with httpx.Client(timeout=DEADLINE) as c:
        for name, body in _types(api).items():
            for stream in (False, True):
                b = body if "stream" in body and not isinstance(body["stream"], bool) else body | {"stream": stream}
                r = post(c, px.url, api, json=b)
                assert r.status_code < 500, (name, stream, r.status_code, r.text[:300])
                if r.status_code >= 400: assert_api_error(r, 400, 499)
                elif b.get("stream") is True: assert not any(is_error(*e) for e in parse_sse(r.content)), (name, r.text[:300])
                else: assert isinstance(r.json(), dict)
            good(c, px.url, api=api)


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_huge_body(rig, api):
    "Over the limit: 413, whether the client says its length or streams it in chunks."
    up, px, _ = rig
    big = json.dumps({"model": "good", "messages": [{"role": "user", "content": "x" * (MAX_BODY + 10)}]}).encode()
    with httpx.Client(timeout=DEADLINE) as c:
        assert_api_error(post(c, px.url, api, content=big), 413, 413)
        def chunks():
            for i in range(0, len(big), 4096): yield big[i:i + 4096]
        assert_api_error(post(c, px.url, api, content=chunks()), 413, 413)
        good(c, px.url, api=api)


# ---------------------------------------------------------------- a broken upstream
WHOLE_FAULTS = {"status500": 502, "status400_html": 400, "nonjson": 502, "json_list": 502, "json_types": None,
                "truncated_body": 502, "reset_headers": 502, "stall_headers": 504}
STREAM_FAULTS = ["status500", "status400_html", "nonjson", "garbled_sse", "typed_sse", "truncated_sse", "reset",
                 "reset_headers", "stall_headers", "stall_stream", "huge_sse_line"]

@pytest.mark.parametrize("api", ["openai", "anthropic"])
@pytest.mark.parametrize("fault", list(WHOLE_FAULTS))
def test_upstream_fault_whole(rig, api, fault):
    up, px, _ = rig
    with httpx.Client(timeout=DEADLINE) as c:
        t0 = time.time()
        r = post(c, px.url, api, json={"model": fault, "messages": MSGS, "max_tokens": 5})
        assert time.time() - t0 < DEADLINE
        want = WHOLE_FAULTS[fault]
        if want is None: assert r.status_code in (200, 502), r.text[:300]; (r.status_code == 200 and isinstance(r.json(), dict)) or assert_api_error(r)
        else: assert r.status_code == want, r.text[:300]; assert_api_error(r)
        good(c, px.url, api=api)

@pytest.mark.parametrize("api", ["openai", "anthropic"])
@pytest.mark.parametrize("fault", STREAM_FAULTS)
def test_upstream_fault_stream(rig, api, fault):
    up, px, _ = rig
    with httpx.Client(timeout=DEADLINE) as c:
        t0 = time.time()
        r = post(c, px.url, api, json={"model": fault, "messages": MSGS, "max_tokens": 5, "stream": True})
        assert time.time() - t0 < DEADLINE
        assert_stream_error(r)
        good(c, px.url, api=api, stream=True)


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_client_leaves_mid_stream(rig, api):
    "Clients that hang up in the middle of a stream: the proxy lets go of the upstream connection and goes on."
    up, px, _ = rig
    base = up.open
    with httpx.Client(timeout=DEADLINE) as c:
        for _ in range(10):
            with c.stream("POST", f"{px.url}/s/leaver/v1/" + ("messages" if api == "anthropic" else "chat/completions"),
                          json={"model": "slow_stream", "messages": MSGS, "max_tokens": 5, "stream": True}) as r:
                next(r.iter_raw())
            # the response is closed without reading it to the end: the connection is dropped
        good(c, px.url, api=api, stream=True)
    deadline = time.time() + 5
    while up.open > base + 1 and time.time() < deadline: time.sleep(0.05)
    assert up.open <= base + 1, f"{up.open - base} upstream connections still open after the clients left"


def test_memory_bounded(rig):
    "RSS of this process (proxy and upstream threads) after many faults, against after a warm-up of the same faults."
    up, px, _ = rig
    faults = ["status500", "nonjson", "truncated_body", "reset_headers", "typed_sse", "garbled_sse", "reset"]
    def round_(c, n):
        for i in range(n):
            f = faults[i % len(faults)]
            post(c, px.url, ("openai", "anthropic")[i % 2], json={"model": f, "messages": MSGS, "stream": f.endswith("sse") or f == "reset"})
            post(c, px.url, content=b"[" * 20000, headers={"content-type": "application/json"})
    with httpx.Client(timeout=DEADLINE) as c:
        round_(c, 60); before = rss_mb()
        round_(c, 300); after = rss_mb()
    print(f"RSS {before:.0f} MB -> {after:.0f} MB over 300 faults")
    assert after - before < 40, f"RSS grew {after - before:.1f} MB over 300 faults"


def test_passthrough_faults(rig):
    up, px, _ = rig
    with httpx.Client(timeout=DEADLINE) as c:
        assert c.get(px.url + "/v1/models").status_code == 200
        assert_api_error(c.post(px.url + "/v1/models", content=b"\xff"), 404, 404)
        assert_api_error(c.get(px.url + "/safeagents/sessions/x/turns"), 403, 403)


# ---------------------------------------------------------------- a judge or a plugin that fails
def test_judge_raises_or_hangs(tmp_path):
    "A judge that raises leaves the call to stages 1-2 (judge_error recorded); one that hangs is timed out the same way."
    with FaultyUpstream() as up:
        cfg = ProxyConfig(up.url, judge=_judge, judge_timeout_s=1.0, events=str(tmp_path / "e.jsonl"), timeout_s=5)
        with Proxy(cfg) as px, httpx.Client(timeout=DEADLINE) as c:
            def ask(cmd, stream=False):
                body = {"model": "good", "messages": [{"role": "user", "content": cmd}], "tools": [BASH], "stream": stream}
                return post(c, px.url, json=body)
            for stream in (False, True):
                for cmd in ("raise", "hang"):
                    t0 = time.time(); r = ask(cmd, stream)
                    assert r.status_code == 200 and time.time() - t0 < 5, (cmd, r.status_code, r.text[:300])
                    assert "wc -l" in r.text  # the call stands
            assert [bool(e.judge_error) for e in px.events] == [True] * 4
            assert "RuntimeError" in px.events[0].judge_error and "TimeoutError" in px.events[1].judge_error
            good(c, px.url)
    RELEASE.set()


def test_plugin_scan_raises(tmp_path, monkeypatch):
    "A scan that raises blocks the call (fail closed) with an error finding; the next request is served."
    with FaultyUpstream() as up, Proxy(ProxyConfig(up.url, timeout_s=5)) as px, httpx.Client(timeout=DEADLINE) as c:
        def boom(*a, **k): raise RuntimeError("plugin fell over")
        monkeypatch.setattr(px.state.guard.scanner, "scan", boom)
        for stream in (False, True):
            r = post(c, px.url, json={"model": "good", "messages": MSGS, "tools": [BASH], "stream": stream})
            assert r.status_code == 200 and "blocked call to `bash`" in r.text, r.text[:300]
        monkeypatch.undo()
        good(c, px.url)


# ---------------------------------------------------------------- the events file survives SIGKILL
def test_events_file_survives_sigkill(tmp_path):
    "Kill `safeagents serve` while sessions stream tool calls: the events file is JSON lines, at most its last line torn; readers skip it with a warning, and a restarted proxy appends on a fresh line."
    ev = tmp_path / "events.jsonl"
    with FaultyUpstream() as up:
        s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
        def serve():
            return subprocess.Popen([sys.executable, "-c", "import sys; from harness_adapters.safeagents import main; sys.exit(main())", "serve", "--upstream", up.url, "--port", str(port),
                                     "--events", str(ev), "--timeout", "5"], stderr=subprocess.PIPE, env=os.environ | {"PYTHONUNBUFFERED": "1"})
        p = serve()
        url = f"http://127.0.0.1:{port}"
        with httpx.Client(timeout=DEADLINE) as c:
            for _ in range(200):
                try: c.get(url + "/v1/models"); break
                except httpx.HTTPError: time.sleep(0.05)
        halt, sent = threading.Event(), [0]
        def session(i):
            with httpx.Client(timeout=DEADLINE) as c:
                while not halt.is_set():
                    try: post(c, url, ("openai", "anthropic")[i % 2], f"k{i}", json={"model": "good", "messages": MSGS, "max_tokens": 5, "stream": bool(i % 3)}); sent[0] += 1
                    except httpx.HTTPError: pass
        ts = [threading.Thread(target=session, args=(i,), daemon=True) for i in range(6)]
        for t in ts: t.start()
        while sent[0] < 40: time.sleep(0.02)
        os.kill(p.pid, signal.SIGKILL); p.wait(10); halt.set()
        for t in ts: t.join(15)
        lines = ev.read_bytes().split(b"\n")
        assert len(lines) > 40 and all(json.loads(l) for l in lines[:-1])  # at most the last line torn
        if not lines[-1]:  # the kill fell between two writes: tear the last line as a kill mid-write would
            with open(ev, "ab") as f: f.write(b'{"time": 1.0, "api": "openai", "sess')
        lines = ev.read_bytes().split(b"\n")
        with pytest.warns(UserWarning, match="incomplete"): rows = read_jsonl(ev)
        assert len(rows) == len(lines) - 1
        from harness_adapters.dashboard import _events  # the dashboard's reader of a run's events
        with pytest.warns(UserWarning, match="incomplete"): assert len(_events(tmp_path)) == len(rows)
        # a proxy started on the same file goes on from a clean line
        p = serve()
        try:
            with httpx.Client(timeout=DEADLINE) as c:
                for _ in range(200):
                    try: good(c, url, "after"); break
                    except (httpx.HTTPError, AssertionError): time.sleep(0.05)
        finally: p.terminate(); err = p.communicate(timeout=10)[1].decode()
        assert "cut an incomplete last line" in err, err[-500:]
        after = [json.loads(l) for l in ev.read_text().splitlines()]  # every line JSON again
        assert len(after) > len(rows) and after[-1]["session"] == "after"


def test_internal_fault(tmp_path, monkeypatch):
    "A fault of the proxy's own (here: the guard raises) still answers in the API's shape: a 500 JSON error, or a stream ending in an error event; nothing held is passed on."
    with FaultyUpstream() as up, Proxy(ProxyConfig(up.url, timeout_s=5)) as px, httpx.Client(timeout=DEADLINE) as c:
        def boom(*a, **k): raise RuntimeError("a bug")
        monkeypatch.setattr(px.state.guard, "check", boom)  # this proxy's guard only: the module rig's good session goes on
        for api in ("openai", "anthropic"):
            body = {"model": "good", "messages": MSGS, "max_tokens": 5, "tools": [BASH_A if api == "anthropic" else BASH]}
            r = post(c, px.url, api, json=body)
            assert_api_error(r, 500, 500); assert "RuntimeError" in r.json()["error"]["message"]
            r = post(c, px.url, api, json=body | {"stream": True})
            assert_stream_error(r); assert "wc -l" not in r.text
        monkeypatch.undo()
        good(c, px.url); good(c, px.url, api="anthropic", stream=True)


def test_idle_connection_kept(rig):
    "A client connection idle for 6 s is still open (uvicorn's default closes it at 5 s, racing clients whose pools keep it 5 s)."
    up, px, _ = rig
    body = json.dumps({"model": "good", "messages": MSGS, "tools": [BASH]}).encode()
    req = f"POST /s/idle/v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n".encode() + body
    with socket.create_connection(("127.0.0.1", px.port), timeout=DEADLINE) as s:
        for i in range(2):
            if i: time.sleep(6)
            s.sendall(req); got = b""
            while b"wc -l" not in got:
                chunk = s.recv(65536); assert chunk, "the proxy closed the idle connection"; got += chunk
            assert got.startswith(b"HTTP/1.1 200"), got[:200]


def test_plugin_scan_hangs(monkeypatch):
    "A scan that hangs: each response's calls are blocked once `check_timeout_s` passes (fail closed), the proxy keeps serving; when the scan lets go, calls are checked again."
    let_go = threading.Event()
    with FaultyUpstream() as up, Proxy(ProxyConfig(up.url, timeout_s=5, check_timeout_s=1.0)) as px, httpx.Client(timeout=DEADLINE) as c:
        scan = px.state.guard.scanner.scan
        def hang(*a, **k): let_go.wait(30); return scan(*a, **k)
        monkeypatch.setattr(px.state.guard.scanner, "scan", hang)
        for api, stream in (("openai", False), ("anthropic", True), ("openai", True)):
            t0 = time.time()
            r = post(c, px.url, api, f"h{api}{stream}", json={"model": "good", "messages": MSGS, "max_tokens": 5, "stream": stream,
                                                             "tools": [BASH_A if api == "anthropic" else BASH]})
            assert r.status_code == 200 and time.time() - t0 < 4, (r.status_code, time.time() - t0)
            assert "blocked call to `bash`: atif-scan: timeout (error)" in r.text and "wc -l" not in r.text, r.text[:300]
            assert c.get(px.url + "/v1/models").status_code == 200  # the event loop is free
        let_go.set(); monkeypatch.undo()
        time.sleep(0.2)
        good(c, px.url); good(c, px.url, api="anthropic", stream=True)
