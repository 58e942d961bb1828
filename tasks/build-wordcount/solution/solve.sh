#!/bin/bash
cat > /workspace/wordcount.py <<'EOF'
"""Count words in text: a library and a command line."""
import re, sys, argparse
from collections import Counter

WORD = re.compile(r"[a-z0-9']+")


def count_words(text):
    """Lower-cased word counts; a word is a run of letters, digits and apostrophes."""
    return dict(Counter(WORD.findall(text.lower())))


def top_words(text, n):
    """The n most frequent words as (word, count), most frequent first, ties alphabetical."""
    return sorted(count_words(text).items(), key=lambda kv: (-kv[1], kv[0]))[:n]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("-n", type=int, default=10)
    a = ap.parse_args(argv)
    for w, c in top_words(open(a.file).read(), a.n):
        print(f"{w} {c}")


if __name__ == "__main__":
    main()
EOF
