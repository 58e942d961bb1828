# SPDX-License-Identifier: Apache-2.0
"""Local harness for this folder only; not part of the proposed pull request.

test_cpu_lora_ops.py imports the ops the way it would inside vLLM's tree
(`from vllm.lora.ops.torch_ops import ...`). To test a patched copy of
lora_ops.py without touching the installed vLLM, point VLLM_LORA_OPS_FILE at
it: the copy is loaded under the module's own name and its six ops replace the
installed ones in `vllm.lora.ops.torch_ops` (and in
`vllm.lora.punica_wrapper.punica_cpu`, which imports them by name), before the
test module is imported. Unset, the installed vLLM is tested as it is.
"""

import importlib.util
import os
import sys

import vllm.lora.ops.torch_ops as torch_ops

OPS_FILE = os.environ.get("VLLM_LORA_OPS_FILE")

if OPS_FILE:
    _name = "vllm.lora.ops.torch_ops.lora_ops"
    _spec = importlib.util.spec_from_file_location(_name, OPS_FILE)
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
    sys.modules[_name] = _module
    torch_ops.lora_ops = _module
    _targets = [torch_ops]
    if "vllm.lora.punica_wrapper.punica_cpu" in sys.modules:
        _targets.append(sys.modules["vllm.lora.punica_wrapper.punica_cpu"])
    for _target in _targets:
        for _op in torch_ops.__all__:
            setattr(_target, _op, getattr(_module, _op))


def pytest_report_header(config):
    return f"lora_ops under test: {torch_ops.bgmv_shrink.__module__} from " + (
        OPS_FILE or sys.modules[torch_ops.bgmv_shrink.__module__].__file__
    )
