"""Benchmark: a LoRA forward and backward on this CPU while the vLLM server beside it generates, with PyTorch's default
thread count and with `trainer.training_threads` (the cores the server's worker left free).

    python bench/train_beside_server.py [--steps 2] [--out runs/bench/train_beside_server.md]

The tiny model with the preset's LoRA (rank 32, all linear layers) on a 192-token row; the load is 4 client threads in
another process asking the server for 16-token answers without pause. Reported as seconds per forward+backward and
as the loaded time ÷ the idle time, each thread count against itself in the same run.
"""
import argparse, os, subprocess, sys, time
from pathlib import Path
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM
from harness_adapters.config import get_preset
from harness_adapters.models import tiny_model_dir
from harness_adapters.serving import ServerConfig, VLLMServer
from harness_adapters.trainer import training_threads

LOAD = """
import sys, threading
from harness_adapters.serving import complete
def ask():
    while True: complete(sys.argv[1], "tiny", [{"role": "user", "content": "What is 2 + 3?"}], max_tokens=16)
for _ in range(4): threading.Thread(target=ask, daemon=True).start()
threading.Event().wait()
"""

def step_s(model, x) -> float:
    t = time.perf_counter(); model(input_ids=x, labels=x).loss.backward(); model.zero_grad(); return time.perf_counter() - t

def timed(model, x, steps: int) -> float:
    step_s(model, x)                                     # warm-up
    return min(step_s(model, x) for _ in range(steps))

ap = argparse.ArgumentParser(); ap.add_argument("--steps", type=int, default=2)
ap.add_argument("--out", default="runs/bench/train_beside_server.md"); a = ap.parse_args()
p = get_preset("tiny")
model = get_peft_model(AutoModelForCausalLM.from_pretrained(str(tiny_model_dir())),
                       LoraConfig(r=p.lora_rank, lora_alpha=p.lora_alpha, target_modules=p.lora_targets))
x = torch.randint(0, 1000, (1, 192))
rows = []
with VLLMServer(ServerConfig("tiny", device="cpu")) as srv:
    for label, n in (("PyTorch's default", torch.get_num_threads()), ("training_threads", training_threads(srv))):
        torch.set_num_threads(n)
        idle = timed(model, x, a.steps)
        load = subprocess.Popen([sys.executable, "-c", LOAD, srv.url]); time.sleep(8)
        try: busy = timed(model, x, a.steps)
        finally: load.kill(); load.wait(); time.sleep(2)
        rows.append((label, n, idle, busy)); print(rows[-1], flush=True)
    cores = srv.cpu_cores
lines = [f"# A LoRA forward+backward beside a generating vLLM server ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})", "",
         f"`python bench/train_beside_server.py --steps {a.steps}`: tiny, LoRA r={p.lora_rank} on all linear layers, one 192-token row, "
         f"best of {a.steps}; {len(os.sched_getaffinity(0))} cores, the server's worker bound to {cores}.", "",
         "| torch threads | n | idle s | server generating s | generating ÷ idle |", "|---|---|---|---|---|"]
lines += [f"| {l} | {n} | {i:.2f} | {b:.2f} | {b / i:.1f} |" for l, n, i, b in rows]
Path(a.out).parent.mkdir(parents=True, exist_ok=True); Path(a.out).write_text("\n".join(lines) + "\n")
print("\n".join(lines))
