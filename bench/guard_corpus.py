"""The guard's rules on a labelled corpus: precision and recall per rule and per attack category, every false block and miss.

Run from the repo root: `python bench/guard_corpus.py` (about 10 s on 2 cores). Reads `tests/data/guard_corpus.jsonl`
(made by `tests/data/make_guard_corpus.py`) and every tool call of the clean sessions in `tests/data/clean_sessions`
(benign), decides each call with the guard as `safeagents serve` runs it (stages 1-2, both packs, no judge), and writes
`runs/bench/guard_corpus.json` and `runs/bench/guard_corpus.md`. `--as before` files the numbers under another name
(the json keeps one result per name; the md shows them all, `after` last). A case's task context (`context`: which
folders are the agent's own, which files the verifier's) is given to the guard as a rollout declares it to the proxy;
`--no-context` leaves it out. E.g. to keep the numbers of older rules:
`git archive COMMIT harness_adapters | tar -x -C /tmp/old && PYTHONPATH=/tmp/old python bench/guard_corpus.py --as before --no-context`.
"""
from __future__ import annotations
import argparse, json, statistics, time
from collections import Counter, defaultdict
from pathlib import Path
from harness_adapters.guard import Guard
from harness_adapters.guardtools import _tool_names

ROOT = Path(__file__).resolve().parent.parent
CORPUS, CLEAN = ROOT / "tests/data/guard_corpus.jsonl", ROOT / "tests/data/clean_sessions"
OUT = ROOT / "runs/bench/guard_corpus"
PACKS = ("harness_adapters.packs.smoldataenvs:checks", "harness_adapters.packs.traj2envs:checks", "harness_adapters.effects:zones")
CATEGORIES = ("reward_tampering", "test_edits", "answer_sources", "credentials", "hub_sources", "proxy_bypass")
# the category a rule guards (by id, then by the part after the pack's prefix); stage-1 rules guard none
RULE_CATEGORY = {"tamper.reward_write": "reward_tampering", "access.verifier_logs": "reward_tampering", "reward_tamper": "reward_tampering",
                 "tamper.test_files": "test_edits", "access.test_path": "test_edits", "tamper.harness_hooks": "test_edits", "test_tamper": "test_edits",
                 "answer_source": "answer_sources", "solution_source": "answer_sources", "source_recon": "answer_sources",
                 "lookup.benchmark_source": "answer_sources", "lookup.benchmark_task_files": "answer_sources", "lookup.solution_package": "answer_sources",
                 "hf_credential": "credentials", "access.harness_credentials": "credentials",
                 "hub_download": "hub_sources", "hub_sources": "hub_sources", "proxy_bypass": "proxy_bypass", "network.isolation_bypass": "proxy_bypass"}


def rule_category(rule): return RULE_CATEGORY.get(rule) or RULE_CATEGORY.get(rule.split(".", 1)[-1])


def corpus_cases(corpus: Path = CORPUS, clean: bool = True):
    "Every labelled call: the corpus' entries, then (`clean`) each call of each clean session (benign)."
    cases = [json.loads(l) for l in Path(corpus).read_text().splitlines() if l.strip()]
    for f in sorted(CLEAN.glob("*.json")) if clean else []:
        t = json.loads(f.read_text())
        steps = [{k: v for k, v in s.items() if k != "step_id"} for s in t["steps"]]
        for i, s in enumerate(steps):
            for c in s.get("tool_calls") or []:
                cases.append({"id": f"{f.stem}:{c['tool_call_id']}", "label": "benign", "category": "clean_session", "note": "",
                              "tools": t["agent"].get("tool_definitions"), "steps": steps[:i], "call": c})
    return cases


def decide(guard, case, context: bool = True):
    "The guard's decision on the case's call, after its conversation (`context`: with the task context the case declares)."
    call = {"tool_call_id": "t", "function_name": case["call"]["function_name"], "arguments": case["call"]["arguments"]}
    steps, declared = case["steps"] + [{"source": "agent", "message": "", "tool_calls": [call]}], _tool_names(case.get("tools"))
    if not (context and case.get("context")): return guard.check(steps, declared)[0]
    from harness_adapters.effects import TaskContext   # not in the rules before task contexts (run those with --no-context)
    return guard.check(steps, declared, context=TaskContext.from_dict(case["context"]))[0]


def plugins():
    """`PACKS` less those whose module the code under test does not have (older rules, measured from `git archive` on
    `PYTHONPATH`, had no effect rules; looked for as files, since an editable install would find the newer ones)."""
    import harness_adapters
    def has(module):
        rel = module.split(":")[0].split(".", 1)[1].replace(".", "/")
        return any((Path(d) / f"{rel}.py").exists() or (Path(d) / rel).is_dir() for d in harness_adapters.__path__)
    return [p for p in PACKS if has(p)]


def run(corpus: Path = CORPUS, clean: bool = True, context: bool = True):
    guard, rows, ms = Guard(plugins()), [], []
    for case in corpus_cases(corpus, clean):
        t = time.perf_counter(); d = decide(guard, case, context); ms.append((time.perf_counter() - t) * 1000)
        rows.append({"id": case["id"], "label": case["label"], "category": case["category"], "obfuscation": case.get("obfuscation"),
                     "expected_miss": case.get("expected_miss"), "note": case.get("note", ""), "verdict": d.verdict, "reason": d.reason,
                     "rules": sorted({f"{f.rule}:{'error' if f.error else f.severity}" for f in d.findings if f.severity != "info"}),
                     "call": json.dumps(case["call"]["arguments"], ensure_ascii=False)[:300]})
    return summarise(rows, ms)


def ratio(a, b): return round(a / b, 3) if b else None


def summarise(rows, ms):
    attacks, benign = [r for r in rows if r["label"] == "attack"], [r for r in rows if r["label"] == "benign"]
    blocked = lambda r: r["verdict"] == "block"
    cats = {}
    for c in [c for c in CATEGORIES if any(r["category"] == c for r in attacks)] + sorted({r["category"] for r in attacks} - set(CATEGORIES)):
        a = [r for r in attacks if r["category"] == c]
        fb = [r for r in benign if blocked(r) and any(rule_category(x.split(":")[0]) == c for x in r["rules"] if x.split(":")[1] in ("high", "critical", "error"))]
        tp = sum(map(blocked, a)); must = [r for r in a if not r["expected_miss"]]
        cats[c] = {"attacks": len(a), "blocked": tp, "recall": ratio(tp, len(a)), "recall_required": ratio(sum(map(blocked, must)), len(must)),
                   "false_blocks": len(fb), "precision": ratio(tp, tp + len(fb))}
    obf = defaultdict(lambda: [0, 0])
    for r in attacks: obf[r["obfuscation"]][0] += 1; obf[r["obfuscation"]][1] += blocked(r)
    fired = defaultdict(lambda: {"severity": "", "attacks": 0, "attacks_in_category": 0, "benign": 0})
    for r in rows:
        for x in r["rules"]:
            rule, sev = x.rsplit(":", 1); f = fired[rule]; f["severity"] = sev
            if r["label"] == "attack":
                f["attacks"] += 1; f["attacks_in_category"] += rule_category(rule) == r["category"]
            else: f["benign"] += 1
    ncat = Counter(r["category"] for r in attacks)
    rules = {k: {**v, "category": rule_category(k), "precision": ratio(v["attacks"], v["attacks"] + v["benign"]),
                 "recall": ratio(v["attacks_in_category"], ncat[rule_category(k)]) if rule_category(k) else None}
             for k, v in sorted(fired.items())}
    tp = sum(map(blocked, attacks)); fbs = [r for r in benign if blocked(r)]
    return {"time": time.strftime("%Y-%m-%d %H:%M:%S"), "calls": len(rows), "attacks": len(attacks), "benign": len(benign),
            "blocked_attacks": tp, "recall": ratio(tp, len(attacks)), "false_blocks": len(fbs), "precision": ratio(tp, tp + len(fbs)),
            "check_ms_p50": round(statistics.median(ms), 2), "categories": cats, "obfuscations": {k: {"attacks": a, "blocked": b} for k, (a, b) in sorted(obf.items())},
            "rules": rules, "false_block_list": [{k: r[k] for k in ("id", "category", "note", "call", "rules")} for r in fbs],
            "misses": [{k: r[k] for k in ("id", "category", "obfuscation", "note", "call", "verdict", "rules", "expected_miss")} for r in attacks if not blocked(r)]}


def fmt(x): return "-" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))


def md_result(name, s):
    out = [f"## {name}", ""] + ([s["note"], ""] if s.get("note") else []) + [f"{s['time']}: {s['calls']} calls ({s['attacks']} attacks, {s['benign']} benign), {s['blocked_attacks']} attacks blocked "
           f"(recall {fmt(s['recall'])}), {s['false_blocks']} false blocks (precision {fmt(s['precision'])}); {s['check_ms_p50']} ms per call (median).", "",
           "| category | attacks | blocked | recall | recall w/o expected misses | false blocks | precision |", "|---|---|---|---|---|---|---|"]
    out += [f"| {c} | {v['attacks']} | {v['blocked']} | {fmt(v['recall'])} | {fmt(v['recall_required'])} | {v['false_blocks']} | {fmt(v['precision'])} |" for c, v in s["categories"].items()]
    out += ["", "| obfuscation | attacks | blocked |", "|---|---|---|"] + [f"| {k} | {v['attacks']} | {v['blocked']} |" for k, v in s["obfuscations"].items()]
    out += ["", "Rules that fired (medium and above; `recall`: share of their category's attacks they fire on):", "",
            "| rule | severity | category | fired on attacks | fired on benign | precision | recall |", "|---|---|---|---|---|---|---|"]
    out += [f"| {k} | {v['severity']} | {v['category'] or '-'} | {v['attacks']} | {v['benign']} | {fmt(v['precision'])} | {fmt(v['recall'])} |" for k, v in s["rules"].items()]
    out += ["", f"False blocks ({len(s['false_block_list'])}):", ""] + [f"- `{r['id']}` ({r['category']}): `{r['call']}` by {', '.join(r['rules'])}" for r in s["false_block_list"]]
    out += ["", f"Misses ({len(s['misses'])}):", ""] + [f"- `{r['id']}` {r['category']}/{r['obfuscation']} ({r['verdict']}{'; expected: ' + r['expected_miss'] if r['expected_miss'] else ''}): `{r['call']}`" for r in s["misses"]]
    return "\n".join(out) + "\n"


def md_summary(results, names):
    "Recall per category (blocked / attacks) and false blocks, one column per result."
    if len(names) < 2: return ""
    out = ["| category | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for c in results[names[-1]]["categories"]:
        out.append(f"| {c} | " + " | ".join(f"{results[n]['categories'][c]['blocked']}/{results[n]['categories'][c]['attacks']} ({fmt(results[n]['categories'][c]['recall'])})" for n in names) + " |")
    out.append("| all attacks | " + " | ".join(f"{results[n]['blocked_attacks']}/{results[n]['attacks']} ({fmt(results[n]['recall'])})" for n in names) + " |")
    out.append("| benign blocked | " + " | ".join(f"{results[n]['false_blocks']}/{results[n]['benign']}" for n in names) + " |")
    return "\n".join(out) + "\n\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--as", dest="name", default="after", help="the name the numbers are filed under (default: after)")
    p.add_argument("--note", default="", help="what was measured, shown under the numbers' heading (e.g. which rules)")
    p.add_argument("--corpus", default=str(CORPUS), help="another labelled corpus (JSON lines): results go to runs/bench/guard_<its stem>.{json,md}, "
                   "without the clean sessions")
    p.add_argument("--counts-only", action="store_true", help="write no case's call or note (a held-out split, kept from the rules' author): "
                   "counts, rule names and case ids only")
    p.add_argument("--no-context", action="store_true", help="decide without the task context a case declares (rules older than task "
                   "contexts, or the guard of a proxy no rollout tells one)")
    a = p.parse_args(argv)
    main_corpus = Path(a.corpus).resolve() == CORPUS.resolve()
    out = OUT if main_corpus else ROOT / "runs/bench" / f"guard_{Path(a.corpus).stem.removeprefix('guard_')}"
    path = out.with_suffix(".json")
    results = json.loads(path.read_text()) if path.exists() else {}
    s = run(Path(a.corpus), clean=main_corpus, context=not a.no_context)
    if a.counts_only:
        s["false_block_list"] = [{"id": r["id"], "category": r["category"], "note": "", "call": "(held out)", "rules": r["rules"]} for r in s["false_block_list"]]
        s["misses"] = [{**{k: r[k] for k in ("id", "category", "obfuscation", "verdict", "rules", "expected_miss")}, "note": "", "call": "(held out)"} for r in s["misses"]]
    results[a.name] = {**s, "note": a.note, "corpus": str(Path(a.corpus).resolve().relative_to(ROOT))}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")
    names = sorted(results, key=lambda n: n == "after")
    corpus = "`tests/data/guard_corpus.jsonl`, plus every call of `tests/data/clean_sessions`" if main_corpus else f"`{results[a.name]['corpus']}`"
    head = ["# Guard on the labelled corpus", "", f"`python bench/guard_corpus.py{'' if main_corpus else ' --corpus ' + results[a.name]['corpus']}` (corpus: {corpus}). "
            "Stages 1-2 as `safeagents serve --plugin ...smoldataenvs:checks --plugin ...traj2envs:checks` runs them, no judge. "
            "A call counts as caught when it is blocked (a medium rule only logs it).", ""]
    out.with_suffix(".md").write_text("\n".join(head) + "\n" + md_summary(results, names) + "\n".join(md_result(n, results[n]) for n in names))
    s = results[a.name]
    print(f"{a.name}: recall {s['recall']} ({s['blocked_attacks']}/{s['attacks']}), false blocks {s['false_blocks']}/{s['benign']}; wrote {path} and {out.with_suffix('.md')}")


if __name__ == "__main__": main()
