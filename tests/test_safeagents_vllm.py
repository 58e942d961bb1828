"""safeagents in capture mode in front of the real vLLM server (tiny model on CPU): the client gets what vLLM sent,
and the captured turn holds exactly the prompt ids, sampled ids and logprobs vLLM returns for the same greedy request.

Run: `python -m pytest tests/test_safeagents_vllm.py -v` (starts the session's vLLM server, a few minutes on CPU).
"""
from __future__ import annotations
import httpx, pytest
from harness_adapters.safeagents import Proxy, ProxyConfig

pytestmark = pytest.mark.slow

BASH = {"type": "function", "function": {"name": "bash", "description": "run a shell command",
                                         "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                                                        "required": ["command"]}}}
MSGS = [{"role": "user", "content": "Use the bash tool to list the files in the current directory."}]
GREEDY = dict(model="tiny", messages=MSGS, tools=[BASH], temperature=0.0, max_tokens=24)
# Logprobs of two greedy runs of the same prompt on the same server (float32 on CPU) agree to this; ids exactly.
LOGPROB_ATOL = 1e-4


def direct(server, req: dict) -> dict:
    "The same greedy request sent straight to vLLM, with ids and logprobs (what capture mode asks for)."
    r = httpx.post(f"{server.url}/v1/chat/completions", json=req | {"return_token_ids": True, "logprobs": True}, timeout=120)
    assert r.status_code == 200, r.text[:500]
    return r.json()


def calls_of(tool_calls) -> list:
    "(name, arguments) of OpenAI tool calls, SDK objects or dicts (ids are random per request)."
    get = lambda o, k: o[k] if isinstance(o, dict) else getattr(o, k)
    return [(get(get(c, "function"), "name"), get(get(c, "function"), "arguments")) for c in tool_calls or []]


def same_capture(turn, ref: dict):
    "The captured turn holds the prompt ids, sampled ids and logprobs of the direct response `ref`."
    ch = ref["choices"][0]
    assert turn.prompt_token_ids == ref["prompt_token_ids"]
    assert turn.token_ids == ch["token_ids"] and len(turn.token_ids) > 0
    lp = ch["logprobs"]["content"]
    assert [x["token"] for x in turn.logprobs] == [x["token"] for x in lp]
    assert max(abs(a["logprob"] - b["logprob"]) for a, b in zip(turn.logprobs, lp)) <= LOGPROB_ATOL


def chat_both_ways(c, req: dict) -> tuple:
    "(a) non-streaming and (b) streaming through the proxy: (text, [(name, arguments)], finish_reason) of each."
    r = c.chat.completions.create(**req).choices[0]
    plain = (r.message.content or None, calls_of(r.message.tool_calls), r.finish_reason)  # vLLM may send "" or null
    text, calls, fin = "", {}, None
    for ch in c.chat.completions.create(**req, stream=True):
        for x in ch.choices:
            text += x.delta.content or ""
            for t in x.delta.tool_calls or []:
                k = calls.setdefault(t.index, ["", ""])
                if t.function: k[0] += t.function.name or ""; k[1] += t.function.arguments or ""
            fin = x.finish_reason or fin
    return plain, (text or None, [tuple(v) for _, v in sorted(calls.items())], fin)


# The tiny model answers the plain request in text; naming the tool makes vLLM return a call, which takes the
# proxy's other path: the stream is held from the first tool-call delta, checked, then released.
# The call in the tiny model's hermes format takes about 30 tokens, hence the larger budget there.
REQUESTS = {"text": GREEDY, "tool_call": GREEDY | {"max_tokens": 48, "tool_choice": {"type": "function", "function": {"name": "bash"}}}}


@pytest.mark.parametrize("kind", list(REQUESTS))
def test_capture_through_proxy_matches_vllm(server, kind):
    import openai
    req = REQUESTS[kind]
    ref = direct(server, req)
    ch = ref["choices"][0]
    want = (ch["message"].get("content") or None, calls_of(ch["message"].get("tool_calls")), ch["finish_reason"])
    if kind == "tool_call": assert want[1] and want[1][0][0] == "bash", want
    with Proxy(ProxyConfig(server.url, capture=True, timeout_s=120)) as px:
        c = openai.OpenAI(base_url=px.base_url(kind), api_key="x", max_retries=0, timeout=120)
        plain, streamed = chat_both_ways(c, req)
        turns, events = px.turns(kind), px.events
    assert plain == want and streamed == want  # what the client gets is what vLLM sent
    assert [e.verdict for e in events] == ["allow"] * (2 if want[1] else 0)
    assert len(turns) == 2
    for t in turns: same_capture(t, ref)
