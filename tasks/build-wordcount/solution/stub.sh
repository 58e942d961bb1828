#!/bin/bash
# The interface without an implementation.
cat > /workspace/wordcount.py <<'EOF'
def count_words(text):
    raise NotImplementedError


def top_words(text, n):
    raise NotImplementedError


if __name__ == '__main__':
    raise SystemExit('not implemented')
EOF
