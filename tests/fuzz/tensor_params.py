"""torch's Tensor-only parameters, read from its schemas and confirmed by its argument parser.

A parameter is Tensor-only where every Python-visible overload of the ATen operator (not the
``out`` variants) types that position ``Tensor``; torch's arg parser then refuses a Python
number, list or None there with ``f(): argument 'p' (position k) must be Tensor, not float``.
Each candidate is confirmed by calling torch with a non-Tensor in that position (the others
type-correct), so the name and numbering are torch's own (functions count ``input``, methods
count after ``self``). ``python -m tests.fuzz.tensor_params --write`` regenerates
jupyter_autograd/_tensor_params.py, the table the API binding checks (jupyter_autograd/_aliases.py);
tests/fuzz/test_fixes_tensor_params.py compares every such call with torch.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# a type-correct value per schema type ("T": a tensor, "dtype": float32); None: skip the name
_VALUES = {
    "Tensor": "T",
    "Tensor?": None,
    "int": 0,
    "SymInt": 0,
    "float": 1.0,
    "Scalar": 1,
    "bool": False,
    "int[]": [0],
    "SymInt[]": [0],
    "int[1]": [0],
    "int[2]": [0, 0],
    "SymInt[1]": [0],
    "ScalarType": "dtype",
    "Tensor[]": ["T"],
    "Tensor?[]": ["T"],
    "str": "x",
}
_OPTIONAL = re.compile(r".*\?$")


def _overloads(torch, name):
    try:
        schemas = torch._C._jit_get_schemas_for_operator("aten::" + name)
    except RuntimeError:
        return []
    return [
        [a for a in s.arguments if not a.kwarg_only]
        for s in schemas
        if not s.overload_name.endswith("out")
        and not any(a.name == "out" for a in s.arguments)
        and "Dimname" not in str(s)
        and any("Tensor" in str(a.type) for a in s.arguments)
    ]


def candidates(torch, name):
    """(position, overload arguments) for each position typed Tensor in every overload that has it
    (TorchScript's scalar overloads, exp.int(int a), are not Python's: left out)."""
    ovs = _overloads(torch, name) or (_overloads(torch, name[:-1]) if name.endswith("_") else [])
    out = []
    for i in range(max((len(o) for o in ovs), default=0)):
        have = [o for o in ovs if len(o) > i]
        if all(str(o[i].type) == "Tensor" for o in have):
            out.append((i, have[0]))
    return out


def arguments(lib, schema_args, i, bad):
    """Positional arguments up to the required ones, type-correct except ``bad`` at ``i``;
    None where a type has no stock value."""
    args = []
    for j, a in enumerate(schema_args):
        if j == i:
            args.append(bad)
            continue
        t = str(a.type)
        if j > i and (a.default_value is not None or _OPTIONAL.match(t)):
            break
        if t not in _VALUES or _VALUES[t] is None:
            return None
        v = _VALUES[t]

        def conv(v):
            return lib.ones(2, 2) if v == "T" else (lib.float32 if v == "dtype" else v)

        args.append([conv(x) for x in v] if isinstance(v, list) else conv(v))
    return args


def _message(fn, args, kwargs):
    try:
        fn(*args, **kwargs)
    except TypeError as e:
        return str(e)
    except Exception:  # noqa: BLE001 - another check first: not the arg parser's refusal
        return None
    return None


def public_names(torch, ours):
    """(form, name) for torch's public functions and Tensor methods that ours has too."""
    fns = sorted(
        n for n in dir(torch._C._VariableFunctions) if not n.startswith("_") and hasattr(ours, n)
    )
    methods = sorted(
        n for n in dir(torch._C.TensorBase) if not n.startswith("_") and hasattr(ours.Tensor, n)
    )
    return [("function", n) for n in fns] + [("method", n) for n in methods]


def call_target(lib, form, name, args):
    """The callable and its arguments: ``torch.name(*args)`` or ``args[0].name(*args[1:])``."""
    if form == "function":
        return getattr(lib, name), args
    return getattr(args[0], name), args[1:]


def derive(torch, ours):
    """{(form, name): {position: parameter}}: the positions torch refuses None at with its
    'must be Tensor' message (method positions count after self). A parameter that takes a
    Python number all the same (add's input: allow_numbers_as_tensors) ends in ``#``; a
    function torch forwards positionally from Python (cdist) numbers keyword arguments too:
    its name starts with ``=``."""
    table = {}
    for form, name in public_names(torch, ours):
        for i, schema_args in candidates(torch, name):
            if form == "method" and (i == 0 or str(schema_args[0].type) != "Tensor"):
                continue
            pos = i + 1 if form == "function" else i
            args = arguments(torch, schema_args, i, None)
            if args is None:
                continue
            fn, a = call_target(torch, form, name, args)
            m = re.fullmatch(
                rf"{re.escape(name)}\(\): argument '(\w+)' \(position {pos}\) must be Tensor, not NoneType",
                _message(fn, a, {}) or "",
            )
            if not m:
                continue
            p = m.group(1)
            fn, a = call_target(torch, form, name, arguments(torch, schema_args, i, 1.5))
            if _message(fn, a, {}) is None:
                p += "#"
            elif f"(position {pos})" in (_message(fn, a[: pos - 1], {m.group(1): 1.5}) or ""):
                table.setdefault(("positional-keywords", form), set()).add(name)
            table.setdefault((form, name), {})[pos - 1] = p
    return table


def _form(torch, form, name, x):
    """``torch.name`` or the method ``x.name``; None for a property (``x.imag`` of a real x)."""
    try:
        fn = getattr(torch, name) if form == "function" else getattr(x, name)
    except RuntimeError:
        return None
    return fn if callable(fn) else None


def _arity_message(torch, form, name, n):
    x = torch.ones(2, 2)
    fn = _form(torch, form, name, x)
    if fn is None:
        return None
    return _message(fn, (x,) * n, {}) if n else (_message(fn, (), {}) or "")


def derive_arity(torch, names):
    """{(form, name): (max positional, required names)} where torch's arg parser refuses a call
    with too few or too many arguments by one signature's words ('missing 1 required
    positional arguments: "mat2"', 'takes from 1 to 4 positional arguments...'), not as an
    invalid combination of several signatures."""
    out = {}
    for form, name in names:
        none = _arity_message(torch, form, name, 0) or ""
        many = _arity_message(torch, form, name, 20)
        m = re.fullmatch(
            rf"{re.escape(name)}\(\) missing \d+ required positional arguments?: (.*)", none
        )
        t = re.fullmatch(
            rf"{re.escape(name)}\(\) takes (?:from \d+ to )?(\d+) positional arguments? but 20 were given",
            many or "",
        )
        if t and (m or none == ""):
            # torch's functions written in Python (torch.functional: cdist, split...) refuse in
            # Python's words: their name is marked ``~``
            key = (form, "~" + name if m and "'" in m.group(1) else name)
            # an int list as the first parameter takes its ints unpacked (torch.ones(2, 3)): no most
            fn = _form(torch, form, name, torch.ones(2, 2))
            varargs = "takes" not in (_message(fn, (1,) * 20, {}) or "")
            out[key] = (
                ("*" if varargs else "") + t.group(1),
                re.findall(r'["\'](\w+)["\']', m.group(1)) if m else [],
            )
    return out


def derive_signatures(torch, names):
    """{(form, name): [signature, ...]} where torch's arg parser refuses a call with no
    arguments, one Tensor or 20 as an invalid combination of several (visible) signatures; the
    signatures as its message lists them, ``(Tensor input, Tensor mat2, *, Tensor out = None)``."""
    out = {}
    for form, name in names:
        for n in (0, 1, 20):
            m = _arity_message(torch, form, name, n) or ""
            head = f"{name}() received an invalid combination of arguments - got ("
            if not m.startswith(head):
                continue
            expected = m.split("), but expected ", 1)[1]
            if expected.startswith("one of:"):
                sigs = [ln[3:] for ln in expected.split("\n") if ln.startswith(" * (")]
            else:
                sigs = [expected.split("\n")[0]]
            out[form, name] = sigs
            break
    return out


def derive_no_arguments(torch, names):
    """The methods torch's parser refuses any argument to ('Tensor.abs() takes no arguments
    (1 given)'), among ``names``."""
    x = torch.ones(2, 2)
    return sorted(
        name
        for form, name in names
        if form == "method"
        and _form(torch, form, name, x) is not None
        and re.fullmatch(
            rf"Tensor\.{re.escape(name)}\(\) takes no arguments \(1 given\)",
            _message(_form(torch, form, name, x), (x,), {}) or "",
        )
    )


def derive_autograd_first(torch, names):
    """The names whose autograd wrapper reads the history of a Tensor argument before the
    kernel checks anything: called on a view made in no_grad mode whose base was modified in
    place since (type-correct arguments otherwise), torch refuses the view ('A view was created
    in no_grad mode...'), whatever the kernel would have said."""

    def rebased():
        x = torch.ones(2, 2, requires_grad=True)
        with torch.no_grad():
            v = x.view(2, 2)
            x.zero_()
        return v

    hits = set()
    for form, name in names:
        for o in [o for o in _overloads(torch, name) if o and str(o[0].type) == "Tensor"][:3]:
            args = arguments(torch, o, -1, None)
            if args is None:
                continue
            args[0] = rebased()
            try:
                fn, a = call_target(torch, form, name, args)
                fn(*a)
            except Exception as e:  # noqa: BLE001 - only the view's refusal counts
                if "A view was created in no_grad mode" in str(e):
                    hits.add(name)
                    break
    return sorted(hits)


def render_signatures(sigs, no_args, autograd_first) -> str:
    rows = [
        f"{'f' if form == 'function' else 'm'} {name} {' | '.join(ss)}"
        for (form, name), ss in sorted(sigs.items())
    ]

    def words(names):
        return "\n".join(" ".join(names[i : i + 8]) for i in range(0, len(names), 8))

    nl = "\n"
    return (
        '"""torch\'s argument-parser signatures of the public functions and Tensor methods it refuses\n'
        "a call of the wrong arity to as an invalid combination of several signatures, and the\n"
        "methods that take no arguments (GENERATED by ``python -m tests.fuzz.tensor_params --write``;\n"
        "do not edit by hand). Read on a refused call only (jupyter_autograd/_arg_errors.py).\n"
        "``SIGNATURES``: one line per form, ``f name (...) | (...)`` for ``torch.name``, ``m name\n"
        '(...)`` for ``Tensor.name`` (without self), its signatures in torch\'s order."""\n\n'
        f'SIGNATURES = """\n{nl.join(rows)}\n"""\n\n'
        f'NO_ARGUMENTS = """\n{words(no_args)}\n"""\n\n'
        "# whose autograd wrapper reads a Tensor argument's history before the kernel's checks\n"
        f'AUTOGRAD_FIRST = """\n{words(autograd_first)}\n"""\n'
    )


def render(table) -> str:
    def entries(form):
        rows = []
        marked = table.get(("positional-keywords", form), set())
        for (f, name), params in sorted(
            (k, v) for k, v in table.items() if k[0] != "positional-keywords"
        ):
            if f != form:
                continue
            name = "=" + name if name in marked else name
            k = max(params) + 1
            rows.append(name + ":" + ",".join(params.get(i, "") for i in range(k)))
        lines, line = [], ""
        for r in rows:
            if len(line) + len(r) + 1 > 96:
                lines.append(line)
                line = ""
            line = f"{line} {r}" if line else r
        return "\n".join(lines + [line])

    return (
        '"""torch\'s Tensor-only parameters per public function and Tensor method (GENERATED by\n'
        "``python -m tests.fuzz.tensor_params --write`` from torch's schemas, each confirmed by its\n"
        "argument parser; do not edit by hand). ``name:p0,p1,...``: the parameter names in positional\n"
        "order, empty where the position also takes a non-Tensor, ``#`` where it takes a Python number\n"
        "too; methods count after ``self``; ``=name``: keyword arguments are numbered as positional ones\n"
        "(torch's Python wrapper forwards them by position).\n"
        'The API binding (_aliases.check_tensor_params) refuses anything but a Tensor there."""\n\n'
        f'FUNCTIONS = """\n{entries("function")}\n"""\n\nMETHODS = """\n{entries("method")}\n"""\n'
    )


def render_arity(arity) -> str:
    def entries(form):
        rows = [
            f"{name}:{mx}:{','.join(req)}"
            for (f, name), (mx, req) in sorted(arity.items())
            if f == form
        ]
        return "\n".join(" ".join(rows[i : i + 6]) for i in range(0, len(rows), 6))

    return (
        "\n# ``name:most:required,...``: the most positional arguments torch's one signature takes\n"
        "# and its required ones (read on a refused call only: _aliases.arity_error); ``~name``: worded\n"
        "# as Python's (torch's function is written in Python)\n"
        f'ARITY_FUNCTIONS = """\n{entries("function")}\n"""\n\nARITY_METHODS = """\n{entries("method")}\n"""\n'
    )


def main(argv) -> int:
    import torch

    import jupyter_autograd as ours

    table = derive(torch, ours)
    names = public_names(torch, ours)
    text = render(table) + render_arity(derive_arity(torch, names))
    sigs = render_signatures(
        derive_signatures(torch, names),
        derive_no_arguments(torch, names),
        derive_autograd_first(torch, names),
    )
    for file, body in (("_tensor_params.py", text), ("_signatures.py", sigs)):
        path = Path(ours.__file__).with_name(file)
        if "--write" in argv:
            path.write_text(body)
            print(f"wrote {path}")
        else:
            print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
