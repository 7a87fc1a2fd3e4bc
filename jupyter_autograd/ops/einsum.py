"""``torch.einsum``: a composition of recorded ops in torch's order, so the graph shows torch's
nodes (PermuteBackward0, UnsqueezeBackward0, DiagonalBackward0, SumBackward1, MulBackward0,
ViewBackward0 and BmmBackward0 around each pairwise contraction).

Every operand is aligned to one label order (the output's labels first, then the contracted
ones): repeated labels become diagonals, missing labels unsqueezed dims, then one permute.
Operands are contracted left to right; each pair multiplies (MulBackward0) when nothing is
summed, else runs as permute -> reshape -> bmm -> view -> permute, as torch's
``sumproduct_pair``. torch takes this path too when opt_einsum is not installed.
"""

from __future__ import annotations

from ..tensor import Tensor
from . import api

_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS


def _subscript(c: str, pos: int) -> int:
    if not c.isalpha() or not c.isascii():
        raise RuntimeError(
            f"einsum(): invalid subscript given at index {pos} in the equation string, subscripts "
            "must be in [a-zA-Z]"
        )
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + _LETTERS


def _label(s: int) -> str:
    return chr(s + ord("A")) if s < _LETTERS else chr(s - _LETTERS + ord("a"))


def _parse_lhs(lhs: str, n_ops: int):
    labels = [[] for _ in range(n_ops)]
    cur = 0
    ell = False
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {cur} for which an ellipsis was already found"
                )
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(
                    f"einsum(): found '.' for operand {cur} that is not part of any ellipsis"
                )
            i += 2
            labels[cur].append(_ELLIPSIS)
            ell = True
        elif c == ",":
            cur += 1
            if cur >= n_ops:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation"
                )
            ell = False
        else:
            labels[cur].append(_subscript(c, i))
        i += 1
    if cur != n_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return labels


def _sumproduct_pair(left, right, sum_dims, keepdim):
    """``(left * right).sum(sum_dims)`` by permute, reshape and bmm (torch's sumproduct_pair)."""
    if not sum_dims:
        return left * right
    dim = left.dim()
    summed = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in summed:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_size = (
        [left.shape[d] for d in lro]
        + [left.shape[d] for d in lo]
        + [1] * len(sum_dims)
        + [right.shape[d] for d in ro]
    )
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(out_size)
    for k, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = k
    left = api.reshape(api.permute(left, lperm), (lro_size, lo_size, sum_size))
    right = api.reshape(api.permute(right, rperm), (lro_size, sum_size, ro_size))
    result = api.permute(api.view(api.bmm(left, right), tuple(out_size)), operm)
    if not keepdim:
        sizes = [s for i, s in enumerate(result.shape) if i not in summed]
        result = api.view(result, tuple(sizes))
    return result


def _diagonal(op, d1, d2):
    from .api_shape import diagonal

    return diagonal(op, 0, d1, d2)


def einsum(*args):
    """Einstein summation over the operands' labelled dims, with torch's parsing, errors and
    graph (see the module docstring). Also takes the operands as one list, and torch's sublist
    form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.

    Raises:
        ValueError: without an equation and an operand.
        RuntimeError: torch's messages for bad subscripts, operand counts and sizes.

    Example:
        >>> import jupyter_autograd as torch
        >>> a = torch.ones(2, 3, requires_grad=True)
        >>> y = torch.einsum("ij,jk->ik", a, torch.ones(3, 4))
        >>> y.shape, y.grad_fn
        (torch.Size([2, 4]), <ViewBackward0 object at 0x...>)
    """
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at "
            "least one operand and its subscripts list"
        )
    if isinstance(args[0], Tensor):

        def sub(n):
            if n is Ellipsis:
                return "..."
            if 0 <= n < 26:
                return chr(ord("A") + n)
            if 26 <= n < 52:
                return chr(ord("a") + n - 26)
            raise ValueError(
                "einsum(): subscript in subscript list is not within the valid range [0, 52)"
            )

        equation = ",".join("".join(sub(s) for s in lst) for lst in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(sub(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    return _einsum(equation, list(operands))


def _einsum(equation: str, operands):
    n_ops = len(operands)
    if not n_ops:
        raise RuntimeError("einsum(): must provide at least one operand")
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_lhs(lhs, n_ops)
    count = [0] * (2 * _LETTERS)
    ell_num_dim = 0
    for i, (op, labels) in enumerate(zip(operands, op_labels)):
        nd = op.dim()
        nlabels = len(labels)
        has_ell = _ELLIPSIS in labels
        for s in labels:
            if s == _ELLIPSIS:
                nlabels -= 1
                ell_num_dim = max(ell_num_dim, nd - (len(labels) - 1))
            else:
                count[s] += 1
        if (nlabels > nd) if has_ell else (nlabels != nd):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) "
                + (
                    "is more than the number of dimensions ("
                    if has_ell
                    else "does not match the number of dimensions ("
                )
                + f"{nd}) for operand {i}"
                + ("" if has_ell else " and no ellipsis was given")
            )
    perm_index_of = [-1] * (2 * _LETTERS)
    perm = 0
    ell_index = 0
    ell_in_out = False
    if arrow < 0:
        perm = ell_num_dim
        ell_in_out = True
        for s in range(2 * _LETTERS):
            if count[s] == 1:
                perm_index_of[s] = perm
                perm += 1
    else:
        rhs = equation[arrow + 2 :]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == " ":
                pass
            elif c == ".":
                if ell_in_out:
                    raise RuntimeError(
                        "einsum(): found '.' for output but an ellipsis (...) was already found"
                    )
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError(
                        "einsum(): found '.' for output that is not part of any ellipsis (...)"
                    )
                i += 2
                ell_index = perm
                perm += ell_num_dim
                ell_in_out = True
            else:
                s = _subscript(c, len(lhs) + 2 + i)
                if not (count[s] > 0 and perm_index_of[s] == -1):
                    raise RuntimeError(
                        f"einsum(): output subscript {c}"
                        + (
                            " appears more than once in the output"
                            if perm_index_of[s] > -1
                            else " does not appear in the equation for any input operand"
                        )
                    )
                perm_index_of[s] = perm
                perm += 1
            i += 1
    out_num_dim = perm
    if not ell_in_out:
        ell_index = perm
        perm += ell_num_dim
    for s in range(2 * _LETTERS):
        if count[s] > 0 and perm_index_of[s] == -1:
            perm_index_of[s] = perm
            perm += 1
    label_size = [1] * (2 * _LETTERS)
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm
    ops = []
    for i, (op, labels) in enumerate(zip(operands, op_labels)):
        permutation = [-1] * perm
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                nd = operands[i].dim() - (len(labels) - 1)
                for j in range(ell_num_dim - nd, ell_num_dim):
                    if op.shape[dim] != 1:
                        if ell_sizes[j] not in (1, op.shape[dim]):
                            raise RuntimeError(
                                f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size "
                                f"{op.shape[dim]} which does not broadcast with previously seen ellipsis "
                                f"with size {ell_sizes[j]} for the respective dimension"
                            )
                        ell_sizes[j] = op.shape[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_index_of[s]] == -1:
                if op.shape[dim] != 1:
                    if label_size[s] not in (1, op.shape[dim]):
                        raise RuntimeError(
                            f"einsum(): subscript {_label(s)} has size {op.shape[dim]} for operand {i} "
                            f"which does not broadcast with previously seen size {label_size[s]}"
                        )
                    label_size[s] = op.shape[dim]
                    dim_counts[perm_index_of[s]] += 1
                permutation[perm_index_of[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal, moved back to the first occurrence
                prev = permutation[perm_index_of[s]]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the sizes don't "
                        f"match, {op.shape[dim]} != {op.shape[prev]}"
                    )
                op = _diagonal(op, prev, dim)
                order = list(range(op.dim() - 1))
                order.insert(prev, op.dim() - 1)
                op = api.permute(op, order)
        for k, val in enumerate(permutation):
            if val == -1:
                op = api.unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(api.permute(op, permutation))
    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_num_dim, perm):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = a.sum(tuple(a_sum), True)
        if b_sum:
            b = b.sum(tuple(b_sum), True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims, True))
    result = ops[0]
    if perm - out_num_dim > 0:
        if n_ops > 1:
            return api.view(result, tuple(result.shape[:out_num_dim]))
        return result.sum(tuple(range(out_num_dim, perm)))
    return result


__all__ = ["einsum"]
