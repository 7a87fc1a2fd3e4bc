"""``torch.tensor(data)`` from odd data, against torch (issue 13): integers past int64 and past
the target dtype (``Overflow when unpacking long long``, ``value cannot be converted to type int8
without overflow``), ragged nesting, None, strings, bytes, dicts, mixed types, NumPy arrays of
unsupported dtypes (``can't convert np.ndarray of type numpy.object_...``), NumPy scalars,
tensors inside lists; for every target dtype."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ._oracle import assert_as_torch
from ._torch import require as require_torch

DATA = [
    "[2**63]",
    "[2**63 - 1]",
    "[-2**63]",
    "[-2**63 - 1]",
    "2**64",
    "[2**70]",
    "[1, 2**63]",
    "[1.5, 2**63]",
    "[3000]",
    "[-129]",
    "[255]",
    "[256]",
    "[-255]",
    "[-256]",
    "[1.5]",
    "[127.9]",
    "[-1.5]",
    "[10**400]",
    "[[1, 2], [3]]",
    "[[1, 2], 3]",
    "[1, [2, 3]]",
    "[[1], []]",
    "[[], []]",
    "[]",
    "[[]]",
    "()",
    "[[[1]], [2]]",
    "[1, None]",
    "None",
    "[None]",
    "'a'",
    "['a']",
    "[1, 'a']",
    "['a', 1]",
    "b'ab'",
    "[[1, 2], [3, None]]",
    "[1, 2.5, True]",
    "[True, False]",
    "[True, 2]",
    "[1+2j, 1]",
    "[[1, 2], [3, 4.5]]",
    "(1, 2)",
    "((1, 2), [3, 4])",
    "range(3)",
    "[range(2), range(2)]",
    "{1: 2}",
    "{1, 2}",
    "object()",
    "float('nan')",
    "[float('inf')]",
    "[1e39]",
    "np.array([1, 'a'], dtype=object)",
    "np.array(['a', 'b'])",
    "np.array([b'a'])",
    "np.array([1.5], dtype=np.longdouble)",
    "np.array(['2020-01-01'], dtype='datetime64[D]')",
    "np.float64(1.5)",
    "np.int32(3)",
    "np.int16(5)",
    "np.bool_(True)",
    "np.float16(1)",
    "np.array(3)",
    "[np.float32(1.5), 2]",
    "[np.int64(1), np.float64(2)]",
    "[np.int8(1), np.uint8(2)]",
    "[np.float16(1), 2]",
    "[np.int64(300)]",
    "np.array([1, 2])[None, :, None]",
    "np.array([300])",
    "np.array([np.nan])",
    "[t.tensor(1.), t.tensor(2.)]",
    "[t.tensor([1., 2.]), t.tensor([3., 4.])]",
    "[t.tensor([1., 2.]), t.tensor([3.])]",
    "[t.tensor(1), 2.5]",
    "[[t.tensor(1.), 2.]]",
    "[np.array([1, 2]), np.array([3, 4])]",
    "[np.array([1, 2]), [3, 4]]",
    "[[1, 2], np.array([3])]",
    "(np.array([1, 2]), np.array([3, 4]))",
    "[[[1]], [[2]]]",
    "[[1, 2], (3, 4)]",
    "[0.1, 1 / 3]",
    "0.1",
    "[[0.1 + 0.7j]]",
    "[1e-310]",  # literals never round through float32
]
DTYPES = [
    None,
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "float64",
    "float32",
    "float16",
    "bool",
    "complex64",
    "complex128",
]


@pytest.mark.parametrize("data,dtype", list(itertools.product(DATA, DTYPES)))
def test_tensor_from_data_as_torch(data, dtype):
    torch = require_torch()

    def program(t):
        d = eval(data, {"np": np, "t": t})
        r = t.tensor(d) if dtype is None else t.tensor(d, dtype=getattr(t, dtype))
        return r

    assert_as_torch(torch, program, rtol=0, atol=0)


@pytest.mark.parametrize(
    "data",
    [
        "[1.5, 2.0]",
        "[[1, 2], [3, 4]]",
        "[True]",
        "[2**63]",
        "[[1], []]",
        "None",
        "np.array([1, 'a'], dtype=object)",
        "[np.int32(1)]",
    ],
)
def test_as_tensor_follows_the_same_rules(data):
    torch = require_torch()
    assert_as_torch(torch, lambda t: t.as_tensor(eval(data, {"np": np, "t": t})), rtol=0, atol=0)


@pytest.mark.parametrize(
    "expr",
    [
        "float(t.ones(2))",
        "int(t.ones(2))",
        "complex(t.ones(2))",
        "t.ones(2).item()",
        "float(t.ones(1, requires_grad=True))",
        "int(t.ones(1, requires_grad=True))",
    ],
)
def test_scalar_conversion_messages(expr):
    torch = require_torch()
    # the requires_grad warning is torch's TORCH_WARN_ONCE: compared in a fresh process below
    assert_as_torch(torch, lambda t: eval(expr, {"t": t}), warnings_too="requires_grad" not in expr)


def test_requires_grad_scalar_warning_once_per_process():
    import subprocess
    import sys

    require_torch()
    prog = (
        "import sys, warnings\nwarnings.simplefilter('always')\n"
        "import {lib} as t\nx = t.ones(1, requires_grad=True)\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n    int(x); x.item(); complex(x); float(x); float(x)\n"
        "print([str(m.message).split(' (Triggered internally')[0] for m in w])"
    )
    outs = [
        subprocess.run(
            [sys.executable, "-c", prog.format(lib=lib)], capture_output=True, text=True, check=True
        ).stdout
        for lib in ("torch", "jupyter_autograd")
    ]
    assert outs[0] == outs[1] and outs[0].count("Converting a tensor") == 1, outs


def test_issue_cases():
    import jupyter_autograd as ja

    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        ja.tensor([2**63])
    with pytest.raises(
        RuntimeError, match="value cannot be converted to type int8 without overflow"
    ):
        ja.tensor([3000], dtype=ja.int8)
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.object_"):
        ja.tensor(np.array([1, "a"], dtype=object))
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.str_"):
        ja.tensor(np.array(["a"]))
