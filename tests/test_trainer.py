"""The trainer on the real tiny model (LoRA, fp32, CPU): tree packing against per-sample, logprobs against vLLM,
one GRPO step, and a short AsyncGRPOTrainer run against the real vLLM server."""
import queue, re, time, uuid
import numpy as np
import pytest
import torch

from harness_adapters.serving import complete
from harness_adapters.cpu_attention import pack_batch, packed_logprobs
from harness_adapters.rollouts import Rollout, TurnTokens
from harness_adapters.samples import TrainerConfig, group_samples, served_version
from harness_adapters.trainer import HarnessGRPOTrainer, build_trainer, grpo_args

pytestmark = pytest.mark.slow

# Packed rows (TRL's trie, several samples sharing the prompt, through `tree_attention_torch`) against each sample
# forwarded alone through transformers' own SDPA attention, both float32 on CPU: the computations differ only in
# summation order (one SDPA call per trie segment over gathered K/V, against one causal SDPA call per sample).
PACKED_LOGPROB_ATOL = 1e-4
PACKED_LOSS_RTOL = 1e-4
PACKED_GRAD_RTOL = 1e-3        # max |g_packed − g_alone| / max |g_alone| over all LoRA tensors
# Trainer (fp32, packed rows) against vLLM's processed logprobs (fp32 CPU server, temperature 0.8): kernel order
# only, as in test_serving.LOGPROB_ATOL.
VLLM_LOGPROB_ATOL = 2e-3

TEMPERATURE = 0.8
QUESTIONS = ["What is 2+3?", "Name a colour.", "What is 7*6?"]


class NoTransfer:
    "Weight transfer that does nothing: these trainers are driven by hand, not through `train()`."
    def init_weight_transfer(self): pass
    def pause(self): pass
    def send_weights(self, it): pass
    def resume(self): pass
    def destroy(self): pass


class IdleWorker:
    rollout_buffer, metrics_queue = queue.Queue(), queue.Queue()
    def start(self): pass
    def stop(self): pass
    def update_model_version(self, v): pass
    def check_health(self, s): pass


def make_trainer(tiny_dir, tmp_path, lr=1e-3, registry=None, adapter_name=None, seed=0):
    "A trainer on the tiny model with LoRA r=32 whose B is random (so the adapter changes the outputs)."
    from peft import LoraConfig
    from transformers import AutoTokenizer
    args = grpo_args("tiny", TrainerConfig(max_staleness=2, token_budget=2048), tmp_path, "http://127.0.0.1:9", max_steps=1,
                     learning_rate=lr, gradient_accumulation_steps=1, temperature=TEMPERATURE)
    tr = HarnessGRPOTrainer(str(tiny_dir), args, processing_class=AutoTokenizer.from_pretrained(tiny_dir),
                            peft_config=LoraConfig(r=32, lora_alpha=64, target_modules="all-linear"),
                            rollout_worker=IdleWorker(), weight_transfer=NoTransfer(),
                            registry=registry, adapter_name=adapter_name)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for n, p in tr.model.named_parameters():
            if "lora_B" in n: p.copy_(torch.randn(p.shape, generator=g) * 0.02)
    tr.current_gradient_accumulation_steps = 1
    return tr


def chat_ids(tok, question):
    return tok.apply_chat_template([{"role": "user", "content": question}], add_generation_prompt=True, tokenize=True,
                                   return_dict=False)


def rollout(prompt, completion, reward, gid="g", logprobs=None, extra_turn=None):
    turns = [TurnTokens(list(prompt), list(completion), logprobs or [-1.0] * len(completion))]
    if extra_turn: turns.append(extra_turn)
    return Rollout("t", gid, "pi", "pi@1", 1, verifier_reward=reward, turns=turns)


def fixed_group(tok):
    "Two prompts; four completions of the first (one a two-turn session with tool output), two of the second."
    p1, p2 = chat_ids(tok, QUESTIONS[0]), chat_ids(tok, QUESTIONS[1])
    enc = lambda s: tok.encode(s, add_special_tokens=False) + [tok.convert_tokens_to_ids("<|im_end|>")]
    c = [enc("5"), enc("The answer is 5."), enc("6"), enc("I think it is 4, maybe.")]
    tool = tok.encode("\n<|im_start|>tool\n42<|im_end|>\n<|im_start|>assistant\n", add_special_tokens=False)
    second = TurnTokens(p1 + c[3] + tool, enc("Done"), [-0.5] * len(enc("Done")))
    cfg = TrainerConfig(rollouts_per_task=4)
    g1, _ = group_samples([rollout(p1, c[0], 1.0), rollout(p1, c[1], 1.0), rollout(p1, c[2], 0.0),
                           rollout(p1, c[3], 0.0, extra_turn=second)], 0, cfg)
    g2, _ = group_samples([rollout(p2, enc("Blue."), 1.0, "h"), rollout(p2, enc("Forty"), 0.0, "h")], 1, cfg)
    return g1 + g2


def lora_grads(model):
    return {n: p.grad.detach().clone() for n, p in model.named_parameters() if p.requires_grad and p.grad is not None}


def alone_logprobs(model, sample, temperature=TEMPERATURE):
    "Log-probs of a sample's trained tokens from a plain forward with transformers' SDPA attention (no tree packing)."
    base = model.get_base_model()
    old = base.config._attn_implementation
    base.config._attn_implementation = "sdpa"
    try:
        ids = torch.as_tensor(sample.input_ids)[None]
        logits = model(input_ids=ids).logits[0, :-1].float() / temperature
    finally:
        base.config._attn_implementation = old
    lp = torch.log_softmax(logits, -1).gather(-1, ids[0, 1:, None])[:, 0]
    return lp[torch.as_tensor(sample.completion_mask[1:]).bool()]


def test_packed_matches_per_sample(tiny_dir, tmp_path):
    tr = make_trainer(tiny_dir, tmp_path)
    tok, model = tr.processing_class, tr.model
    samples = fixed_group(tok)
    batch = pack_batch(samples, tok.pad_token_id)
    assert batch["input_ids"].shape[1] < sum(len(s.input_ids) for s in samples)     # prompts really are shared

    # logprobs: packed row vs each sample alone through plain SDPA
    with torch.no_grad():
        packed = packed_logprobs(model, batch)
        alone = torch.cat([alone_logprobs(model, s) for s in samples])
    lp_diff = (packed - alone).abs().max().item()
    print(f"packed vs per-sample logprob max |diff| = {lp_diff:.2e}")
    assert lp_diff < PACKED_LOGPROB_ATOL

    # loss and gradients: TRL's compute_loss on the packed row vs on each sample alone, token-weighted
    model.zero_grad()
    loss_packed = tr.compute_loss(model, batch)
    loss_packed.backward()
    g_packed = lora_grads(model)
    model.zero_grad()
    n_total = sum(int(s.completion_mask[1:].sum()) for s in samples)
    loss_alone = 0.0
    for s in samples:
        b = pack_batch([s], tok.pad_token_id)
        part = tr.compute_loss(model, b) * b["token_index"].numel() / n_total
        part.backward()
        loss_alone += part.item()
    g_alone = lora_grads(model)
    loss_rel = abs(loss_packed.item() - loss_alone) / abs(loss_alone)
    scale = max(g.abs().max().item() for g in g_alone.values())
    grad_rel = max((g_packed[n] - g_alone[n]).abs().max().item() for n in g_alone) / scale
    print(f"packed vs per-sample: loss {loss_packed.item():.6f} vs {loss_alone:.6f} (rel {loss_rel:.1e}); "
          f"grad max rel diff {grad_rel:.1e} over {len(g_alone)} LoRA tensors")
    assert g_packed.keys() == g_alone.keys() and len(g_alone) > 100
    assert loss_rel < PACKED_LOSS_RTOL and grad_rel < PACKED_GRAD_RTOL


def test_grpo_step_moves_probability(tiny_dir, tmp_path):
    "A fixed group with one rewarded completion: after one step its logprob rises and the others' fall."
    tr = make_trainer(tiny_dir, tmp_path, lr=1e-3)
    tok, model = tr.processing_class, tr.model
    p = chat_ids(tok, QUESTIONS[2])
    enc = lambda s: tok.encode(s, add_special_tokens=False) + [tok.convert_tokens_to_ids("<|im_end|>")]
    # The unrewarded answers share no wording with the rewarded one: a near twin ("42" rewarded, "36" not) can rise
    # with it in one step, since LoRA generalises across "a two-digit number, then end of turn".
    comps = [enc("The answer is 42."), enc("36"), enc("I do not know."), enc("Blue.")]
    rollouts = [rollout(p, c, float(i == 0)) for i, c in enumerate(comps)]
    samples, _ = group_samples(rollouts, 0, TrainerConfig(rollouts_per_task=4))

    def seq_logprobs():
        with torch.no_grad():
            lp = packed_logprobs(model, pack_batch(samples, tok.pad_token_id))
        seg = pack_batch(samples, tok.pad_token_id)["segment_id"][0]
        return torch.zeros(len(samples)).index_add_(0, seg, lp)

    before = seq_logprobs()
    for s, lp in zip(samples, torch.split(packed_logprobs(model, pack_batch(samples, tok.pad_token_id)).detach(),
                                          [int(s.completion_mask.sum()) for s in samples])):
        s.old_log_probs[s.completion_mask.astype(bool)] = lp.numpy()          # on-policy: ratio 1 at the start
    opt = torch.optim.AdamW([q for q in model.parameters() if q.requires_grad], lr=1e-3)
    model.zero_grad()
    tr.compute_loss(model, pack_batch(samples, tok.pad_token_id)).backward()
    opt.step()
    after = seq_logprobs()
    print("sequence logprobs before", before.tolist(), "after", after.tolist())
    assert after[0] > before[0], "the rewarded completion should become more likely"
    assert all(after[i] < before[i] for i in range(1, 4)), "the unrewarded completions should become less likely"


def test_trainer_logprobs_match_vllm_after_sync(server, tiny_dir, tmp_path):
    "The adapter synced through the registry (no pause) serves the same logprobs the trainer computes from packed rows."
    tr = make_trainer(tiny_dir, tmp_path, registry=server.adapters, adapter_name="parity")
    tok, model = tr.processing_class, tr.model
    t0 = time.time()
    tr._sync_weight_lora(t0)
    assert tr.model_version == 1 and server.adapters.current["parity"] == 1
    comps = [complete(server.url, "parity@1", [{"role": "user", "content": q}], max_tokens=24,
                      temperature=TEMPERATURE, seed=i) for i, q in enumerate(QUESTIONS)]
    rs = [rollout(c.prompt_token_ids, c.token_ids, 1.0, gid=str(i), logprobs=c.logprobs) for i, c in enumerate(comps)]
    samples = [s for i, r in enumerate(rs) for s in group_samples([r, r], i, TrainerConfig())[0][:1]]
    batch = pack_batch(samples, tok.pad_token_id)
    with torch.no_grad():
        ours = packed_logprobs(model, batch)
    diff = (ours - batch["old_log_probs"][0]).abs().max().item()
    print(f"trainer (packed, fp32) vs vLLM (fp32) logprob max |diff| = {diff:.2e} over {ours.numel()} tokens")
    assert diff < VLLM_LOGPROB_ATOL
    # a second sync loads parity@2 beside parity@1, and the registry unloads @1 (nobody holds a lease on it)
    tr._sync_weight_lora(time.time())
    assert server.adapters.current["parity"] == 2 and "parity@1" not in server.adapters.loaded
    server.adapters.unload("parity")


_NUM = re.compile(r"-?\d+")


def arithmetic_group(url):
    "A `run_group` for tests: plain chat completions of an addition, scored by exact match of the last number."
    def run_group(task, n, model):
        a, b = task
        gid, out = uuid.uuid4().hex[:8], []
        for i in range(n):
            c = complete(url, model, [{"role": "user", "content": f"What is {a}+{b}? Answer with the number only."}],
                         max_tokens=12, temperature=TEMPERATURE)
            nums = _NUM.findall(c.text or "")
            ok = float(bool(nums) and int(nums[-1]) == a + b)
            out.append(Rollout(f"{a}+{b}", gid, "pi", model, served_version(model), verifier_reward=ok,
                               turns=[TurnTokens(c.prompt_token_ids, c.token_ids, c.logprobs)]))
        return out
    return run_group


def test_async_grpo_two_steps_against_server(server, tmp_path):
    "AsyncGRPOTrainer with our worker for 2 steps on CPU: adapters pi@1..pi@3 load by name, LoRA moves, loss finite."
    cfg = TrainerConfig("pi", adapter_name="pi-e2e", rollouts_per_task=4, max_staleness=2, groups_in_flight=1,
                        max_queued_samples=8, token_budget=160)
    tasks = [(a, b) for a in range(1, 6) for b in range(1, 4)]
    tr = build_trainer("tiny", cfg, arithmetic_group(server.url), tasks, server, tmp_path, max_steps=2,
                       learning_rate=1e-4, gradient_accumulation_steps=1, max_completion_length=12,
                       temperature=TEMPERATURE)
    assert tr._lora_sync and tr._peak_flops_per_device is None
    before = {n: p.detach().clone() for n, p in tr.model.named_parameters() if p.requires_grad}
    finished, finish = [], tr.rollout_worker.finish
    def spy():                                 # no group starts once the last micro-batch is drawn
        w = tr.rollout_worker; finished.append((tr.state.global_step, w.groups_done + w.in_flight // w.cfg.rollouts_per_task)); finish()
    tr.rollout_worker.finish = spy
    t0 = time.time()
    tr.train()
    print(f"2 steps in {time.time() - t0:.0f} s; finished at {finished}; log: {tr.state.log_history}")
    assert [s for s, _ in finished] == [1]
    assert tr.rollout_worker.groups_done <= finished[0][1]
    assert tr.model_version == 3 and server.adapters.current["pi-e2e"] == 3     # v1 at train begin, +1 a step
    changed = sum(not torch.equal(before[n], p.detach()) for n, p in tr.model.named_parameters() if p.requires_grad)
    assert changed > 0
    logs = [h for h in tr.state.log_history if "loss" in h]
    assert len(logs) == 2 and all(np.isfinite(h["loss"]) for h in logs)
    assert all("reward" in h and "batch/groups_per_step" in h for h in logs)
    assert tr.rollout_worker.groups_done >= 2
    server.adapters.unload("pi-e2e")
