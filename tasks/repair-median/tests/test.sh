#!/bin/bash
# The hidden tests, run from this pristine folder (never the agent's copy), in isolated mode: the agent's
# workspace is only imported by the tests themselves, so a conftest.py or sitecustomize.py it plants is ignored.
# Reward: 1 when every hidden test passes, else 0.
set -uo pipefail
mkdir -p /logs/verifier
cd /tests
PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python3 -I -m pytest -q -p no:cacheprovider --rootdir=/tests --confcutdir=/tests \
  --junitxml=/logs/verifier/junit.xml /tests > /logs/verifier/pytest.log 2>&1
rc=$?
tail -n 30 /logs/verifier/pytest.log
if [ $rc -gt 1 ]; then echo "pytest could not run the hidden tests (exit $rc)" >&2; exit $rc; fi
python3 -I - <<'EOF'
import xml.etree.ElementTree as ET
s = ET.parse("/logs/verifier/junit.xml").getroot()
s = s if s.tag == "testsuite" else s[0]
n = int(s.get("tests")); bad = int(s.get("failures")) + int(s.get("errors")) + int(s.get("skipped"))
r = 1.0 if n and not bad else 0.0
open("/logs/verifier/reward.txt", "w").write(f"{r:g}\n")
print(f"reward {r:g} ({n - bad}/{n} hidden tests passed)")
EOF
