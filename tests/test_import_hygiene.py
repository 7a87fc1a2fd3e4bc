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
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=env)
    assert out.stdout.strip() == "[]"


# The Jupyter layer (and the stand-in device, a plug-in loaded by name) sit above the core.
_UPPER = ("jupyter_autograd.jupyter", "jupyter_autograd.graph", "jupyter_autograd.viz",
          "jupyter_autograd.widgets", "jupyter_autograd.testing", "tests", "IPython",
          "ipywidgets", "matplotlib", "cupy", "torch")
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
    files = [*repo.joinpath("jupyter_autograd").rglob("*.py"), *repo.joinpath("tests").rglob("*.py"),
             *repo.joinpath("benchmarks").rglob("*.py")]
    src = repo / "labextension" / "src"
    if src.is_dir():  # absent from an installed wheel
        files += [p for p in src.rglob("*.ts") if "node_modules" not in p.parts]
    long = {str(p.relative_to(repo)): n for p in files
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
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
