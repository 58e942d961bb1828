#!/bin/bash
cat > /workspace/stats.py <<'EOF'
def mean(xs):
    """Arithmetic mean of a non-empty list; ValueError on an empty one."""
    if not xs:
        raise ValueError("mean of an empty list")
    return sum(xs) / len(xs)


def median(xs):
    """Median of a non-empty list (the mean of the two middle values when the length is even); ValueError on an empty one."""
    if not xs:
        raise ValueError("median of an empty list")
    s = sorted(xs)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2
EOF
