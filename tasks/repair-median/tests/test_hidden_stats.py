import importlib, sys
import pytest

@pytest.fixture
def stats():
    "The agent's module, imported inside the test so that a broken file fails tests instead of the run."
    sys.path.insert(0, "/workspace")
    try:
        sys.modules.pop("stats", None)
        return importlib.import_module("stats")
    finally:
        sys.path.remove("/workspace")
@pytest.mark.parametrize("xs,m", [([3], 3), ([3, 1, 2], 2), ([4, 1, 3, 2], 2.5), ([1.5, 0.5], 1.0), ([5, 5, 1, 9], 5)])
def test_median(stats, xs, m):
    assert stats.median(xs) == m

def test_mean(stats):
    assert stats.mean([1, 2, 3, 6]) == 3

@pytest.mark.parametrize("f", ["mean", "median"])
def test_empty(stats, f):
    with pytest.raises(ValueError):
        getattr(stats, f)([])
