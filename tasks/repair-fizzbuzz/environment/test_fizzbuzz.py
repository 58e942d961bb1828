from fizzbuzz import fizzbuzz, sequence

def test_fifteen():
    assert fizzbuzz(15) == "FizzBuzz"

def test_sequence_length():
    assert len(sequence(5)) == 5
