"""`harness-adapters sft` end to end: real pi session logs (recorded by the real pi against a scripted model, see
tests/data/trajectories/make_sessions.py) -> a LoRA adapter on `tiny` that PEFT and the shared vLLM server both load."""
import json, os, subprocess, sys
from pathlib import Path
import pytest
import torch

pytestmark = pytest.mark.slow

PI_LOGS = Path(__file__).parent / "data" / "trajectories" / "pi"
PROMPT = [{"role": "user", "content": "How many units were sold in the north region, according to sales.csv?"}]


@pytest.fixture(scope="module")
def sft_adapter(tmp_path_factory):
    "The adapter `harness-adapters sft` writes from the pi logs (3 steps of one session, a learning rate that shows)."
    out = tmp_path_factory.mktemp("sft") / "pi-sft"
    cmd = [sys.executable, "-m", "harness_adapters.cli", "sft", str(PI_LOGS), "--model", "tiny", "--harness", "pi",
           "--out", str(out), "--steps", "3", "--batch", "1", "--lr", "1e-3", "--seed", "0"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    assert r.returncode == 0, r.stderr[-3000:]
    assert [l for l in r.stdout.splitlines() if l.startswith("step ")][-1].startswith("step 3/3")   # a line a step
    return out


def test_adapter_folder_and_card(sft_adapter):
    files = {p.name for p in sft_adapter.iterdir()}
    assert {"adapter_config.json", "adapter_model.safetensors", "card.json", "README.md"} <= files
    assert not list(sft_adapter.parent.glob(".pi-sft.staging-*"))          # built aside, renamed, nothing left over
    card = json.loads((sft_adapter / "card.json").read_text())
    from harness_adapters.sft import data_hash
    assert card["training"]["method"] == "sft" and card["training"]["data_sha256"] == data_hash(sorted(PI_LOGS.glob("*.jsonl")))
    assert card["base_model"]["preset"] == "tiny" and card["harness"]["name"] == "pi" and card["tool_policy"]
    assert card["adapter"]["lora"] == {"rank": 32, "alpha": 64, "targets": "all-linear"}   # the RL recipe's shape


def test_peft_loads_and_logits_differ(sft_adapter, tiny_dir):
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer
    tok = AutoTokenizer.from_pretrained(tiny_dir)
    text = tok.apply_chat_template(PROMPT, add_generation_prompt=True, tokenize=False)
    ids = torch.tensor([tok(text, add_special_tokens=False)["input_ids"]])
    base = AutoModelForCausalLM.from_pretrained(tiny_dir, dtype=torch.float32).eval()
    with torch.no_grad(): before = base(ids).logits
    peft = PeftModel.from_pretrained(base, sft_adapter).eval()
    with torch.no_grad(): after = peft(ids).logits
    assert (after - before).abs().max() > 1e-2


def test_vllm_loads_and_completes(sft_adapter, server):
    tag = server.adapters.load("sft", sft_adapter)
    assert tag == "sft@1"
    c = server.chat("sft", PROMPT, max_tokens=12, temperature=0.0)
    b = server.chat("tiny", PROMPT, max_tokens=12, temperature=0.0)
    assert c.model == "sft@1" and c.token_ids and c.finish_reason in ("stop", "length", "tool_calls")
    assert c.logprobs != b.logprobs[:len(c.logprobs)] or c.token_ids != b.token_ids   # the adapter is applied


def test_same_seed_same_adapter(tiny_dir):
    from transformers import AutoTokenizer
    from harness_adapters.sft import SFTSample, train_lora
    tok = AutoTokenizer.from_pretrained(tiny_dir)
    p = tok("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)["input_ids"]
    c = tok("hello<|im_end|>", add_special_tokens=False)["input_ids"]
    rows = [SFTSample("x", p + c, [0] * len(p) + [1] * len(c))]
    a, b = (train_lora(rows, "tiny", tiny_dir, steps=1, seed=3, log=lambda s: None) for _ in range(2))
    sa, sb = a.state_dict(), b.state_dict()
    assert all(torch.equal(sa[k], sb[k]) for k in sa if "lora_" in k)
