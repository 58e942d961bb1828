"""The run notebook (`nbs/train.ipynb`) and `trainer.train_run` end to end on the tiny preset: real vLLM server,
safeagents proxy, real harnesses in bubblewrap sandboxes, CPU training.

Order matters and is kept: the papermill tests start their own servers; the in-process tests share one module server
with room for two trainers' adapters, and the last test kills that server on purpose."""
import json, os, signal, subprocess, sys, threading, time
from pathlib import Path
import pytest

from harness_adapters.trainer import (RunConfig, ServerDied, checkpoint_steps, last_checkpoint, open_run, read_metrics,
                                      train_run, trainer_dir)

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
NB = ROOT / "nbs" / "train.ipynb"
REQUIRED = ["step", "train/reward", "train/reward_verifier", "train/reward_bonus", "train/pass_rate",
            "train/tool_calls_per_solved", "train/blocked_calls", "batch/groups_per_step", "batch/samples_per_step",
            "rollout/dropped_stale", "batch/tokens_per_microbatch", "batch/token_budget", "time/generation_wait_s",
            "time/forward_backward_s", "time/sync_s", "adapter/version"]
# Small steps for the in-process tests: groups of 4, one micro-batch (about two groups: pi's system prompt is shared).
SMALL = dict(rollouts_per_task=4, groups_in_flight=1, micro_batches=1)     # token budget: by harness (RunConfig.budget)


def papermill(out: Path, timeout: float = 1500, **params) -> subprocess.CompletedProcess:
    "Run the notebook from the repository root, as the README does."
    argv = [sys.executable, "-m", "papermill", str(NB.relative_to(ROOT)), str(out)]
    for k, v in params.items(): argv += ["-p", k, str(v)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("IN_TEST", None)
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def tree_digest(d: Path) -> dict:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def no_partial_files(d: Path) -> None:
    "Nothing half-written: no temporary or staging leftovers, every JSON record parses."
    assert not [p for p in d.rglob("*") if p.name.endswith(".tmp") or p.name.startswith(".staging-")]
    for p in d.rglob("*.json"): json.loads(p.read_text())


def check_checkpoint(ck: Path, harness: str) -> dict:
    card = json.loads((ck / "card.json").read_text())
    for f in ("adapter_model.safetensors", "adapter_config.json", "optimizer.pt", "trainer_state.json",
              "adapter_state.json", "README.md"):
        assert (ck / f).exists(), f
    assert card["base_model"]["source"] == "HuggingFaceTB/SmolLM2-135M-Instruct" and card["base_model"]["revision"]
    assert card["adapter"]["step"] == int(ck.name.split("-")[1]) and len(card["adapter"]["sha256"]) == 64
    assert card["harness"]["name"] == harness and card["harness"]["version"]
    assert card["tool_policy"]["config"] == "lean" and card["tool_policy"]["agent_steps"] == 8
    assert card["detectors"]["atif_scan"] and len(card["detectors"]["plugins"]) == 2
    return card


# -- fail fast: nothing starts ------------------------------------------------------------------------------------

@pytest.mark.parametrize("param,value,msg", [("model", "gpt5", "unknown model 'gpt5'"),
                                             ("harness", "claude", "unknown harness 'claude'")])
def test_bad_parameter_fails_fast(tmp_path, param, value, msg):
    t0 = time.time()
    r = papermill(tmp_path / "out.ipynb", timeout=300, **{param: value, "run_dir": tmp_path / "run"})
    assert r.returncode != 0 and msg in (r.stdout + r.stderr)
    assert not (tmp_path / "run").exists()
    print(f"{param}={value!r} refused in {time.time() - t0:.0f} s")


def test_foreign_run_dir_refused(tmp_path):
    "A run dir made with other settings is refused, naming the differing keys, and nothing in it changes."
    rd = tmp_path / "run"
    open_run(RunConfig(run_dir=str(rd), bonus_weight=0.3, seed=7))
    (rd / "metrics.jsonl").write_text('{"step": 1}\n')
    before = tree_digest(rd)
    r = papermill(tmp_path / "out.ipynb", timeout=300, run_dir=rd)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and "RunConfigMismatch" in out and "bonus_weight" in out and "seed" in out
    assert tree_digest(rd) == before


# -- the README's main job, and its resume --------------------------------------------------------------------------

def test_notebook_one_step(tmp_path):
    """The README's main job at one step (its three steps were run by hand: see the README). Resuming the notebook
    (one step, then a second run to two) passed here too, in 17 minutes; it is left to `test_checkpoint_and_resume_offline`
    (the same trainer machinery, no server) to keep the suite short."""
    rd = tmp_path / "train-tiny"
    t0 = time.time()
    r = papermill(tmp_path / "out.ipynb", model="tiny", steps=1, run_dir=rd)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    print(f"1 step (server start included) in {time.time() - t0:.0f} s")
    rows = read_metrics(rd / "metrics.jsonl")
    assert [x["step"] for x in rows] == [1] and all(k in rows[0] for k in REQUIRED)
    assert rows[0]["batch/samples_per_step"] > 0 and rows[0]["batch/tokens_per_microbatch"] <= rows[0]["batch/token_budget"]
    assert (rd / "events.jsonl").exists() and json.loads((rd / "config.json").read_text())["config"]["model"] == "tiny"
    recs = list((rd / "rollouts").glob("*/*.json"))
    assert any(p.name.endswith(".trajectory.json") for p in recs) and any(not p.name.endswith(".trajectory.json") for p in recs)
    assert checkpoint_steps(rd / "checkpoints") == [1]
    check_checkpoint(rd / "checkpoints" / "step-1", "pi")
    assert (rd / "figures" / "train.png").exists()
    no_partial_files(rd)


# -- in process, on one server for two trainers ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def server12():
    "A vLLM server with adapter slots for two trainers (staleness 4: 6 each)."
    from harness_adapters.serving import ServerConfig, VLLMServer
    srv = VLLMServer(ServerConfig("tiny", max_loras=12, kv_cache_gib=2, startup_timeout_s=900)).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def proxy(server12, tmp_path_factory):
    from harness_adapters.config import get_preset
    from harness_adapters.rollouts import start_proxy
    px = start_proxy(server12.url, get_preset("tiny"), events=str(tmp_path_factory.mktemp("ev") / "events.jsonl"))
    yield px
    px.stop()


def test_two_trainers_share_one_server(server12, proxy, tmp_path, tiny_dir):
    "pi and hermes train at once against one server, each loading its own versions; no rollout of either errored."
    loads, orig = [], server12.adapters.load
    def spy(name, path, version=None):
        tag = orig(name, path, version=version); loads.append((time.time(), tag)); return tag
    server12.adapters.load = spy
    try:
        run = RunConfig(harness="pi,hermes", steps=1, run_dir=str(tmp_path / "two"), checkpoint_every=1, **SMALL)
        t0 = time.time()
        trainers = train_run(run, server12, proxy.url, progress=False)
        print(f"two trainers, 1 step each, in {time.time() - t0:.0f} s; loads {[t for _, t in loads]}")
    finally:
        server12.adapters.load = orig
    tags = [t for _, t in loads]
    for h in ("pi", "hermes"):
        assert [t for t in tags if t.startswith(h + "@")] == [f"{h}@1", f"{h}@2"]
        assert trainers[h].model_version == 2
        recs = [json.loads(p.read_text()) for p in (trainer_dir(run, h) / "rollouts").glob("*/*.json")
                if not p.name.endswith(".trajectory.json")]
        assert recs and all(r["harness"] == h for r in recs)
        assert not [r["error"] for r in recs if r["errored"]], f"{h} rollouts errored"
        assert {r["model"].split("@")[0] for r in recs} <= {h, "tiny"}
        assert [x["step"] for x in read_metrics(trainer_dir(run, h) / "metrics.jsonl")] == [1]
    # each trainer's step-1 adapter was loaded while the other trainer was still running sessions or training
    assert {t.split("@")[0] for t in tags} == {"pi", "hermes"} and len(tags) == 4

    # a checkpoint loads with PEFT and with vLLM
    ck = trainer_dir(run, "pi") / "checkpoints" / "step-1"
    check_checkpoint(ck, "pi")
    import torch
    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM
    m = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(tiny_dir), str(ck))
    saved = load_file(str(ck / "adapter_model.safetensors"))
    got = {n: p for n, p in m.named_parameters() if "lora_" in n}
    assert len(got) == len(saved) and any(p.abs().sum() > 0 for n, p in got.items() if "lora_B" in n)
    tag = server12.adapters.load("ckpt", ck)
    from harness_adapters.serving import complete
    c = complete(server12.url, tag, [{"role": "user", "content": "What is 2 + 3?"}], max_tokens=8)
    assert c.token_ids
    server12.adapters.unload("ckpt")


def test_server_dies_mid_run(server12, proxy, tmp_path):
    "Killing the server mid-run ends it with a clear error; every record on disk is whole, and the run is resumable."
    run = RunConfig(harness="pi", steps=3, run_dir=str(tmp_path / "dies"), checkpoint_every=1, **SMALL)
    metrics = Path(run.run_dir) / "metrics.jsonl"
    def killer():
        while not (metrics.exists() and read_metrics(metrics)): time.sleep(1)
        os.killpg(server12.proc.pid, signal.SIGKILL)
    threading.Thread(target=killer, daemon=True).start()
    with pytest.raises(ServerDied, match="server died during the run.*resume"):
        train_run(run, server12, proxy.url, progress=False)
    rd = Path(run.run_dir)
    no_partial_files(rd)
    done = checkpoint_steps(rd / "checkpoints")
    assert done and done[-1] < 3
    last = last_checkpoint(rd / "checkpoints")
    assert json.loads((last / "trainer_state.json").read_text())["global_step"] == done[-1]
    assert all(x["step"] <= done[-1] + 1 for x in read_metrics(metrics))
    # resuming is accepted (same settings) and starts from the last whole checkpoint
    open_run(run)
    print(f"server killed after step {done[-1]}; checkpoints {done}")


# -- checkpoints and resume without a server (the trainer's own machinery, on CPU) ----------------------------------

class NoTransfer:
    "Weight transfer that does nothing (no server): each sync just bumps the adapter version."
    def init_weight_transfer(self): pass
    def pause(self): pass
    def send_weights(self, it):
        for _ in it: pass
    def resume(self): pass
    def destroy(self): pass


def offline_trainer(tiny_dir, out: Path, max_steps: int, card: dict):
    "A `HarnessGRPOTrainer` fed by the real worker around a fake `run_group` (fixed answers, one rewarded)."
    from peft import LoraConfig
    from transformers import AutoTokenizer
    from harness_adapters.trainer import (HarnessGRPOTrainer, HarnessRolloutWorker, MetricsLog, Rollout,
                                          TrainerConfig, TurnTokens, grpo_args, served_version)
    tok = AutoTokenizer.from_pretrained(tiny_dir)
    end = tok.convert_tokens_to_ids("<|im_end|>")
    def run_group(task, n, model):
        p = tok.apply_chat_template([{"role": "user", "content": f"What is {task}?"}], add_generation_prompt=True,
                                    tokenize=True, return_dict=False)
        outs, gid = [], f"{task}-{time.time_ns()}"
        for i in range(n):
            ids = tok.encode(["7", "six", "I do not know", "Blue"][i % 4], add_special_tokens=False) + [end]
            outs.append(Rollout(task, gid, "pi", model, served_version(model), verifier_reward=float(i == 0),
                                tool_calls=1, turns=[TurnTokens(p, ids, [-1.0] * len(ids))]))
        return outs
    cfg = TrainerConfig("pi", rollouts_per_task=4, groups_in_flight=1, max_queued_samples=16)
    args = grpo_args("tiny", cfg, out, "http://127.0.0.1:9", max_steps=max_steps, learning_rate=1e-3,
                     gradient_accumulation_steps=1, token_budget=200, save_strategy="steps", save_steps=1,
                     disable_tqdm=True, seed=0)
    worker = HarnessRolloutWorker(run_group, ["3 + 4", "2 + 5", "6 + 1"], cfg)
    tr = HarnessGRPOTrainer(str(tiny_dir), args, processing_class=tok, rollout_worker=worker,
                            peft_config=LoraConfig(r=32, lora_alpha=64, target_modules="all-linear"),
                            weight_transfer=NoTransfer(), adapter_name="pi", checkpoint_dir=out / "checkpoints", card=card)
    tr.add_callback(MetricsLog(out / "metrics.jsonl", tr))
    return tr


def test_checkpoint_and_resume_offline(tiny_dir, tmp_path):
    "Checkpoints every step (atomic, PEFT format, card); a resume continues at the next step with versions counting."
    from harness_adapters.trainer import run_card
    card = run_card("tiny", "pi", run_id="offline")
    tr = offline_trainer(tiny_dir, tmp_path, 2, card)
    tr.train()
    assert checkpoint_steps(tmp_path / "checkpoints") == [1, 2]
    c2 = check_checkpoint(tmp_path / "checkpoints" / "step-2", "pi")
    assert c2["adapter"]["version"] == tr.model_version == 3                   # v1 at train begin, +1 a step
    no_partial_files(tmp_path)
    rows = read_metrics(tmp_path / "metrics.jsonl")
    assert [x["step"] for x in rows] == [1, 2] and all(k in rows[0] for k in REQUIRED)

    tr2 = offline_trainer(tiny_dir, tmp_path, 3, card)
    tr2.train(resume_from_checkpoint=str(last_checkpoint(tmp_path / "checkpoints")))
    rows = read_metrics(tmp_path / "metrics.jsonl")
    assert [x["step"] for x in rows] == [1, 2, 3]                             # continued at 3, nothing repeated
    assert tr2.state.global_step == 3 and tr2.model_version == 5              # 3 restored, +1 at begin, +1 at step 3
    assert rows[-1]["adapter/version"] == 5
    c3 = json.loads((tmp_path / "checkpoints" / "step-3" / "card.json").read_text())
    assert c3["adapter"]["sha256"] != c2["adapter"]["sha256"]                 # the adapter moved
    import torch
    o2 = torch.load(tmp_path / "checkpoints" / "step-2" / "optimizer.pt", weights_only=False)
    assert o2["state"], "optimizer state saved"
