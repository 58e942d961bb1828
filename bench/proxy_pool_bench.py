"""Benchmark: one safeagents proxy process against several (`safeagents.ProxyPool`), under 48 concurrent sessions.

    python bench/proxy_pool_bench.py [--processes 1,2] [--blocks 2] [--out runs/bench]

The load is `safeagents_bench.load`'s, unchanged: 48 concurrent sessions against the scripted upstream (its own
process; each answer 200 words in 40 chunks 2 ms apart, then one tool call, a stress pace), streamed rounds and one
non-streamed round per block, direct to the upstream and through the proxies in turn, so that load from other work
on the machine falls on both; each session's calls go to its proxy (`safeagents.shard`). Per number of proxy
processes, in the same run: the added latency of a non-streamed call (proxied median less direct median), the added
time to the first content event, relayed events per second proxied over direct, and the CPU each process spent a
call. The goal named in issue 44: the proxy no longer sets the pace (throughput ≥ 0.95× direct) and a non-streamed
call's added median ≤ 5 ms at 48 sessions. On a machine of 2 cores, shared by the client, the upstream and the
proxies, processes beyond the cores cannot help: the table says how many cores the run had.

Everything goes to OUT/proxy_pool.json and a table to OUT/proxy_pool.md.
"""
import argparse, asyncio, os, subprocess, sys
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchrecord                                               # the revision, where the files go
import safeagents_bench as sb                                    # the load, the upstream process, the summaries
from harness_adapters.safeagents import ProxyConfig, ProxyPool


def measure(up_url: str, up_pid: int, n: int, blocks: int) -> dict:
    "One pool of `n` proxies in front of the upstream, under `safeagents_bench.load`."
    with ProxyPool(ProxyConfig(up_url, plugins=sb.PACKS), n) as pool:
        pids = {"client": None, "upstream": up_pid} | {f"proxy{i}": p.pid for i, p in enumerate(pool.procs)}
        r = asyncio.run(asyncio.wait_for(sb.load(up_url, pool.url, blocks, pids), 600))
    d, p = r["direct"], r["proxy"]
    return {"processes": n, "added_plain_p50_ms": round(p["plain_p50_ms"] - d["plain_p50_ms"], 2),
            "added_first_event_p50_ms": round(p["ttft_p50_ms"] - d["ttft_p50_ms"], 2),
            "throughput_ratio": round(p["chunks_per_s"] / d["chunks_per_s"], 3),
            "proxy_cpu_ms_per_call": round(sum(v for k, v in p.get("cpu_ms_per_call", {}).items() if k.startswith("proxy")), 3),
            "single_session_added_plain_ms": round(r["single"]["plain_proxy"] - r["single"]["plain_direct"], 2) if r.get("single") else None,
            "raw": r}


def table(res: dict) -> str:
    lines = ["# safeagents: one proxy process against several, 48 sessions", "",
             f"`python bench/proxy_pool_bench.py {res['argv']}` at {res['revision']} on {res['started']}: {res['machine']}, "
             f"1-min load average {res['load_avg_1min'][0]} before and {res['load_avg_1min'][1]} after.", "",
             "| proxy processes | non-streamed call, added median (ms) | first content event, added median (ms) | events a second, proxied / direct | proxy CPU a streamed call (ms, all processes) | one session alone, added (ms) |",
             "|---|---|---|---|---|---|"]
    for r in res["runs"]:
        lines.append(f"| {r['processes']} | {r['added_plain_p50_ms']} | {r['added_first_event_p50_ms']} | {r['throughput_ratio']}× | {r['proxy_cpu_ms_per_call']} | {r['single_session_added_plain_ms']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--processes", default="1,2"); ap.add_argument("--blocks", type=int, default=2)
    ap.add_argument("--out", default="runs/bench")
    a = ap.parse_args(argv)
    rev = benchrecord.revision()
    load0, started = os.getloadavg()[0], datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    port = sb.free_port()
    up = subprocess.Popen([sys.executable, str(Path(sb.__file__)), "--serve-upstream", str(port)])
    try:
        up_url = f"http://127.0.0.1:{port}"
        sb.wait_up(up_url + "/v1/models", up)
        runs = []
        for n in (int(x) for x in a.processes.split(",")):
            runs.append(measure(up_url, up.pid, n, a.blocks))
            print({k: v for k, v in runs[-1].items() if k != "raw"}, flush=True)
    finally:
        up.terminate(); up.wait(20)
    res = {"argv": " ".join(sys.argv[1:] if argv is None else argv), "revision": rev, "started": started,
           "machine": f"{len(os.sched_getaffinity(0))} CPU cores shared by the client, the upstream and the proxies, no GPU",
           "load_avg_1min": [round(load0, 2), round(os.getloadavg()[0], 2)], "runs": runs}
    benchrecord.save(a.out, "proxy_pool", res, table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
