import importlib, sys
import pytest

@pytest.fixture
def wordcount():
    "The agent's module, imported inside the test so that a broken file fails tests instead of the run."
    sys.path.insert(0, "/workspace")
    try:
        sys.modules.pop("wordcount", None)
        return importlib.import_module("wordcount")
    finally:
        sys.path.remove("/workspace")
import subprocess

def test_counts(wordcount):
    assert wordcount.count_words("Don't stop, don't!") == {"don't": 2, "stop": 1}

def test_case_and_digits(wordcount):
    assert wordcount.count_words("A a B2 b2 b2") == {"a": 2, "b2": 3}

def test_empty(wordcount):
    assert wordcount.count_words("") == {}

def test_top(wordcount):
    assert wordcount.top_words("b a c b a b", 2) == [("b", 3), ("a", 2)]

def test_ties(wordcount):
    assert wordcount.top_words("z y x", 3) == [("x", 1), ("y", 1), ("z", 1)]

def test_cli(tmp_path):
    f = tmp_path / "t.txt"
    f.write_text("one two two three three three")
    out = subprocess.run(["python3", "/workspace/wordcount.py", str(f), "-n", "2"], capture_output=True, text=True, timeout=30)
    assert out.stdout.split("\n")[:2] == ["three 3", "two 2"]
