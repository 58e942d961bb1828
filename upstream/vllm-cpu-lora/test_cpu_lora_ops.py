# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Tests for the PyTorch LoRA ops that PunicaWrapperCPU runs
(vllm/lora/ops/torch_ops/lora_ops.py), against a per-token reference.

Tolerances are those of the output dtype:
- float32: torch.testing defaults (atol=1e-5, rtol=1.3e-6). The ops and the
  reference only sum in a different order (one GEMM vs one GEMV per token).
- bfloat16: atol=2e-2, rtol=1.6e-2. When a LoRA's tokens are contiguous the
  ops add into the output with one addmm_, which rounds `y + x @ W.T` once,
  where the reference (like the previous implementation) rounds the product
  to bfloat16 and then the sum. The two can differ by half a bfloat16 step of
  the product (0.0156 for products of magnitude 4 to 8, as here) plus one
  step of the sum (2**-7 relative, doubled for ties).
"""

import pytest
import torch

from vllm.lora.layers import LoRAMapping
from vllm.lora.ops.torch_ops import (
    bgmv_expand,
    bgmv_expand_slice,
    bgmv_shrink,
    sgmv_expand,
    sgmv_expand_slice,
    sgmv_shrink,
)
from vllm.lora.punica_wrapper.punica_cpu import PunicaWrapperCPU

HIDDEN_SIZE = 576
OUTPUT_SIZE = 384
RANK = 32
SCALING = 0.5
NUM_LORAS = [1, 3, 9]
DTYPES = [torch.float32, torch.bfloat16]
BATCHES = ["prefill", "prefill_interleaved", "decode"]
TOLERANCES = {
    torch.float32: dict(atol=1e-5, rtol=1.3e-6),
    torch.bfloat16: dict(atol=2e-2, rtol=1.6e-2),
}


@pytest.fixture(autouse=True)
def cleanup_fixture():
    """Override conftest's cleanup_fixture: not needed for op tests."""
    yield


@pytest.fixture(autouse=True)
def dynamo_reset():
    """Override conftest's dynamo_reset: not needed for op tests."""
    yield


def make_batch(
    batch: str, num_loras: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """(seq_lens, lora index per sequence) with the base model (-1) and every
    LoRA in the batch.

    prefill: one sequence per LoRA, so each LoRA's tokens are contiguous.
    prefill_interleaved: two sequences per LoRA in random order.
    decode: 4 * (num_loras + 1) single tokens in random order.
    """
    lora_ids = torch.arange(-1, num_loras)
    if batch == "prefill":
        lora_indices = lora_ids[torch.randperm(num_loras + 1, generator=generator)]
        seq_lens = torch.randint(1, 64, (num_loras + 1,), generator=generator)
    elif batch == "prefill_interleaved":
        lora_indices = lora_ids.repeat(2)
        # No two neighbours share a LoRA, so every LoRA has two separate runs.
        while (lora_indices[1:] == lora_indices[:-1]).any():
            lora_indices = lora_indices[
                torch.randperm(len(lora_indices), generator=generator)
            ]
        seq_lens = torch.randint(1, 32, (len(lora_indices),), generator=generator)
    else:
        assert batch == "decode"
        lora_indices = lora_ids.repeat(4)
        lora_indices = lora_indices[
            torch.randperm(len(lora_indices), generator=generator)
        ]
        seq_lens = torch.ones_like(lora_indices)
    return seq_lens, lora_indices


def sgmv_args(seq_lens: torch.Tensor, lora_indices: torch.Tensor) -> tuple:
    """The metadata arguments of the sgmv_* ops, as prefill_metadata gives them."""
    seq_start_locs = torch.cumsum(seq_lens, dim=0) - seq_lens
    return (
        seq_start_locs,
        seq_lens,
        lora_indices,
        len(seq_lens),
        int(seq_lens.max()),
        int(seq_lens.sum()),
    )


def make_lora_weights(
    num_slots: int,
    out_features: int,
    in_features: int,
    dtype: torch.dtype,
    generator: torch.Generator,
    free_last_slot: bool,
) -> torch.Tensor:
    """Stacked LoRA weights, (num_slots, 1, out, in) as the LoRA layers keep
    them. A free slot holds zeros, as after the layer's creation."""
    weights = torch.randn(num_slots, 1, out_features, in_features, generator=generator)
    weights /= in_features**0.5
    if free_last_slot:
        weights[-1] = 0
    return weights.to(dtype)


def ref_lora_op(
    inputs: torch.Tensor,
    lora_weights: torch.Tensor,
    output: torch.Tensor,
    token_lora_indices: torch.Tensor,
    columns: slice,
    add_inputs: bool,
    scaling: float = 1.0,
) -> None:
    """output[t, columns] (+)= scaling * inputs[t] @ lora_weights[idx_t].T,
    one token at a time, in the output dtype. Tokens with index -1 get no
    LoRA: their row is left as is when adding and set to zero otherwise.
    Weights with more output features than columns are cut to fit."""
    num_columns = output[0, columns].numel()
    lora_weights = lora_weights.squeeze(dim=1)[:, :num_columns].to(output.dtype)
    for token, lora_idx in enumerate(token_lora_indices.tolist()):
        if lora_idx < 0:
            delta = torch.zeros_like(output[token, columns])
        else:
            x = inputs[token].to(output.dtype)
            delta = scaling * (x @ lora_weights[lora_idx].T)
        if add_inputs:
            output[token, columns] += delta
        else:
            output[token, columns] = delta


def run_shrink(path, inputs, lora_weights, output, seq_lens, lora_indices):
    if path == "sgmv":
        sgmv_shrink(
            inputs,
            lora_weights,
            output,
            *sgmv_args(seq_lens, lora_indices),
            SCALING,
        )
    else:
        token_lora_indices = torch.repeat_interleave(lora_indices, seq_lens)
        bgmv_shrink(inputs, lora_weights, output, token_lora_indices, SCALING)


def run_expand(path, inputs, lora_weights, output, seq_lens, lora_indices, add):
    if path == "sgmv":
        sgmv_expand(
            inputs,
            lora_weights,
            output,
            *sgmv_args(seq_lens, lora_indices),
            add_inputs=add,
        )
    else:
        token_lora_indices = torch.repeat_interleave(lora_indices, seq_lens)
        bgmv_expand(inputs, lora_weights, output, token_lora_indices, add_inputs=add)


def run_expand_slice(
    path, inputs, lora_weights, output, seq_lens, lora_indices, offset, add
):
    size = lora_weights.size(-2)
    if path == "sgmv":
        sgmv_expand_slice(
            inputs,
            lora_weights,
            output,
            *sgmv_args(seq_lens, lora_indices),
            offset,
            size,
            add_inputs=add,
        )
    else:
        token_lora_indices = torch.repeat_interleave(lora_indices, seq_lens)
        bgmv_expand_slice(
            inputs,
            lora_weights,
            output,
            token_lora_indices,
            offset,
            size,
            add_inputs=add,
        )


@pytest.mark.parametrize("path", ["sgmv", "bgmv"])
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("num_loras", NUM_LORAS)
@pytest.mark.parametrize("nslices", [1, 2, 3])
@pytest.mark.parametrize("dtype", DTYPES)
def test_shrink(path, batch, num_loras, nslices, dtype):
    g = torch.Generator().manual_seed(0)
    seq_lens, lora_indices = make_batch(batch, num_loras, g)
    num_tokens = int(seq_lens.sum())
    token_lora_indices = torch.repeat_interleave(lora_indices, seq_lens)
    inputs = torch.randn(num_tokens, HIDDEN_SIZE, generator=g).to(dtype)
    # Like add_lora_linear: a float32 buffer per slice, whatever the model dtype.
    # Shrink overwrites, so start from garbage rather than zeros.
    output = torch.randn(nslices, num_tokens, RANK, generator=g)
    ref_output = output.clone()

    for i in range(nslices):
        lora_a = make_lora_weights(
            num_loras + 1, RANK, HIDDEN_SIZE, dtype, g, free_last_slot=True
        )
        run_shrink(path, inputs, lora_a, output[i], seq_lens, lora_indices)
        ref_lora_op(
            inputs,
            lora_a,
            ref_output[i],
            token_lora_indices,
            slice(0, RANK),
            add_inputs=False,
            scaling=SCALING,
        )

    torch.testing.assert_close(output, ref_output, **TOLERANCES[output.dtype])


@pytest.mark.parametrize("path", ["sgmv", "bgmv"])
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("num_loras", NUM_LORAS)
@pytest.mark.parametrize("add_inputs", [True, False])
@pytest.mark.parametrize("padding", [-3, 0, 5])
@pytest.mark.parametrize("dtype", DTYPES)
def test_expand(path, batch, num_loras, add_inputs, padding, dtype):
    """padding: output columns minus LoRA output features (the adapter and
    the model may pad differently); only the common columns are written."""
    g = torch.Generator().manual_seed(1)
    seq_lens, lora_indices = make_batch(batch, num_loras, g)
    num_tokens = int(seq_lens.sum())
    token_lora_indices = torch.repeat_interleave(lora_indices, seq_lens)
    inputs = torch.randn(num_tokens, RANK, generator=g)
    lora_b = make_lora_weights(
        num_loras + 1, OUTPUT_SIZE, RANK, dtype, g, free_last_slot=True
    )
    output = torch.randn(num_tokens, OUTPUT_SIZE + padding, generator=g).to(dtype)
    ref_output = output.clone()

    run_expand(path, inputs, lora_b, output, seq_lens, lora_indices, add_inputs)
    common_len = min(OUTPUT_SIZE, OUTPUT_SIZE + padding)
    ref_lora_op(
        inputs,
        lora_b,
        ref_output,
        token_lora_indices,
        slice(0, common_len),
        add_inputs,
    )

    torch.testing.assert_close(output, ref_output, **TOLERANCES[dtype])
    # Columns past the LoRA's output are never written.
    assert torch.equal(output[:, common_len:], ref_output[:, common_len:])


@pytest.mark.parametrize("path", ["sgmv", "bgmv"])
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("num_loras", NUM_LORAS)
@pytest.mark.parametrize("nslices", [1, 2, 3])
@pytest.mark.parametrize("add_inputs", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_expand_slice(path, batch, num_loras, nslices, add_inputs, dtype):
    g = torch.Generator().manual_seed(2)
    seq_lens, lora_indices = make_batch(batch, num_loras, g)
    num_tokens = int(seq_lens.sum())
    token_lora_indices = torch.repeat_interleave(lora_indices, seq_lens)
    # Slices of different widths, like qkv_proj with GQA.
    slice_sizes = [OUTPUT_SIZE, OUTPUT_SIZE // 2, OUTPUT_SIZE // 2][:nslices]
    output = torch.randn(num_tokens, sum(slice_sizes), generator=g).to(dtype)
    ref_output = output.clone()

    offset = 0
    for size in slice_sizes:
        inputs = torch.randn(num_tokens, RANK, generator=g)
        lora_b = make_lora_weights(
            num_loras + 1, size, RANK, dtype, g, free_last_slot=True
        )
        run_expand_slice(
            path, inputs, lora_b, output, seq_lens, lora_indices, offset, add_inputs
        )
        ref_lora_op(
            inputs,
            lora_b,
            ref_output,
            token_lora_indices,
            slice(offset, offset + size),
            add_inputs,
        )
        offset += size

    torch.testing.assert_close(output, ref_output, **TOLERANCES[dtype])


@pytest.mark.parametrize("path", ["sgmv", "bgmv"])
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("num_loras", NUM_LORAS)
@pytest.mark.parametrize("op", ["shrink", "expand", "expand_overwrite", "expand_slice"])
def test_no_lora_rows_with_all_slots_in_use(path, batch, num_loras, op):
    """Rows with LoRA index -1 must not pick up the last slot's LoRA
    (lora_weights[-1]) when every slot holds an adapter, or when a
    deactivated adapter's weights are still in the last slot."""
    g = torch.Generator().manual_seed(3)
    seq_lens, lora_indices = make_batch(batch, num_loras, g)
    num_tokens = int(seq_lens.sum())
    token_lora_indices = torch.repeat_interleave(lora_indices, seq_lens)
    no_lora = token_lora_indices == -1
    offset = 7
    if op == "shrink":
        inputs = torch.randn(num_tokens, HIDDEN_SIZE, generator=g)
        weights = make_lora_weights(
            num_loras, RANK, HIDDEN_SIZE, torch.float32, g, free_last_slot=False
        )
        output = torch.randn(num_tokens, RANK, generator=g)
        columns, add_inputs, scaling = slice(0, RANK), False, SCALING
    else:
        inputs = torch.randn(num_tokens, RANK, generator=g)
        weights = make_lora_weights(
            num_loras, OUTPUT_SIZE, RANK, torch.float32, g, free_last_slot=False
        )
        output = torch.randn(num_tokens, OUTPUT_SIZE + offset, generator=g)
        add_inputs, scaling = op != "expand_overwrite", 1.0
        start = offset if op == "expand_slice" else 0
        columns = slice(start, start + OUTPUT_SIZE)
    ref_output = output.clone()

    if op == "shrink":
        run_shrink(path, inputs, weights, output, seq_lens, lora_indices)
    elif op == "expand_slice":
        run_expand_slice(
            path, inputs, weights, output, seq_lens, lora_indices, offset, True
        )
    else:
        run_expand(path, inputs, weights, output, seq_lens, lora_indices, add_inputs)
    ref_lora_op(
        inputs, weights, ref_output, token_lora_indices, columns, add_inputs, scaling
    )

    # Exact: no-LoRA rows are either untouched or zeroed, never computed.
    assert torch.equal(output[no_lora], ref_output[no_lora])
    torch.testing.assert_close(output[~no_lora], ref_output[~no_lora])


@pytest.mark.parametrize("num_loras", NUM_LORAS)
@pytest.mark.parametrize("batch", BATCHES)
def test_punica_wrapper_cpu_base_rows_unchanged(num_loras, batch):
    """add_lora_linear through PunicaWrapperCPU with every slot in use:
    base-model tokens keep the base layer's output."""
    g = torch.Generator().manual_seed(4)
    seq_lens, lora_indices = make_batch(batch, num_loras, g)
    token_lora_indices = torch.repeat_interleave(lora_indices, seq_lens)
    num_tokens = len(token_lora_indices)
    # LoRA ids 1..num_loras live in slots 0..num_loras-1; id 0 is no LoRA.
    lora_ids = tuple((token_lora_indices + 1).tolist())
    wrapper = PunicaWrapperCPU(num_tokens, num_tokens, device="cpu")
    wrapper.update_metadata(
        LoRAMapping(lora_ids, lora_ids, is_prefill=True),
        list(range(1, num_loras + 1)),
        max_loras=num_loras,
        vocab_size=1,
    )
    output_slices = (OUTPUT_SIZE, OUTPUT_SIZE // 2, OUTPUT_SIZE // 2)
    lora_a = tuple(
        make_lora_weights(num_loras, RANK, HIDDEN_SIZE, torch.float32, g, False)
        for _ in output_slices
    )
    lora_b = tuple(
        make_lora_weights(num_loras, size, RANK, torch.float32, g, False)
        for size in output_slices
    )
    x = torch.randn(num_tokens, HIDDEN_SIZE, generator=g)
    y = torch.randn(num_tokens, sum(output_slices), generator=g)
    base_output = y.clone()

    wrapper.add_lora_linear(y, x, lora_a, lora_b, 1.0, output_slices)

    no_lora = token_lora_indices == -1
    assert torch.equal(y[no_lora], base_output[no_lora])
    # LoRA rows: y + (x @ A.T) @ B.T per slice.
    expected = base_output.clone()
    offset = 0
    for a, b, size in zip(lora_a, lora_b, output_slices, strict=True):
        buffer = torch.zeros(num_tokens, RANK)
        ref_lora_op(x, a, buffer, token_lora_indices, slice(0, RANK), False)
        columns = slice(offset, offset + size)
        ref_lora_op(buffer, b, expected, token_lora_indices, columns, True)
        offset += size
    torch.testing.assert_close(y, expected)


def test_bgmv_expand_broadcast_single_input_row():
    """A single input row with more output rows is broadcast to every row
    (a layout PunicaWrapperCPU never passes; it keeps its previous behaviour)."""
    g = torch.Generator().manual_seed(5)
    lora_b = make_lora_weights(2, OUTPUT_SIZE, RANK, torch.float32, g, True)
    inputs = torch.randn(1, RANK, generator=g)
    output = torch.randn(4, OUTPUT_SIZE, generator=g)
    expected = output + inputs @ lora_b[0, 0].T

    bgmv_expand(inputs, lora_b, output, torch.zeros(4, dtype=torch.long))

    torch.testing.assert_close(output, expected)
