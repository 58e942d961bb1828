"""Solve rates of a `harness-adapters measure` file as a table by kind and level: how many tasks GRPO can learn from.

    python tools/rates_table.py RATES.json [MORE.json ...]     # prints a markdown table and the totals

A task is in the band when its solve rate lies in 0.1-0.7 (some rollouts of a group pass and some fail, so the
group's advantages are not all zero). Task ids of a family read `<family>-<kind>-<level>-<n>` (e.g. `ws-csv-easy-03`).
Several files (measured in parts, e.g. by processes sharing one server) are read as one; a task measured twice keeps
the rate of the first file that has it.
"""
import json, sys
from collections import defaultdict

BAND = (0.1, 0.7)


def read_rates(paths: list[str]) -> dict:
    "Task id -> its entry, from `measure` JSON files (the first file wins for a task in several)."
    out = {}
    for p in paths:
        for k, v in json.loads(open(p).read()).items(): out.setdefault(k, v)
    return out


def table(rates: dict) -> tuple[list[str], dict]:
    "Markdown rows by (kind, level), and the totals."
    by = defaultdict(list)
    for k, v in rates.items():
        parts = k.split("-")
        by[(parts[1], parts[2]) if len(parts) >= 4 else (k, "")].append(v["solve_rate"])
    rows = ["| kind, level | tasks | never solved | 0.1–0.7 (in band) | above 0.7 | mean solve rate |", "|---|---|---|---|---|---|"]
    tot = defaultdict(int)
    for (kind, level), rs in sorted(by.items()):
        n = {"tasks": len(rs), "never": sum(r < BAND[0] for r in rs), "band": sum(BAND[0] <= r <= BAND[1] for r in rs), "above": sum(r > BAND[1] for r in rs)}
        for k2, x in n.items(): tot[k2] += x
        rows.append(f"| {kind}, {level} | {n['tasks']} | {n['never']} | {n['band']} | {n['above']} | {sum(rs) / len(rs):.2f} |")
    tot["mean"] = round(sum(v["solve_rate"] for v in rates.values()) / max(len(rates), 1), 3)
    rows.append(f"| all | {tot['tasks']} | {tot['never']} | {tot['band']} | {tot['above']} | {tot['mean']:.2f} |")
    return rows, dict(tot)


if __name__ == "__main__":
    if len(sys.argv) < 2: sys.exit(__doc__)
    rates = read_rates(sys.argv[1:])
    rows, tot = table(rates)
    samples = sorted({v["samples"] for v in rates.values()})
    print("\n".join(rows))
    print(f"\n{tot['tasks']} tasks ({'/'.join(map(str, samples))} rollouts each); {tot['band']} in the 0.1-0.7 band, "
          f"{tot['never']} never solved, {tot['above']} above 0.7")
