def mean(xs):
    """Arithmetic mean of a non-empty list; ValueError on an empty one."""
    return sum(xs) / len(xs)


def median(xs):
    """Median of a non-empty list (the mean of the two middle values when the length is even); ValueError on an empty one."""
    if not xs:
        raise ValueError("median of an empty list")
    s = sorted(xs)
    return s[len(s) // 2]
