#!/bin/bash
# The fix: test 15 before 3 and 5, and include n in the sequence.
cat > /workspace/fizzbuzz.py <<'EOF'
def fizzbuzz(n):
    """The FizzBuzz word for n: "Fizz" for multiples of 3, "Buzz" for 5, "FizzBuzz" for both, else str(n)."""
    if n % 15 == 0:
        return "FizzBuzz"
    if n % 3 == 0:
        return "Fizz"
    if n % 5 == 0:
        return "Buzz"
    return str(n)


def sequence(n):
    """FizzBuzz words for 1..n inclusive."""
    return [fizzbuzz(i) for i in range(1, n + 1)]
EOF
