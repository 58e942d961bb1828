import pytest
from stats import mean, median

def test_median_even():
    assert median([1, 2, 3, 4]) == 2.5

def test_mean_empty():
    with pytest.raises(ValueError):
        mean([])
