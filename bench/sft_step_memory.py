"""Peak memory and time of one SFT step: 8 sessions of 1,109 tokens, 773 of them a shared prefix (pi's lean system
prompt and tools), 330 trained tokens each, on `tiny` with the RL-shaped LoRA, bf16 autocast where the CPU has it.

    python bench/sft_step_memory.py [--as NAME]

Each way of taking the step runs in a fresh process (its peak RSS is the step's): `shared`, the prefix run once
(`sft._shared_step_loss`, what `harness-adapters sft` uses) and `whole`, each session run whole (`sft._step_loss`).
`--as before` files the numbers under another name, e.g. for an older commit's code:
`git archive COMMIT harness_adapters | tar -x -C /tmp/old && PYTHONPATH=/tmp/old python bench/sft_step_memory.py --as before`.
Writes runs/bench/sft_step_memory.json (one result per name) and .md.
"""
import argparse, json, subprocess, sys, tempfile, time
from pathlib import Path

STEP = r'''
import json, random, resource, sys, time, torch
from harness_adapters.sft import SFTSample, _shared_step_loss, _step_loss
from harness_adapters.models import model_path
from harness_adapters.config import get_preset
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM
torch.set_num_threads(2)
p = get_preset("tiny"); torch.manual_seed(0); rng = random.Random(0)
m = get_peft_model(AutoModelForCausalLM.from_pretrained(model_path(p), dtype=torch.float32),
                   LoraConfig(r=p.lora_rank, lora_alpha=p.lora_alpha, target_modules=p.lora_targets, task_type="CAUSAL_LM")).train()
prefix = [rng.randrange(100, 40000) for _ in range(773)]
rows = [SFTSample("bench", prefix + [rng.randrange(100, 40000) for _ in range(336)], [0] * 779 + [1] * 330) for _ in range(8)]
loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
bf16 = bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
t = time.time()
with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
    loss, n = (_shared_step_loss if sys.argv[1] == "shared" else _step_loss)(m, rows)
print(json.dumps({"loss": loss, "tokens_trained": n, "step_s": round(time.time() - t, 2), "bf16": bf16, "loaded_mib": round(loaded),
                  "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--as", dest="name", default="after", help="file the numbers under this name (default: after)")
    a = ap.parse_args()
    import harness_adapters
    code = Path(harness_adapters.__file__).resolve().parent
    rev = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    if rev and subprocess.run(["git", "-C", str(code), "status", "--porcelain", "--", "."], capture_output=True, text=True).stdout.strip():
        rev += " with uncommitted changes"
    r = {"code": str(code) + (f" at commit {rev}" if rev else ""), "when": time.strftime("%Y-%m-%d %H:%M"),
         "rows": 8, "tokens_a_row": 1109, "shared_prefix": 773, "trained_a_row": 330}
    for way in ("shared", "whole"):
        # from /tmp: `python -c` puts the working directory first on sys.path, where a checkout's code would win over PYTHONPATH
        out = subprocess.run([sys.executable, "-c", STEP, way], capture_output=True, text=True, cwd=tempfile.gettempdir())
        if out.returncode: sys.exit(f"the {way} step failed:\n{out.stderr[-2000:]}")
        r[way] = json.loads(out.stdout.strip().splitlines()[-1])
        print(way, r[way], flush=True)
    f = Path("runs/bench/sft_step_memory.json"); f.parent.mkdir(parents=True, exist_ok=True)
    results = json.loads(f.read_text()) if f.exists() else {}
    results[a.name] = r
    f.write_text(json.dumps(results, indent=1))
    lines = ["# One SFT step: peak memory and time", "", "`python bench/sft_step_memory.py` (see its docstring). 8 sessions of 1,109 tokens "
             "(773 shared, 330 trained each), `tiny` with the RL-shaped LoRA, one process per way of taking the step.", "",
             "| code | way | peak RSS (MiB) | RSS with the model loaded, before the step (MiB) | step (s) | loss |", "|---|---|---|---|---|---|"]
    for name in sorted(results, key=lambda k: (k == "after", k)):
        for way in ("shared", "whole"):
            x = results[name][way]
            lines.append(f"| {name} | {way} | {x['peak_mib']} | {x['loaded_mib']} | {x['step_s']} | {x['loss']:.4f} |")
    lines += [""] + [f"- {name}: `{results[name]['code']}`, measured {results[name]['when']}" for name in sorted(results, key=lambda k: (k == "after", k))]
    (f.parent / "sft_step_memory.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__": main()
