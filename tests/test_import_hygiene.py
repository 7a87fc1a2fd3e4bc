"""The core imports only NumPy: never IPython, ipywidgets, matplotlib or CuPy."""

import ast
import os
import subprocess
import sys
from pathlib import Path

import jupyter_autograd as ja


def test_import_pulls_in_no_jupyter_stack_or_cupy():
    code = (
        "import sys, jupyter_autograd, jupyter_autograd.nn.functional, jupyter_autograd.autograd\n"
        "bad = [m for m in ('IPython', 'ipywidgets', 'matplotlib', 'cupy', 'torch') if m in sys.modules]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_import_loads_no_upper_layer_stand_in_device_or_test_helper():
    code = (
        "import sys, jupyter_autograd, jupyter_autograd.nn, jupyter_autograd.optim\n"
        "upper = ('jupyter_autograd.jupyter', 'jupyter_autograd.graph', 'jupyter_autograd.viz',\n"
        "         'jupyter_autograd.widgets', 'jupyter_autograd.testing', 'tests')\n"
        "print(sorted(m for m in sys.modules if m.startswith(upper)))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER_AUTOGRAD_")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "[]"


# The Jupyter layer (and the stand-in device, a plug-in loaded by name) sit above the core.
_UPPER = (
    "jupyter_autograd.jupyter",
    "jupyter_autograd.graph",
    "jupyter_autograd.viz",
    "jupyter_autograd.widgets",
    "jupyter_autograd.testing",
    "tests",
    "IPython",
    "ipywidgets",
    "matplotlib",
    "cupy",
    "torch",
)
_UPPER_FILES = ("jupyter/", "graph/", "testing/", "viz.py", "widgets.py")
# %load_ext needs load_ipython_extension on the package itself; it imports the layer lazily.
# CuPy is imported lazily by the backend only, when a cuda tensor is first made.
_ALLOWED = {("__init__.py", "jupyter_autograd.jupyter"), ("backend.py", "cupy")}


def _imports(path, package):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            yield base
            yield from (f"{base}.{a.name}" for a in node.names)


def test_core_modules_never_import_an_upper_layer():
    root = Path(ja.__file__).parent
    bad = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(_UPPER_FILES):
            continue
        package = "jupyter_autograd." + ".".join(Path(rel).parent.parts)
        package = package.rstrip(".")
        for name in _imports(path, package):
            top = next((u for u in _UPPER if name == u or name.startswith(u + ".")), None)
            if top and (rel, top) not in _ALLOWED:
                bad.append(f"{rel}: {name}")
    assert bad == []


def test_every_source_file_reads_in_one_sitting():
    """No Python or TypeScript source file over 600 lines (the house limit): a file that grows
    past it is split along its seams, not exempted."""
    repo = Path(ja.__file__).parent.parent
    files = [
        *repo.joinpath("jupyter_autograd").rglob("*.py"),
        *repo.joinpath("tests").rglob("*.py"),
        *repo.joinpath("benchmarks").rglob("*.py"),
    ]
    src = repo / "labextension" / "src"
    if src.is_dir():  # absent from an installed wheel
        files += [p for p in src.rglob("*.ts") if "node_modules" not in p.parts]
    long = {
        str(p.relative_to(repo)): n
        for p in files
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}


def _module_graph(root: Path) -> dict:
    """Module -> the package's modules it imports at module level (a package's ``__init__``
    running first is Python's import order, not an edge)."""
    mods = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    graph = {}
    for m, p in mods.items():
        package = m if p.name == "__init__.py" else m.rpartition(".")[0]
        deps = set()
        for node in ast.parse(p.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names = list(_imports_of(node, package))
            deps.update(n if n in mods else n.rpartition(".")[0] for n in names)
        graph[m] = {d for d in deps if d in mods and d != m}
    return graph


def _imports_of(node, package):
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
        return
    base = node.module or ""
    if node.level:
        parts = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join(parts + ([base] if base else []))
    yield from (f"{base}.{a.name}" for a in node.names)


def test_no_import_cycles_at_module_level():
    """No cycle among the package's module-level imports (Tarjan's strongly connected
    components): the import order is a layering, and a module can be read after the ones it
    imports."""
    graph = _module_graph(Path(ja.__file__).parent)
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == []


# The layer map, lowest first. A module may import its own layer or a lower one, at module level
# or inside a function: a function-level import is still a dependency, only a later one. Nothing
# is exempt (a noqa comment included). Every module of the package is placed by the first entry one of
# whose prefixes names it (the package itself or a module under it).
_P = "jupyter_autograd."
LAYERS = (
    (
        "core",
        tuple(
            _P + m
            for m in (
                "_core",
                "tensor",
                "_dtype",
                "_size",
                "_errors",
                "_zerotensor",
                "_tensor_convert",
                "_printing",
                "_slots",
                "backend",
                "grad_mode",
                "autograd.node",
                "autograd.engine",
                "autograd.executor",
                "autograd.accumulate",
                "autograd.views",
                "autograd.view_fn",
                "autograd.anomaly_mode",
                "ops.registry",
                "ops.derive",
                "ops.dispatch",
                "ops.xp",
                "ops.strided",
            )
        ),
    ),
    # the rows and the functions over them (autograd's included: torch.autograd is public, but
    # the rows' functions and Function/gradcheck build on it), and the tensor-method modules
    (
        "op families",
        tuple(
            _P + m
            for m in (
                "ops",
                "autograd",
                "_batching",
                "factories",
                "_printing",
                "_tensor_convert",
                "_tensor_data",
                "_tensor_setitem",
                "_tensor_methods",
                "_tensor_conversions",
                "_methods_ext",
                "_fma",
                "_formats",
                "_legacy_types",
                "_tensor_params",
                "_signatures",
                "_tensor_inplace",
            )
        ),
    ),
    (
        "public API",
        tuple(
            _P + m
            for m in (
                "nn",
                "optim",
                "func",
                "_functional_call",
                "_vmap",
                "_vmap_batch",
                "_vmap_rules",
                "_storage",
                "_sampling",
                "_sampling_inplace",
                "_inplace_functions",
                "_aliases",
                "_arg_errors",
                "_distributions",
                "_ptzip",
                "_weights_only",
                "serialization",
                "profiler",
                "datasets",
                "distributions",
                "masked",
                "signal",
                "special",
                "fft",
                "linalg",
                "cuda",
                "random",
                "utils",
            )
        ),
    ),
    ("package root", ("jupyter_autograd",)),
    ("Jupyter", tuple(_P + m for m in ("jupyter", "graph", "viz", "widgets", "testing"))),
)
_RANK_OF = {"core": 0, "op families": 1, "public API": 2, "package root": 3, "Jupyter": 4}
# IPython's %load_ext calls load_ipython_extension on the package it is given: the package root
# names the Jupyter layer's entry point (imported when %load_ext runs, never by `import`).
_ENTRY_POINTS = {("jupyter_autograd", "jupyter_autograd.jupyter")}


def layer_of(module: str) -> str | None:
    for name, prefixes in LAYERS:
        if any(
            module == p or (p != "jupyter_autograd" and module.startswith(p + "."))
            for p in prefixes
        ):
            return name
    return None


def test_every_module_has_a_layer():
    root = Path(ja.__file__).parent
    mods = {m for m, _, _ in _every_import(root)} | {t for _, t, _ in _every_import(root)}
    assert sorted(m for m in mods if layer_of(m) is None) == []


def _every_import(root: Path):
    """(importer, imported module, line) for every import statement, wherever it sits."""
    mods = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    for m, p in sorted(mods.items()):
        package = m if p.name == "__init__.py" else m.rpartition(".")[0]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                # ``from pkg import mod`` imports the module; ``from mod import name``, the module
                names = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names
                ]
            else:
                names = [a.name for a in node.names]
            for name in names:
                if name == "jupyter_autograd" or name.startswith("jupyter_autograd."):
                    target = name
                    while target not in mods and "." in target:
                        target = target.rpartition(".")[0]
                    if target in mods:
                        yield m, target, node.lineno


def upward_imports(root: Path) -> list:
    bad = set()
    for m, target, line in _every_import(root):
        if (m, target) in _ENTRY_POINTS:
            continue
        if None in (layer_of(m), layer_of(target)):
            continue  # test_every_module_has_a_layer names it
        if _RANK_OF[layer_of(target)] > _RANK_OF[layer_of(m)]:
            bad.add(f"{m} ({layer_of(m)}) line {line} -> {target} ({layer_of(target)})")
    return sorted(bad)


def test_no_import_reaches_a_higher_layer():
    """Every import, module-level or inside a function, goes to the importer's layer or a lower
    one: the op rows' samples are built from their own layer (a sample's callables receive the
    package from whoever runs them), helpers live where their callers can reach them."""
    assert upward_imports(Path(ja.__file__).parent) == []


def test_the_layer_check_sees_function_level_imports(tmp_path):
    pkg = tmp_path / "jupyter_autograd"
    (pkg / "ops").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "ops" / "__init__.py").write_text("")
    (pkg / "nn.py").write_text("")
    (pkg / "ops" / "rows.py").write_text(
        "def f():\n    import jupyter_autograd as ja  # noqa\n    from .. import nn\n"
    )
    assert upward_imports(pkg) == [
        "jupyter_autograd.ops.rows (op families) line 2 -> jupyter_autograd (package root)",
        "jupyter_autograd.ops.rows (op families) line 3 -> jupyter_autograd.nn (public API)",
    ]


def test_the_core_imports_only_itself_numpy_and_the_standard_library():
    """Besides NumPy and the standard library, a core module imports only core modules, anywhere
    in it (CuPy: inside the functions of backend.py and xp.py that run on CuPy arrays only)."""
    root = Path(ja.__file__).parent
    bad = [
        f"{m} -> {t}"
        for m, t, _ in _every_import(root)
        if layer_of(m) == "core" and layer_of(t) != "core"
    ]
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(root.parent).with_suffix("").parts)
        m = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if layer_of(m) != "core":
            continue
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            for top in {n.split(".")[0] for n in names}:
                if top in sys.stdlib_module_names or top in ("numpy", "jupyter_autograd"):
                    continue
                if top in ("cupy", "cupyx") and p.name in ("backend.py", "xp.py"):
                    continue
                bad.append(f"{m} -> {top}")
    assert bad == []
