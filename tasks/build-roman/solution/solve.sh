#!/bin/bash
cat > /workspace/roman.py <<'EOF'
"""Roman numerals for 1..3999."""
import re

_VALUES = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
           (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
_VALID = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")


def to_roman(n):
    """The Roman numeral of an int in 1..3999; ValueError otherwise."""
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 3999:
        raise ValueError(f"not representable: {n!r}")
    out = []
    for v, s in _VALUES:
        while n >= v:
            out.append(s)
            n -= v
    return "".join(out)


def from_roman(s):
    """The int a well-formed (upper-case, canonical) Roman numeral stands for; ValueError otherwise."""
    if not isinstance(s, str) or not s or not _VALID.match(s):
        raise ValueError(f"not a Roman numeral: {s!r}")
    total, i = 0, 0
    for v, sym in _VALUES:
        while s.startswith(sym, i):
            total += v
            i += len(sym)
    return total
EOF
