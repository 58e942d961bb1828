"""Benchmark and equivalence check: one vLLM server with vLLM's CPU LoRA ops against one with `harness_adapters.cpu_lora`.

    python bench/lora_serving.py [--prompt-tokens 512] [--decode 8x64] [--reps 2] [--bf16] [--out runs/bench]

Two `tiny` servers run side by side in this one run, the same in every way but the LoRA ops: `vllm`
(`HARNESS_ADAPTERS_CPU_LORA=0`, vLLM's own ops) and `plugin` (the default: the `vllm.general_plugins` entry point
swaps in the segment-wise ops). Each holds the same 9 random rank-32 all-linear adapters in 10 slots (the project's
one spare), float32, prefix caching off so every prompt is prefilled. They are measured one after the other, mix by
mix, rep by rep (vllm, plugin, vllm, plugin, ...), so both see the same machine, after a warm-up that is not measured.

Throughput, per mix of models in one batch (base only; 1 adapter; 1 adapter + base; 3 adapters + base; 9 adapters +
base), the requests of the mix sent at once:
- prefill: one fresh prompt of about --prompt-tokens tokens per model in the mix (two for a single model), one output
  token each; prompt tokens per second of wall time;
- decode: --decode BxN, B requests cycling through the mix's models, a short prompt and N output tokens each (EOS
  ignored); output tokens per second of wall time (the short prefills included).
The ratio that matters is an adapter mix's throughput over the base model's on the same server (goal: 0.7 or more).

Equivalence, greedy, 32 tokens with logprobs, on a fixed prompt set: each prompt alone on the base model and on
three adapters, then every (prompt, model) pair at once (a mixed batch, base rows beside adapter rows); token ids must
be equal across the two servers, and the largest logprob difference is reported (batch composition alone moves
float32 logprobs by about 1e-5 on this CPU).

--bf16 adds a third server, the plugin's in bfloat16 (this CPU has AVX512-BF16), measured for the base model and one
adapter, and its greedy logprobs compared with the float32 server's on the same tokens: the agreement that the
trainer's importance ratios depend on.

Everything goes to OUT/lora_serving.json and a table to OUT/lora_serving.md.
"""
import argparse, json, os, platform, random, statistics, sys, time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import vllm

from harness_adapters.models import tiny_model_dir
from harness_adapters.serving import ServerConfig, VLLMServer, complete, new_adapter

MIXES = {"base": 0, "1 adapter": 1, "1 adapter + base": 1, "3 adapters + base": 3, "9 adapters + base": 9}
PROMPTS = ["Name three colours of the rainbow.", "What is 12 + 30?", "Write one sentence about the sea.",
           "List two prime numbers.", "Say hello in French.", "What day comes after Monday?"]
WORDS = ("river stone cloud market lantern copper meadow violin harbor pepper signal orchard candle basalt ferry "
         "glacier tunnel walnut compass saddle").split()


def mix_models(mix: str, adapters: list[str]) -> list[str]:
    "The models a mix's requests go to: `base` is the served base model, adapters by name."
    k = MIXES[mix]
    if k == 0: return ["tiny", "tiny"]
    if mix == "1 adapter": return [adapters[0], adapters[0]]
    return adapters[:k] + ["tiny"]


def fresh_prompt(rng: random.Random, words: int) -> list[dict]:
    "A user message of random words, never seen before by the server (about 1.3 tokens a word)."
    return [{"role": "user", "content": " ".join(rng.choice(WORDS) for _ in range(words)) + "\nSummarise the list."}]


def at_once(calls: list) -> tuple[list, float]:
    "Run `calls` concurrently: their results and the wall time."
    t0 = time.perf_counter()
    with ThreadPoolExecutor(len(calls)) as ex: done = [f.result() for f in [ex.submit(c) for c in calls]]
    return done, time.perf_counter() - t0


def prefill_tps(url: str, models: list[str], rng: random.Random, words: int) -> float:
    "Prompt tokens per second: one fresh prompt per model, one output token each, all at once."
    done, wall = at_once([lambda m=m, p=fresh_prompt(rng, words): complete(url, m, p, max_tokens=1, temperature=0)
                          for m in models])
    return sum(len(c.prompt_token_ids) for c in done) / wall


def decode_tps(url: str, models: list[str], batch: int, tokens: int) -> float:
    "Output tokens per second: `batch` short requests cycling through `models`, `tokens` each (EOS ignored)."
    done, wall = at_once([lambda i=i: complete(url, models[i % len(models)], [{"role": "user", "content": PROMPTS[i % len(PROMPTS)]}],
                                              max_tokens=tokens, temperature=0, ignore_eos=True) for i in range(batch)])
    return sum(len(c.token_ids) for c in done) / wall


def greedy_set(url: str, models: list[str], together: bool) -> dict:
    "Greedy 32-token completions of every (prompt, model): one by one, or all at once (a mixed batch)."
    pairs = [(p, m) for m in models for p in PROMPTS]
    ask = lambda p, m: complete(url, m, [{"role": "user", "content": p}], max_tokens=32, temperature=0, ignore_eos=True)
    done = at_once([lambda p=p, m=m: ask(p, m) for p, m in pairs])[0] if together else [ask(p, m) for p, m in pairs]
    return {f"{m}|{p}": c for (p, m), c in zip(pairs, done)}


def compare(a: dict, b: dict) -> dict:
    "Token ids equal (count) and the largest and mean logprob difference, over completions with equal ids."
    same = [k for k in a if a[k].token_ids == b[k].token_ids]
    diffs = [abs(x - y) for k in same for x, y in zip(a[k].logprobs, b[k].logprobs)]
    return {"completions": len(a), "same_tokens": len(same), "max_logprob_diff": max(diffs, default=float("nan")),
            "mean_abs_logprob_diff": statistics.mean(diffs) if diffs else float("nan"),
            "differ": [k for k in a if k not in same]}


def start(name: str, adapters: dict, plugin: bool, dtype: str | None = None) -> tuple[VLLMServer, list[str]]:
    "A tiny server with the LoRA ops chosen by `plugin`, every adapter loaded; (server, served adapter names)."
    extra = ("--no-enable-prefix-caching",) + (("--dtype", dtype) if dtype else ())
    server = VLLMServer(ServerConfig("tiny", max_loras=len(adapters), max_num_seqs=16, kv_cache_gib=2, extra_args=extra,
                                     env={"HARNESS_ADAPTERS_CPU_LORA": "1" if plugin else "0"},
                                     log_path=f"/tmp/lora_serving-{name}.log")).start()
    return server, [server.adapters.load(n, p) for n, p in adapters.items()]


def table(res: dict) -> str:
    "The markdown report."
    th = res["throughput"]
    lines = [f"# LoRA serving on CPU: vLLM's ops against `harness_adapters.cpu_lora`, one run", "",
             f"`{res['command']}` — {res['when']}, {res['machine']}, vllm {res['vllm']}; medians of {res['reps']} reps; "
             f"prefill: fresh prompts of ~{res['prompt_tokens']} tokens, one per model in the mix; decode: {res['decode']}.", "",
             "| mix | prefill tok/s, vLLM ops | prefill, plugin | plugin ÷ vLLM | ÷ base (vLLM) | ÷ base (plugin) "
             "| decode tok/s, vLLM ops | decode, plugin | plugin ÷ vLLM | ÷ base (vLLM) | ÷ base (plugin) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for mix in MIXES:
        row = [mix]
        for kind in ("prefill", "decode"):
            v, p = th["vllm"][kind][mix], th["plugin"][kind][mix]
            bv, bp = th["vllm"][kind]["base"], th["plugin"][kind]["base"]
            row += [f"{v:.0f}", f"{p:.0f}", f"{p / v:.2f}×", f"{v / bv:.2f}", f"{p / bp:.2f}"]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "## Equivalence (greedy, 32 tokens, fixed prompts; vLLM's ops against the plugin)", "",
              "| case | completions | same token ids | largest logprob difference |", "|---|---|---|---|"]
    for case, c in res["equivalence"].items():
        lines.append(f"| {case} | {c['completions']} | {c['same_tokens']} | {c['max_logprob_diff']:.2e} |")
    if "bf16" in res:
        b = res["bf16"]
        lines += ["", "## bfloat16 against float32 (plugin on both; two more servers with one adapter, measured interleaved)", "",
                  "| model | prefill tok/s f32 | bf16 | bf16 ÷ f32 | decode tok/s f32 | bf16 | bf16 ÷ f32 |", "|---|---|---|---|---|---|---|"]
        for mix in ("base", "1 adapter"):
            f, h = b["throughput"]["f32"], b["throughput"]["bf16"]
            lines.append(f"| {mix} | {f['prefill'][mix]:.0f} | {h['prefill'][mix]:.0f} | {h['prefill'][mix] / f['prefill'][mix]:.2f}× "
                         f"| {f['decode'][mix]:.0f} | {h['decode'][mix]:.0f} | {h['decode'][mix] / f['decode'][mix]:.2f}× |")
        lines += ["", f"Greedy tokens equal in {b['agreement']['same_tokens']} of {b['agreement']['completions']} completions; "
                  f"on those, bf16 − f32 logprob: largest {b['agreement']['max_logprob_diff']:.3f}, mean |diff| "
                  f"{b['agreement']['mean_abs_logprob_diff']:.4f} (float32 against float32 across batch shapes: "
                  f"{res['equivalence']['mixed batch']['max_logprob_diff']:.1e})."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prompt-tokens", type=int, default=512); ap.add_argument("--decode", default="8x64")
    ap.add_argument("--reps", type=int, default=2); ap.add_argument("--bf16", action="store_true")
    ap.add_argument("--out", default="runs/bench")
    a = ap.parse_args(argv)
    batch, tokens = map(int, a.decode.split("x"))
    out, tmp = Path(a.out), Path("/tmp/lora_serving-adapters")
    tmp.mkdir(parents=True, exist_ok=True)
    adapters = {f"r{i}": new_adapter(tmp / f"r{i}", tiny_model_dir(), seed=i) if not (tmp / f"r{i}" / "adapter_config.json").exists()
                else tmp / f"r{i}" for i in range(9)}
    servers = {}
    try:
        servers["vllm"], names = start("vllm", adapters, plugin=False)
        servers["plugin"], names_p = start("plugin", adapters, plugin=True)
        assert names == names_p
        rng = random.Random(0)
        words = int(a.prompt_tokens / 1.3)
        samples = {s: {"prefill": {m: [] for m in MIXES}, "decode": {m: [] for m in MIXES}} for s in servers}
        for server in servers.values():          # not measured: a first prefill and decode warm the engine up (the
            prefill_tps(server.url, ["tiny", names[0]], rng, words)     # first run of 2026-12-03 had none, and its
            decode_tps(server.url, ["tiny", names[0]], batch, tokens)   # first base rep prefilled at half speed)
        for mix in MIXES:
            models = mix_models(mix, names)
            for rep in range(a.reps):
                for s, server in servers.items():
                    samples[s]["prefill"][mix].append(prefill_tps(server.url, models, rng, words))
                    samples[s]["decode"][mix].append(decode_tps(server.url, models, batch, tokens))
                print(f"{mix} rep {rep}: " + ", ".join(f"{s} prefill {samples[s]['prefill'][mix][-1]:.0f} decode "
                                                       f"{samples[s]['decode'][mix][-1]:.0f} tok/s" for s in servers), flush=True)
        th = {s: {k: {m: statistics.median(v) for m, v in d.items()} for k, d in sd.items()} for s, sd in samples.items()}
        eq_models = ["tiny"] + names[:3]
        got = {s: {"alone": greedy_set(srv.url, eq_models, together=False), "mixed": greedy_set(srv.url, eq_models, together=True)}
               for s, srv in servers.items()}
        eq = {"one at a time": compare(got["vllm"]["alone"], got["plugin"]["alone"]),
              "mixed batch": compare(got["vllm"]["mixed"], got["plugin"]["mixed"]),
              "plugin: alone vs mixed": compare(got["plugin"]["alone"], got["plugin"]["mixed"])}
        res = {"command": "python bench/lora_serving.py " + " ".join(argv if argv is not None else sys.argv[1:]),
               "when": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}", "vllm": vllm.__version__,
               "reps": a.reps, "prompt_tokens": a.prompt_tokens, "decode": a.decode, "samples": samples,
               "throughput": th, "equivalence": eq}
        if a.bf16:
            for s in list(servers): servers.pop(s).stop()
            servers["f32"], (tag,) = start("plugin-f32", {"r0": adapters["r0"]}, plugin=True)
            servers["bf16"], (tag_h,) = start("plugin-bf16", {"r0": adapters["r0"]}, plugin=True, dtype="bfloat16")
            assert tag == tag_h
            bth = {s: {"prefill": {}, "decode": {}} for s in ("f32", "bf16")}
            for s in bth:
                prefill_tps(servers[s].url, ["tiny", tag], rng, words); decode_tps(servers[s].url, ["tiny", tag], batch, tokens)
            for mix, models in (("base", ["tiny", "tiny"]), ("1 adapter", [tag, tag])):
                got_ = {s: {"prefill": [], "decode": []} for s in bth}
                for rep in range(a.reps):
                    for s in bth:
                        got_[s]["prefill"].append(prefill_tps(servers[s].url, models, rng, words))
                        got_[s]["decode"].append(decode_tps(servers[s].url, models, batch, tokens))
                for s in bth:
                    for k in ("prefill", "decode"): bth[s][k][mix] = statistics.median(got_[s][k])
            ref, half = (greedy_set(servers[s].url, ["tiny", tag], together=False) for s in ("f32", "bf16"))
            res["bf16"] = {"throughput": bth, "agreement": compare(ref, half)}
        out.mkdir(parents=True, exist_ok=True)
        (out / "lora_serving.json").write_text(json.dumps(res, indent=1, default=str) + "\n")
        (out / "lora_serving.md").write_text(table(res))
        print(table(res))
        return 0
    finally:
        for s in servers.values(): s.stop()


if __name__ == "__main__":
    sys.exit(main())
