import importlib, sys
import pytest

@pytest.fixture
def fizzbuzz():
    "The agent's module, imported inside the test so that a broken file fails tests instead of the run."
    sys.path.insert(0, "/workspace")
    try:
        sys.modules.pop("fizzbuzz", None)
        return importlib.import_module("fizzbuzz")
    finally:
        sys.path.remove("/workspace")
@pytest.mark.parametrize("n,word", [(1, "1"), (3, "Fizz"), (5, "Buzz"), (9, "Fizz"), (10, "Buzz"),
                                    (15, "FizzBuzz"), (30, "FizzBuzz"), (98, "98")])
def test_word(fizzbuzz, n, word):
    assert fizzbuzz.fizzbuzz(n) == word

def test_sequence(fizzbuzz):
    s = fizzbuzz.sequence(15)
    assert len(s) == 15 and s[0] == "1" and s[-1] == "FizzBuzz"
