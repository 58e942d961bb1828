"""Two real vLLM replicas of `tiny` behind one safeagents proxy (`serving.Replicas`, `routing.Router`): every adapter
version on both before a session is given it, sessions sticky to a replica, a short training run against the two,
and one replica killed mid-run while the other goes on.

Slow: it starts two vLLM servers of its own (the shared one stays as it is)."""
import os, signal, threading
import httpx, pytest
from harness_adapters.config import get_preset
from harness_adapters.rollouts import serving_stack
from harness_adapters.runs import read_jsonl
from harness_adapters.serving import Replicas, ServerConfig, ServerError, complete
from harness_adapters.training import RunConfig, train_run, trainer_dir
from test_train import SMALL, chat_sessions

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def replicas(tiny_dir):
    with Replicas(2, ServerConfig("tiny", kv_cache_gib=1, max_loras=6, startup_timeout_s=600)) as r: yield r


def served(url: str) -> set[str]:
    return {m["id"] for m in httpx.get(f"{url}/v1/models", timeout=10).json()["data"]}


def test_training_against_two_replicas(replicas, tmp_path):
    "Two optimiser steps through one proxy in front of both: each new version on both replicas when it is loaded."
    seen, load = [], replicas.adapters.load
    def spy(name, path, version=None):
        tag = load(name, path, version=version)
        seen.append((tag, [tag in served(u) for u in replicas.urls])); return tag
    replicas.adapters.load = spy
    try:
        run = RunConfig(harness="pi", steps=2, run_dir=str(tmp_path / "run"), checkpoint_every=1, **SMALL, token_budget=192, replicas=2)
        with serving_stack(get_preset("tiny"), server=replicas) as st:
            assert st.url == ",".join(replicas.urls)
            train_run(run, st.server, st.proxy_url, progress=False, sessions=chat_sessions)
            on = st.proxy.state.router.sessions.values()
    finally:
        replicas.adapters.load = load
    assert [m["step"] for m in read_jsonl(trainer_dir(run, "pi") / "metrics.jsonl")] == [1, 2]
    assert seen and all(all(both) for _, both in seen), seen            # every version on both replicas before use
    assert {u: list(on).count(u) > 0 for u in replicas.urls} == dict.fromkeys(replicas.urls, True)   # both served sessions


def test_sticky_sessions_and_a_replica_killed(replicas, adapters):
    "Eight sessions of three calls; replica 1 killed after every session's first call: its sessions fail, the rest go on."
    tag = replicas.adapters.load("kill", adapters["a"])
    assert all(tag in served(u) for u in replicas.urls)
    with serving_stack(get_preset("tiny"), server=replicas) as st:
        router, first_done, killed = st.proxy.state.router, threading.Barrier(9), threading.Event()
        results = {}
        def session(s):
            out = []
            for i in range(3):
                try: out.append(complete(f"{st.proxy_url}/s/{s}", tag, [{"role": "user", "content": f"Say {i}."}], max_tokens=4))
                except ServerError as e: out.append(e)
                if i == 0: first_done.wait(300); killed.wait(300)
            results[s] = out
        ts = [threading.Thread(target=session, args=(f"k{i}",)) for i in range(8)]
        for t in ts: t.start()
        first_done.wait(300)
        on = dict(router.sessions)
        assert sorted(list(on.values()).count(u) for u in replicas.urls) == [4, 4]   # least loaded: four each
        dead = replicas.servers[1]
        os.killpg(dead.proc.pid, signal.SIGKILL); dead.proc.wait(30)
        killed.set()
        for t in ts: t.join(600)
        for s, out in results.items():
            if on[s] == dead.url:
                assert not isinstance(out[0], Exception) and all(isinstance(x, ServerError) and "502" in str(x) for x in out[1:]), (s, out)
            else: assert not any(isinstance(x, Exception) for x in out), (s, out)
        after = complete(f"{st.proxy_url}/s/new", tag, [{"role": "user", "content": "Hi."}], max_tokens=4)   # new sessions go on
        assert after.text is not None and router.sessions["new"] == replicas.urls[0] and router.down == {dead.url}
    assert replicas.alive()
    tag2 = replicas.adapters.load("kill", adapters["b"])                 # the registry goes on without the dead replica
    assert replicas.adapters.gone == {dead.url} and tag2 in served(replicas.urls[0])
    replicas.adapters.unload("kill")
