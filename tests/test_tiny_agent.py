"""tiny-agent (nbs/00_config, nbs/01_models): the committed warm-start adapter and its card, the preset built from
it, and the preset served as a base of its own by vLLM, under its own name, running the real pi on held-out workspace
tasks through safeagents. The numbers (tool use and pass@1 against tiny) are in runs/tiny-agent/eval-heldout."""
import json

import pytest
from safetensors import safe_open

from harness_adapters.config import get_preset
from harness_adapters.models import model_path, tiny_model_dir, warm_start_dir
from harness_adapters.rollouts import run_many, serving_stack
from harness_adapters.taskspecs import resolve_tasks


def test_committed_warm_start_and_its_card():
    ad = warm_start_dir()
    card = json.loads((ad / "card.json").read_text())
    p = get_preset("tiny-agent")
    assert card["base_model"]["preset"] == "tiny" and card["harness"]["name"] == "pi"
    assert card["training"]["method"] == "sft" and len(card["training"]["data_sha256"]) == 64
    assert card["tool_policy"]["pi_tools"] == list(p.pi_tools) and card["tool_policy"]["pi_system_prompt"] == p.pi_system_prompt
    assert card["training"]["max_tokens"] == p.max_tokens
    assert (ad / "adapter_model.safetensors").stat().st_size < 50 * 2**20
    with safe_open(ad / "adapter_model.safetensors", "pt") as f: assert len(list(f.keys())) > 0


@pytest.mark.slow
def test_tiny_agent_served_as_a_base_uses_its_tools():
    merged = model_path("tiny-agent")
    assert merged != tiny_model_dir() and (merged / "model.safetensors").exists()
    tasks = [t for t in resolve_tasks("workspace", split="heldout", check=False) if t.tags[1] == "read"][:2]
    p = get_preset("tiny-agent")
    with serving_stack(p, max_loras=1, kv_cache_gib=1, max_num_seqs=4) as st:
        rs = run_many([(t, "pi", "tiny-agent") for t in tasks for _ in range(2)], st.proxy_url, workers=4, progress=False, preset=p)
    assert not [r.error for r in rs if r.errored]
    assert all(r.model == "tiny-agent" for r in rs)
    assert sum(r.tool_calls > 0 for r in rs) >= 2, [(r.tool_calls, r.final_text[-80:]) for r in rs]
