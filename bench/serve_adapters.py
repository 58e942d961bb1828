"""Benchmark: K adapters served by one vLLM server versus one merged model per adapter, served one after another.

    python bench/serve_adapters.py [--ks 1 3 9] [--requests 4] [--max-tokens 32]

Both ways answer the same requests (greedy, `--requests` per adapter). "shared" starts one server, loads the K
adapters by name and sends every adapter's requests concurrently. "merged" merges each adapter into full weights with
PEFT (`merge_and_unload`), starts a server on the merged folder without LoRA, answers that adapter's requests, and
stops it, adapter after adapter; each adapter's merged cost is measured once and the K=1, 3, 9 totals are the sums
of the first K, since the merged runs are strictly sequential. The two ways are interleaved (merged runs up to K,
then the shared run for K) so that both see the same machine conditions. Wall time and peak resident memory of the whole server
process tree are measured in this one run on this machine; the result is written to runs/bench/serve_adapters.json,
a table to runs/bench/serve_adapters.md and a figure to runs/bench/serve_adapters.png.
"""
import argparse, json, os, shutil, sys, threading, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import torch

from harness_adapters.models import tiny_model_dir
from harness_adapters.serving import ServerConfig, VLLMServer, complete, new_adapter

OUT = Path("runs/bench")
QUESTION = [{"role": "user", "content": "Write one sentence about the sea."}]


class PeakRSS:
    "Peak resident memory (bytes) of a process and its children, sampled every 0.2 s."
    def __init__(self, pid): self.pid, self.peak, self._stop = pid, 0, threading.Event()
    def _run(self):
        while not self._stop.is_set():
            try:
                p = psutil.Process(self.pid)
                rss = sum(q.memory_info().rss for q in [p, *p.children(recursive=True)])
                self.peak = max(self.peak, rss)
            except psutil.Error: pass
            self._stop.wait(0.2)
    def __enter__(self): self.t = threading.Thread(target=self._run, daemon=True); self.t.start(); return self
    def __exit__(self, *a): self._stop.set(); self.t.join()


def ask(url, model, n, max_tokens):
    return [complete(url, model, QUESTION, max_tokens=max_tokens, temperature=0).token_ids for _ in range(n)]


def shared(adapters, n, max_tokens):
    t0 = time.perf_counter()
    srv = VLLMServer(ServerConfig("tiny", max_loras=max(1, len(adapters))))
    srv.start()
    try:
        with PeakRSS(srv.proc.pid) as mem:
            tags = [srv.adapters.load(f"ad{i}", p) for i, p in enumerate(adapters)]
            with ThreadPoolExecutor(len(tags)) as ex:
                outs = list(ex.map(lambda t: ask(srv.url, t, n, max_tokens), tags))
    finally:
        srv.stop()
    return {"wall_s": time.perf_counter() - t0, "peak_rss_gib": mem.peak / 2**30, "outputs": outs}


def merge_adapter(adapter, base, dest):
    "Merge the PEFT adapter at `adapter` into the weights at `base` (float32) and save a servable model folder at `dest`."
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer
    model = PeftModel.from_pretrained(AutoModelForCausalLM.from_pretrained(base, dtype=torch.float32), adapter)
    model.merge_and_unload().save_pretrained(dest)
    AutoTokenizer.from_pretrained(base).save_pretrained(dest)
    return Path(dest)


def merged_one(adapter, base, work, n, max_tokens):
    t0 = time.perf_counter()
    dest = merge_adapter(adapter, base, work / f"merged-{adapter.name}")
    merge_s = time.perf_counter() - t0
    srv = VLLMServer(ServerConfig("tiny", model_path=str(dest), enable_lora=False))
    srv.start()
    try:
        with PeakRSS(srv.proc.pid) as mem:
            out = ask(srv.url, "tiny", n, max_tokens)
    finally:
        srv.stop()
    shutil.rmtree(dest, ignore_errors=True)
    return {"wall_s": time.perf_counter() - t0, "merge_s": merge_s, "peak_rss_gib": mem.peak / 2**30, "outputs": out}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ks", type=int, nargs="+", default=[1, 3, 9])
    ap.add_argument("--requests", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=32)
    a = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    base, work = tiny_model_dir(), OUT / "work"
    work.mkdir(exist_ok=True)
    adapters = [work / f"adapter{i}" for i in range(max(a.ks))]
    for i, p in enumerate(adapters):
        if not (p / "adapter_model.safetensors").exists(): new_adapter(p, base, seed=100 + i)

    load_before = os.getloadavg()[0]
    merged, rows = [], []
    for k in sorted(a.ks):  # interleaved, so both ways see the same machine conditions
        while len(merged) < k:
            merged.append(merged_one(adapters[len(merged)], base, work, a.requests, a.max_tokens))
            print(f"merged adapter {len(merged) - 1}: {merged[-1]['wall_s']:.1f} s", flush=True)
        s = shared(adapters[:k], a.requests, a.max_tokens)
        same = all(x == y["outputs"] for x, y in zip(s["outputs"], merged[:k]))
        m_wall = sum(r["wall_s"] for r in merged[:k])
        rows.append({"k": k, "shared_wall_s": round(s["wall_s"], 1), "merged_wall_s": round(m_wall, 1),
                     "speedup": round(m_wall / s["wall_s"], 2), "shared_peak_rss_gib": round(s["peak_rss_gib"], 2),
                     "merged_peak_rss_gib": round(max(r["peak_rss_gib"] for r in merged[:k]), 2),
                     "same_greedy_outputs": same})
        print(rows[-1], flush=True)
    meta = {"machine": f"{psutil.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.0f} GiB, CPU only",
            "model": "tiny (SmolLM2-135M-Instruct, float32)", "requests_per_adapter": a.requests,
            "max_tokens": a.max_tokens, "merge_s_mean": round(sum(r["merge_s"] for r in merged) / len(merged), 1),
            "load_average_1min_before_after": [round(load_before, 1), round(os.getloadavg()[0], 1)]}
    (OUT / "serve_adapters.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    lines = ["| K | one server, K adapters (s) | merged, one server each (s) | speed-up | peak RSS shared (GiB) | peak RSS merged (GiB) | same greedy outputs |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {r['k']} | {r['shared_wall_s']} | {r['merged_wall_s']} | {r['speedup']}x | {r['shared_peak_rss_gib']} | "
              f"{r['merged_peak_rss_gib']} | {r['same_greedy_outputs']} |" for r in rows]
    (OUT / "serve_adapters.md").write_text("\n".join(lines) + f"\n\n{json.dumps(meta)}\n")
    import matplotlib; matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot(sorted(a.ks), [r["merged_wall_s"] for r in rows], "o-", label="merged, one server per adapter")
    ax.plot(sorted(a.ks), [r["shared_wall_s"] for r in rows], "o-", label="one server, K adapters")
    ax.set(xlabel="adapters (K)", ylabel="wall time (s)", title="Serving K adapters of tiny on CPU")
    ax.legend(); fig.tight_layout(); fig.savefig(OUT / "serve_adapters.png", dpi=120)
    for p in work.glob("merged-*"): shutil.rmtree(p, ignore_errors=True)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
