# SPDX-License-Identifier: Apache-2.0
"""The slot leak as a user meets it: a real vLLM CPU server of SmolLM2-135M. Local evidence, not part of the PR.

Rows of the base model carry slot index -1, and vLLM's CPU LoRA ops index the stacked adapter weights with it, so
once every slot holds an adapter, base rows batched with adapter rows get the LAST slot's adapter. This project met
it as base sessions beside checkpoints solving what the checkpoints did. The project's CI shows the same bug at op
level (nbs/02a_cpu_lora.ipynb, stock ops against a per-token reference) and that the project's own ops close it in a
server whose every slot is in use (tests/test_serving.py); this file, run by hand, shows it end to end on vLLM's own
ops, with vLLM's step histogram proving the two requests shared a batch:

    pytest upstream/vllm-cpu-lora/test_server_slot_leak.py      # from the repository root; about 2 minutes

K = 3 adapters in 4 slots (`VLLMServer` asks vLLM for one slot more than `max_loras`): the base row is the base
request's own. A 4th adapter fills every slot and the base row changes. Unloading it does not help: vLLM 0.32's
`/v1/unload_lora_adapter` only forgets the name; the engine keeps the adapter in its slot till LRU evicts it, so a
server that has loaded more than K adapters in its life leaks for good."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from test_serving import LOGPROB_ATOL, ask, in_one_batch                   # noqa: E402  (the project's test helpers)


@pytest.fixture(scope="module")
def adapters(tmp_path_factory):
    from harness_adapters.models import tiny_model_dir
    from harness_adapters.serving import new_adapter
    root, base = tmp_path_factory.mktemp("adapters"), tiny_model_dir()
    return {"zero": new_adapter(root / "zero", base, seed=None, rank=32), "a": new_adapter(root / "a", base, seed=1, rank=32),
            "b": new_adapter(root / "b", base, seed=2, rank=32)}


def test_base_rows_get_the_last_slot_on_vllm_ops(adapters, monkeypatch):
    from harness_adapters.serving import ServerConfig, VLLMServer
    monkeypatch.setenv("HARNESS_ADAPTERS_CPU_LORA", "0")                   # vLLM's own LoRA ops
    K, N = 3, 32
    server = VLLMServer(ServerConfig("tiny", max_loras=K, kv_cache_gib=1, max_num_seqs=4,
                                     extra_args=("--no-enable-prefix-caching",))).start()
    try:
        tag = server.adapters.load("a", adapters["a"])
        for name in ("b", "zero"): server.adapters.load(name, adapters[name])             # K adapters: K of K+1 slots
        alone, own = ask(server, "tiny", 2 * N), ask(server, tag, N)
        assert own.token_ids != alone.token_ids[:N], "the adapter must change the output"

        base, adapted = in_one_batch(server, tag, N)
        assert base.token_ids == alone.token_ids, "a base row batched with an adapter row got an adapter"
        assert max(abs(x - y) for x, y in zip(base.logprobs, alone.logprobs)) < LOGPROB_ATOL
        assert adapted.token_ids == own.token_ids, "an adapter row batched with a base row lost its adapter"

        server.adapters.load("last", adapters["b"])                     # K + 1 adapters: every slot in use (the bug)
        base, _ = in_one_batch(server, tag, N)
        assert base.token_ids != alone.token_ids, "the full server must leak"
        server.adapters.unload("last")
        base, _ = in_one_batch(server, tag, N)
        assert base.token_ids != alone.token_ids, "unloading frees no vLLM slot (0.32)"
    finally:
        server.stop()
