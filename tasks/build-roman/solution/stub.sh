#!/bin/bash
# The interface without an implementation.
cat > /workspace/roman.py <<'EOF'
def to_roman(n):
    raise NotImplementedError


def from_roman(s):
    raise NotImplementedError
EOF
