"""Benchmark: rollouts per minute on a local Ray cluster of one node, then of two.

    python bench/cluster_bench.py [--rollouts 24] [--cpus-per-node 1] [--out runs/bench]

The cluster is the one `tests/test_cluster.py` starts with `ray start`: a head node (resource `node_a`) at 127.0.0.1,
and, for the second arm, a worker node (`node_b`) at 127.0.0.2, each offering --cpus-per-node Ray CPUs. A rollout asks
`cluster.ROLLOUT_CPUS` (1), so a node runs that many rollouts at once. The rollouts are `rollouts_bench`'s: pi in a
bubblewrap sandbox, through safeagents (both rule packs) to the scripted upstream, one tool call and an answer, so
the model costs nothing and what is measured is the harness, its sandbox and the way there and back through Ray.

Both nodes run on this machine, so a second node adds places for rollouts, not cores: with one Ray CPU a node, one
node keeps about one core busy and two keep two, which is what a second machine would add. The table says how many
cores the machine had; on one with more, raise --cpus-per-node. One run each arm, the one-node arm first (the worker
joins between them), each after as many untimed rollouts as the cluster has places (a node's first rollout
starts its Ray worker and lands the task there); every rollout must come back solved and attributed (each session's answer names the model it
asked for), and the placement per node is recorded. Not a timed test.

Everything goes to OUT/cluster.json and a table to OUT/cluster.md.
"""
import argparse, os, platform, shutil, signal, subprocess, sys, tempfile, time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchrecord                                             # the revision, where the files go
from rollouts_bench import EchoModel, make_task                # the scripted model and its one-call task

import ray
from harness_adapters.cluster import RAY_MARGIN_S, RayExecutor
from harness_adapters.config import get_preset
from harness_adapters.rollouts import run_many, serving_stack
from harness_adapters.sandbox import processes_matching
from harness_adapters.serving import free_port

RAY = [sys.executable, "-m", "ray.scripts.scripts"]


def ray_start(*args: str) -> None:
    subprocess.run(RAY + ["start", *args, "--disable-usage-stats"], check=True, capture_output=True, text=True, timeout=600)


def alive_nodes() -> int:
    return sum(n["Alive"] for n in ray.nodes())


def arm(address: str, nodes: int, task, proxy_url: str, preset, n: int) -> dict:
    "`n` rollouts through a `RayExecutor` on the cluster as it stands (`nodes` alive): rollouts per minute and where they ran."
    names = {x["NodeID"]: next((k for k in ("node_a", "node_b") if k in x["Resources"]), "?") for x in ray.nodes() if x["Alive"]}
    with RayExecutor(address, workers=n, timeout_s=preset.session_timeout_s + RAY_MARGIN_S) as ex:
        slots = ex.capacity()
        run_many([(task, "pi", "warm") for _ in range(slots)], proxy_url, executor=ex, progress=False, preset=preset)
        ex.placed.clear()                                            # untimed: each node's worker up and the task landed there
        t0 = time.perf_counter()
        rs = run_many([(task, "pi", f"m{i}") for i in range(n)], proxy_url, executor=ex, progress=False, preset=preset)
        wall = time.perf_counter() - t0
        placed = {names.get(k, k): v for k, v in ex.placed.items()}
    return {"nodes": nodes, "slots": slots, "rollouts": n, "errored": sum(r.errored for r in rs),
            "solved": sum(r.reward == 1.0 for r in rs if not r.errored),
            "all_attributed": all(r.final_text == f"I am m{i}" for i, r in enumerate(rs)),
            "wall_s": round(wall, 1), "rollouts_per_min": round(60 * n / wall, 1), "placed": placed,
            "rollout_wall_s_p50": round(sorted(r.wall_s for r in rs)[len(rs) // 2], 2),
            "load_avg_after": [round(x, 2) for x in os.getloadavg()]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rollouts", type=int, default=24); ap.add_argument("--cpus-per-node", type=int, default=1)
    ap.add_argument("--out", default="runs/bench")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cluster-bench-"))
    task, preset = make_task(work), get_preset("tiny", agent_steps=4)
    tmp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")              # short: Ray's sockets live under it
    port = free_port(); address = f"127.0.0.1:{port}"
    res = {"bench": "cluster", "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "code": benchrecord.revision(),
           "machine": {"cores": os.cpu_count(), "python": platform.python_version(), "ray": ray.__version__,
                       "load_avg_before": [round(x, 2) for x in os.getloadavg()]},
           "cpus_per_node": a.cpus_per_node, "arms": []}
    cpus = str(a.cpus_per_node)
    try:
        ray_start("--head", "--node-ip-address", "127.0.0.1", "--port", str(port), "--num-cpus", cpus,
                  "--resources", '{"node_a": 1}', "--include-dashboard=false", "--temp-dir", tmp)
        ray.init(address=address, _node_ip_address="127.0.0.1", logging_level="WARNING")
        with EchoModel([]) as up, serving_stack(preset, server=up.url) as st:
            res["arms"].append(arm(address, 1, task, st.proxy_url, preset, a.rollouts))
            ray_start("--address", address, "--node-ip-address", "127.0.0.2", "--num-cpus", cpus, "--resources", '{"node_b": 1}')
            t0 = time.monotonic()
            while alive_nodes() < 2:
                if time.monotonic() - t0 > 120: raise RuntimeError("the worker node did not join in 120 s")
                time.sleep(1)
            res["arms"].append(arm(address, 2, task, st.proxy_url, preset, a.rollouts))
    finally:
        if ray.is_initialized(): ray.shutdown()
        for sig in (signal.SIGTERM, signal.SIGKILL):               # this cluster's processes only (their command lines name `tmp`)
            for pid in processes_matching(tmp) + processes_matching("=127.0.0.2"):
                try: os.kill(pid, sig)
                except ProcessLookupError: pass
            time.sleep(3)
        shutil.rmtree(tmp, ignore_errors=True); shutil.rmtree(work, ignore_errors=True)
    one, two = res["arms"]
    res["ratio_2_to_1"] = round(two["rollouts_per_min"] / one["rollouts_per_min"], 2)
    cols = ["nodes", "slots", "rollouts", "errored", "solved", "all_attributed", "wall_s", "rollouts_per_min", "placed", "rollout_wall_s_p50"]
    table = (f"Rollouts per minute, a local Ray cluster of 1 node then 2 (code {res['code']}, {res['date']}, "
             f"{res['machine']['cores']} cores shared by both nodes, {a.cpus_per_node} Ray CPU a node; load average before "
             f"{res['machine']['load_avg_before']}):\n\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
             + "".join("| " + " | ".join(str(r[c]) for c in cols) + " |\n" for r in res["arms"])
             + f"\n2 nodes / 1 node: {res['ratio_2_to_1']}×\n")
    benchrecord.save(a.out, "cluster", res, table)


if __name__ == "__main__":
    main()
