import importlib, sys
import pytest

@pytest.fixture
def roman():
    "The agent's module, imported inside the test so that a broken file fails tests instead of the run."
    sys.path.insert(0, "/workspace")
    try:
        sys.modules.pop("roman", None)
        return importlib.import_module("roman")
    finally:
        sys.path.remove("/workspace")
@pytest.mark.parametrize("n,s", [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (90, "XC"),
                                 (400, "CD"), (1994, "MCMXCIV"), (2024, "MMXXIV"), (3999, "MMMCMXCIX")])
def test_to_roman(roman, n, s):
    assert roman.to_roman(n) == s

@pytest.mark.parametrize("n", [0, -1, 4000, 2.5, "5"])
def test_to_roman_rejects(roman, n):
    with pytest.raises(ValueError):
        roman.to_roman(n)

def test_round_trip(roman):
    assert all(roman.from_roman(roman.to_roman(n)) == n for n in range(1, 4000))

@pytest.mark.parametrize("s", ["", "IIII", "IC", "mcm", "VX", "ABC"])
def test_from_roman_rejects(roman, s):
    with pytest.raises(ValueError):
        roman.from_roman(s)
