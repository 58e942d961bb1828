def fizzbuzz(n):
    """The FizzBuzz word for n: "Fizz" for multiples of 3, "Buzz" for 5, "FizzBuzz" for both, else str(n)."""
    if n % 3 == 0:
        return "Fizz"
    if n % 5 == 0:
        return "Buzz"
    if n % 15 == 0:
        return "FizzBuzz"
    return str(n)


def sequence(n):
    """FizzBuzz words for 1..n inclusive."""
    return [fizzbuzz(i) for i in range(1, n)]
