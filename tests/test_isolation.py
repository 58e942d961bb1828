"""A harness sandbox reaches its own session's model endpoints and nothing else (issue 20).

The attacks run from inside the sandbox a real harness session gets (`harnesses.sandbox_config` with the proxy as
its model URL), as an agent's tool call would run them: plain Python sockets and HTTP, the way `curl` would. The
upstream is `ScriptedUpstream`, a test double standing in for vLLM (same routes, no model), so the test needs no
model server and runs in seconds."""
from __future__ import annotations
import json
import httpx, pytest
from harness_adapters.harnesses import sandbox_config
from harness_adapters.safeagents import Proxy, ProxyConfig
from harness_adapters.sandbox import BubblewrapBackend
from harness_adapters.scripted import ScriptedUpstream

pytestmark = pytest.mark.slow

ATTACKS = r'''
import json, urllib.request, urllib.error
PX, UP, OWN, OTHER = {px!r}, {up!r}, {own!r}, {other!r}
def call(method, url, body=None):
    req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={{"Content-Type": "application/json"}})
    try:
        with urllib.request.urlopen(req, timeout=10) as r: return r.status
    except urllib.error.HTTPError as e: return e.code
    except (urllib.error.URLError, OSError) as e: return "unreachable"
chat = {{"model": "m", "messages": [{{"role": "user", "content": "hi"}}]}}
print(json.dumps({{
    "own session's chat": call("POST", f"{{PX}}/s/{{OWN}}/v1/chat/completions", chat),
    "model list": call("GET", f"{{PX}}/v1/models"),
    "vLLM directly": call("GET", f"{{UP}}/v1/models"),
    "vLLM directly, unload an adapter": call("POST", f"{{UP}}/v1/unload_lora_adapter", {{"lora_name": "pi"}}),
    "adapter unload through the proxy": call("POST", f"{{PX}}/v1/unload_lora_adapter", {{"lora_name": "pi"}}),
    "pause through the proxy": call("POST", f"{{PX}}/pause"),
    "another session's turns": call("GET", f"{{PX}}/safeagents/sessions/{{OTHER}}/turns"),
    "this session's turns, DELETE": call("DELETE", f"{{PX}}/safeagents/sessions/{{OWN}}/turns"),
    "the internet": call("GET", "http://1.1.1.1/"),
}}))
'''


def test_sandbox_reaches_its_own_session_only(tmp_path):
    with ScriptedUpstream(default={"text": "hello"}) as up, Proxy(ProxyConfig(up.url, capture=True)) as px:
        other = "g1.other"                                  # a session of the same group, with answers in it
        assert httpx.post(f"{px.base_url(other)}/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "x"}]}).status_code == 200
        assert px.turns(other)
        script = ATTACKS.format(px=px.url, up=up.url, own="g1.own", other=other)
        with BubblewrapBackend().create(sandbox_config("pi", model_url=px.url)) as sb:
            r = sb.run(["python3", "-c", script], timeout_s=120)
        assert r.ok, r.stderr_tail
        got = json.loads(r.stdout_tail.strip().splitlines()[-1])
        assert got == {"own session's chat": 200, "model list": 200,
                       "vLLM directly": "unreachable", "vLLM directly, unload an adapter": "unreachable",
                       "adapter unload through the proxy": 404, "pause through the proxy": 404,
                       "another session's turns": 403, "this session's turns, DELETE": 403,
                       "the internet": "unreachable"}, got
        assert px.turns(other) and px.turns("g1.own"), "a refused request changed what the proxy holds"
        assert not [q for q in up.requests if "lora_name" in json.dumps(q)], "an adapter route reached the upstream"


def host_address() -> str:
    "An address of this machine that is not loopback (as a Ray worker node sees the head's), or skip."
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try: s.connect(("192.0.2.1", 9)); ip = s.getsockname()[0]       # no packet is sent: only the route is chosen
        except OSError: ip = ""
    if not ip or ip.startswith("127."): pytest.skip("this machine has no address but loopback")
    return ip


def test_sandbox_reaches_an_off_host_proxy_only(tmp_path):
    """The proxy on another address than the sandbox host's loopback (a Ray worker's sandbox, the proxy on the head):
    the sandbox still gets its own empty network with that one address in, at 127.0.0.1 inside; not the host's."""
    from harness_adapters.harnesses import sandbox_url
    ip = host_address()
    with ScriptedUpstream(default={"text": "hello"}) as up, Proxy(ProxyConfig(up.url, host=ip, capture=True)) as px, \
         Proxy(ProxyConfig(up.url, host=ip)) as other_service:            # something else listening on that address
        assert px.url.startswith(f"http://{ip}:")
        cfg = sandbox_config("pi", model_url=px.url)
        assert not cfg.share_net and cfg.reach == ((ip, px.port),)
        script = ATTACKS.format(px=sandbox_url(px.url), up=up.url, own="g2.own", other="g2.other")
        script += (f"\nimport socket\nfor addr in [({ip!r}, {px.port}), ({ip!r}, {other_service.port})]:\n"
                   "    try: socket.create_connection(addr, 3); print('reached', addr)\n"
                   "    except OSError: print('unreachable', addr)\n")
        with BubblewrapBackend().create(cfg) as sb:
            r = sb.run(["python3", "-c", script], timeout_s=120)
        assert r.ok, r.stderr_tail
        lines = r.stdout_tail.strip().splitlines()
        got = json.loads(lines[-3])
        assert got["own session's chat"] == 200 and got["model list"] == 200, got
        assert got["vLLM directly"] == got["vLLM directly, unload an adapter"] == got["the internet"] == "unreachable", got
        assert got["another session's turns"] == 403, got
        assert lines[-2:] == [f"unreachable ('{ip}', {px.port})", f"unreachable ('{ip}', {other_service.port})"], lines
        assert px.turns("g2.own"), "the session's call did not reach the off-host proxy"
