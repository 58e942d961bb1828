"""Rollouts on a Ray cluster (nbs/08a_cluster.ipynb).

Fast: the Ray executor against a Ray instance in this process (`ray.init(num_cpus=2)`), with stand-in rollout functions
(no server, no harness): at most what the cluster places in flight, the record coming back as the object itself, a
task whose worker dies or that runs past its timeout reported as an errored rollout, a job's own exception kept, the
node check, an address nobody answers at. Slow: a real two-node cluster on this machine running real rollouts of pi
with the tiny model through the guard, then its worker node killed part-way.
"""
import http.server, json, os, signal, subprocess, sys, tempfile, threading, time, shutil
import pytest

ray = pytest.importorskip("ray")
import ray.cloudpickle
from harness_adapters import rollouts
from harness_adapters.cluster import (ClusterUnreachable, NodeCheckFailed, RAY_MARGIN_S, RayExecutor,
                                      rollout_executor)
from harness_adapters.config import get_preset
from harness_adapters.rollouts import (Rollout, TurnTokens, measure_cli, rollout_from_dict, rollout_to_dict, run_many,
                                       run_rollout, start_proxy, submit_rollout)
from harness_adapters.safeagents import admin_token
from harness_adapters.sandbox import processes_matching
from harness_adapters.serving import free_port
from harness_adapters.tasks import find_task, load_task, write_task

# the stand-ins below travel to Ray's workers by value: a worker need not import this file
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])



@pytest.fixture(scope="module")
def local_ray():
    "A Ray instance started by this process: two CPUs, no dashboard."
    if ray.is_initialized(): ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    "A task folder of this machine only (a node finds it because it travels with the job)."
    d = write_task(tmp_path_factory.mktemp("tasks") / "make-hi", {"id": "make-hi", "family": "build", "difficulty": "easy", "split": "train"},
                   "Create the file made.txt containing the word hi.", {"README": "empty project\n"},
                   {"test.sh": "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n"}, {"solve.sh": "#!/bin/bash\necho hi > made.txt\n"})
    return load_task(d)


def stand_in_rollout(task, harness, proxy_url, model, *, group_id=None, token=None, sleep_s=0.0, **kw):
    "Stands in for `run_rollout` (no server, no harness): a record made of its arguments and of the task folder it found."
    time.sleep(sleep_s)
    return Rollout(task.id, group_id or task.id, harness, model, 3, rollout_id=f"{group_id}-r", verifier_reward=1.0, reward=1.0,
                   tool_calls=2, final_text=(task.path / "instruction.md").read_text(), family=task.family,
                   difficulty=task.difficulty, turns=[TurnTokens([1, 2], [3], [-0.5])],
                   trajectory={"steps": [{"source": "user", "message": token}]})


def stand_in_rollout_that_dies(*a, **kw):
    "Stands in for a rollout whose node goes away under it: its worker process ends at once."
    os._exit(1)


def stand_in_rollout_with_a_bug(*a, **kw):
    "Stands in for a rollout function that raises (a bug, not a lost node)."
    raise KeyError("a bug in the job")


def test_no_more_in_flight_than_the_cluster_places_and_the_record_comes_back_itself(local_ray, task, monkeypatch):
    monkeypatch.setattr(rollouts, "run_rollout", stand_in_rollout)
    with RayExecutor(workers=8, timeout_s=120) as ex:
        assert (ex.capacity(), ex.proxy_host) == (2, "127.0.0.1")       # two CPUs, one each; every node on this machine
        futs = [submit_rollout(ex, task, "pi", "http://127.0.0.1:9", "tiny", group_id="g", sleep_s=1.0) for _ in range(6)]
        rs = [f.result(timeout=300) for f in futs]
        assert (ex.peak, ex.in_flight, sum(ex.placed.values())) == (2, 0, 6)   # 8 workers, but 2 in flight: what fits
    here = stand_in_rollout(task, "pi", "http://127.0.0.1:9", "tiny", group_id="g", token=admin_token())
    assert rs == [here] * 6                                  # the same record as here: tokens, trajectory, the proxy's token
    assert rollout_from_dict(json.loads(json.dumps(rollout_to_dict(rs[0])))) == rollout_from_dict(rollout_to_dict(here))


def test_a_task_whose_worker_dies_or_that_runs_too_long_is_an_errored_rollout(local_ray, task, monkeypatch):
    monkeypatch.setattr(rollouts, "run_rollout", stand_in_rollout_that_dies)
    with RayExecutor(workers=2, timeout_s=120) as ex:
        r = submit_rollout(ex, task, "pi", "http://127.0.0.1:9", "tiny", group_id="g", model_version=4).result(timeout=300)
    assert (r.errored, r.reward, r.task_id, r.group_id, r.model_version) == (True, None, "make-hi", "g", 4)
    assert r.error.startswith("RolloutLost: its Ray task was lost (WorkerCrashedError)"), r.error
    monkeypatch.setattr(rollouts, "run_rollout", stand_in_rollout)
    t0 = time.monotonic()
    with RayExecutor(workers=1, timeout_s=5) as ex:               # never a hang: a job with no result in time is lost
        r = submit_rollout(ex, task, "pi", "http://127.0.0.1:9", "tiny", sleep_s=120).result(timeout=120)
    assert r.errored and r.error.startswith("RolloutLost: no result from its Ray task in 5 s"), r.error
    assert time.monotonic() - t0 < 60


def test_a_jobs_own_exception_stays_the_callers(local_ray, task, monkeypatch):
    monkeypatch.setattr(rollouts, "run_rollout", stand_in_rollout_with_a_bug)
    with RayExecutor(workers=1, timeout_s=120) as ex:
        f = submit_rollout(ex, task, "pi", "http://127.0.0.1:9", "tiny")
        assert isinstance(f.exception(timeout=300), KeyError) and "a bug in the job" in str(f.exception())


def test_node_check_names_what_a_node_lacks(local_ray):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    closed = f"http://127.0.0.1:{free_port()}"
    try:
        with RayExecutor(workers=1, timeout_s=120) as ex:
            ex.check([], [f"http://127.0.0.1:{srv.server_port}"])                # it answers (with an error: it answers)
            with pytest.raises(NodeCheckFailed) as e: ex.check([], [closed])
            assert f"{closed} does not answer from here (ConnectError" in str(e.value), str(e.value)
            assert f"node {ex.nodes()[0]['NodeManagerAddress']} ({ex.nodes()[0]['NodeID'][:8]})" in str(e.value), str(e.value)
    finally: srv.shutdown()
    with pytest.raises(NodeCheckFailed, match="can hold a rollout asking 1 CPUs and 1000000000 MB"):
        RayExecutor(memory_mb=10**9)                                           # no node could ever place one


def test_an_address_nobody_answers_at_stops_before_anything_starts(tmp_path, capsys):
    port = free_port()
    t0 = time.monotonic()
    with pytest.raises(ClusterUnreachable, match=f"no Ray cluster answers at 127.0.0.1:{port}"):
        rollout_executor(f"ray:127.0.0.1:{port}")
    rc = measure_cli(["--tasks", "tiny-arith-easy-02", "--rollouts", f"ray:127.0.0.1:{port}", "--server", "http://127.0.0.1:9",
                      "--out", str(tmp_path / "rates.json")])
    assert rc == 1 and f"no Ray cluster answers at 127.0.0.1:{port}" in capsys.readouterr().err
    assert time.monotonic() - t0 < 30 and not (tmp_path / "rates.json").exists()
    with pytest.raises(SystemExit):
        measure_cli(["--rollouts", "slurm", "--out", str(tmp_path / "rates.json")])
    assert "rollouts must be local, ray or ray:ADDRESS" in capsys.readouterr().err


# -- a real cluster ---------------------------------------------------------------------------------------------------

RAY = [sys.executable, "-m", "ray.scripts.scripts"]


@pytest.fixture
def two_nodes():
    """A Ray cluster of two nodes on this machine, one CPU each: the head (resource `node_a`) at 127.0.0.1 and a worker
    (`node_b`) at 127.0.0.2 (its own address, so that this process, the driver, joins through the head's raylet)."""
    if ray.is_initialized(): ray.shutdown()                        # the instance of the tests above
    tmp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")               # short: Ray's sockets live under it
    port = free_port()
    start = lambda *a: subprocess.run(RAY + ["start", *a, "--disable-usage-stats"], check=True, capture_output=True, text=True, timeout=600)
    try:
        start("--head", "--node-ip-address", "127.0.0.1", "--port", str(port), "--num-cpus", "1", "--resources", '{"node_a": 1}',
              "--include-dashboard=false", "--temp-dir", tmp)
        start("--address", f"127.0.0.1:{port}", "--node-ip-address", "127.0.0.2", "--num-cpus", "1", "--resources", '{"node_b": 1}')
        yield f"127.0.0.1:{port}"
    finally:
        if ray.is_initialized(): ray.shutdown()
        for sig in (signal.SIGTERM, signal.SIGKILL):                 # this cluster's processes only (their command lines name `tmp`)
            for pid in processes_matching(tmp):
                try: os.kill(pid, sig)
                except ProcessLookupError: pass
            time.sleep(3)
        shutil.rmtree(tmp, ignore_errors=True)


def shape(r: Rollout) -> dict:
    "The record's fields and the type of each value (what a reader of rollout.json and trajectory.json relies on)."
    return {**{k: type(v).__name__ for k, v in rollout_to_dict(r).items()}, "trajectory": type(r.trajectory).__name__,
            "has_turns": bool(r.turns)}


@pytest.mark.slow
def test_two_nodes_run_real_rollouts_and_a_lost_node_is_errored_rollouts(two_nodes, server):
    preset, task = get_preset("tiny", agent_steps=3, max_tokens=96), find_task("tiny-arith-easy-02")
    px = start_proxy(server.url, preset)                               # the guard's packs: through the guard
    ray.init(address=two_nodes, _node_ip_address="127.0.0.1", logging_level="WARNING")
    names = {n["NodeID"]: next(k for k in ("node_a", "node_b") if k in n["Resources"]) for n in ray.nodes() if n["Alive"]}
    try:
        with RayExecutor(two_nodes, workers=8, timeout_s=preset.session_timeout_s + RAY_MARGIN_S) as ex:
            assert ex.capacity() == 2 and ex.proxy_host == "127.0.0.1" and sorted(names.values()) == ["node_a", "node_b"]
            # 1. eight rollouts, spread over both nodes, each record of the shape a rollout here has
            rs = run_many([(task, "pi", preset.name)] * 8, px.url, executor=ex, progress=False, preset=preset)
            assert not [r.error for r in rs if r.errored] and ex.peak == 2
            placed = {names[n]: k for n, k in ex.placed.items()}
            assert placed.get("node_a", 0) > 0 and placed.get("node_b", 0) > 0 and sum(placed.values()) == 8, placed
            here = run_rollout(task, "pi", px.url, preset.name, preset=preset)
            assert not here.errored, here.error
            assert all(shape(r) == shape(here) for r in rs), [shape(r) for r in rs if shape(r) != shape(here)]
            # 2. the worker node killed while a rollout runs there: its rollout errored, saying so; none lost
            futs = [submit_rollout(ex, task, "pi", px.url, preset.name, preset=preset, group_id="lose") for _ in range(4)]
            t0 = time.monotonic()
            while len([s for s in list(px.state.steps) if s.startswith("lose.")]) < 2:   # both nodes' sessions have called the model
                assert time.monotonic() - t0 < 600, "the two first rollouts never reached the model"
                time.sleep(0.2)
            node_b = next(n for n, k in names.items() if k == "node_b")
            raylet = processes_matching(f"--node_id={node_b}")
            assert raylet, "node_b's raylet"
            # the node lost as a machine is: its raylet and its worker processes at once (a worker whose raylet alone
            # died can still finish its task and hand its small result straight back before it notices)
            for pid in set(raylet) | set(processes_matching("=127.0.0.2")): os.kill(pid, signal.SIGKILL)
            lost_at = time.monotonic()
            rs2 = [f.result(timeout=ex.timeout_s + 300) for f in futs]
            assert len(rs2) == 4 and {r.group_id for r in rs2} == {"lose"}                  # none lost: each came back
            errored = [r for r in rs2 if r.errored]
            assert all(r.error.startswith("RolloutLost: its Ray task was lost (") for r in errored), [r.error for r in rs2]
            print(f"node_b killed: {len(errored)} rollout lost ({errored[0].error[:160] if errored else 'none: it had finished'}), "
                  f"{4 - len(errored)} finished; all back {time.monotonic() - lost_at:.0f} s after the kill; "
                  f"placed {dict(placed)} then {dict(ex.placed)}")
    finally:
        px.stop()
