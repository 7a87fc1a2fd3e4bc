"""torch.save / torch.load interoperate with torch 2.13 in both directions: every dtype bit for
bit, shared storages and views, non-contiguous and 0-d/empty tensors, Parameters, module and
optimizer state dicts, nested containers, file objects and paths, map_location, the legacy
format, and the weights-only unpickler refusing a malicious file before it can run anything."""

from __future__ import annotations

import io
import os
import pathlib
import pickle
import zipfile

import numpy as np
import pytest

import jupyter_autograd as ja

from ._torch import require as require_torch

DTYPES = [
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool",
]


@pytest.fixture
def torch():
    return require_torch()


def _bytes(save, obj, **kw) -> bytes:
    buf = io.BytesIO()
    save(obj, buf, **kw)
    return buf.getvalue()


def _bits(t) -> np.ndarray:
    a = np.ascontiguousarray(t.detach().cpu().numpy() if hasattr(t, "detach") else t)
    return a.view(np.uint8)


def _special(dtype: str) -> np.ndarray:
    """Values with every bit pattern that could go wrong: NaN payloads, -0.0, inf, subnormals."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(0)
    if dt.kind == "b":
        return rng.integers(0, 2, 7).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.array([info.min, info.max, 0, 1, -1 if dt.kind == "i" else 2, 42, 7], dt)
    real = np.dtype(
        np.float32 if dt.itemsize == 8 and dt.kind == "c" else np.float64 if dt.kind == "c" else dt
    )
    it = {2: np.uint16, 4: np.uint32, 8: np.uint64}[real.itemsize]
    vals = np.array([0.0, -0.0, np.inf, -np.inf, 1.5, np.finfo(real).tiny / 3, np.pi], real)
    vals = np.concatenate([vals, (np.array([np.nan], real).view(it) | it(5)).view(real)])
    if dt.kind != "c":
        return vals
    out = np.empty(vals.size, dt)
    out.real, out.imag = vals, vals[::-1]
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips_bit_for_bit_both_ways(torch, dtype):
    arr = _special(dtype)
    ours = ja.from_numpy(arr.copy())
    theirs = torch.load(io.BytesIO(_bytes(ja.save, {"t": ours, "v": ours[2:]})))
    assert str(theirs["t"].dtype) == f"torch.{dtype}"
    assert (_bits(theirs["t"]) == _bits(arr)).all() and (_bits(theirs["v"]) == _bits(arr[2:])).all()
    back = ja.load(io.BytesIO(_bytes(torch.save, theirs)))
    assert back["t"].dtype == getattr(ja, dtype) and (_bits(back["t"]) == _bits(arr)).all()
    again = torch.load(io.BytesIO(_bytes(ja.save, back)))  # torch -> ours -> torch
    assert (_bits(again["t"]) == _bits(arr)).all()


def test_files_are_torch_files_byte_for_byte(torch):
    def build(T):
        x = T.arange(12.0).reshape(3, 4)
        return {
            "x": x,
            "view": x[1],
            "t": x.t(),
            "p": T.nn.Parameter(T.ones(2)),
            "rg": T.ones(3, requires_grad=True),
            "s": T.Size([2, 3]),
            "d": T.device("cpu"),
            "dc": T.device("cuda", 1),
            "dt": T.float64,
            "i": T.tensor([1, 2]),
            "b": T.tensor([True]),
            "z": T.zeros(0),
            "sc": T.tensor(3.5),
            "n": [1, (2.5, "a"), None, b"xy", {3}, 2**70, -5, 1 + 2j],
            "c": T.tensor([1 + 2j]),
        }

    ours, theirs = _bytes(ja.save, build(ja)), _bytes(torch.save, build(torch))
    zo, zt = zipfile.ZipFile(io.BytesIO(ours)), zipfile.ZipFile(io.BytesIO(theirs))
    assert zo.namelist() == zt.namelist()
    sid = "archive/.data/serialization_id"
    assert len(zo.read(sid)) == 40 and zo.read(sid).isdigit()
    for info in zo.infolist():  # the same records at the same offsets (64-byte aligned data)
        other = zt.getinfo(info.filename)
        assert (info.header_offset, info.file_size, info.flag_bits) == (
            other.header_offset,
            other.file_size,
            other.flag_bits,
        )
        if info.filename != sid:
            assert zo.read(info.filename) == zt.read(info.filename), info.filename
    cut = zo.getinfo(sid).header_offset + 30 + len(sid)  # the id (random) and what follows it
    assert ours[:cut] == theirs[:cut]


def test_shared_storages_are_saved_once_and_shared_after_loading(torch):
    x = ja.arange(24.0).reshape(4, 6)
    obj = {
        "x": x,
        "row": x[1],
        "col": x[:, 2],
        "t": x.t(),
        "step": x[::2, ::3],
        "again": x,
        "other": ja.ones(3),
    }
    raw = _bytes(ja.save, obj)
    assert sorted(n for n in zipfile.ZipFile(io.BytesIO(raw)).namelist() if "/data/" in n) == [
        "archive/data/0",
        "archive/data/1",
    ]
    theirs = torch.load(io.BytesIO(raw))
    ptr = theirs["x"].untyped_storage().data_ptr()
    assert all(theirs[k].untyped_storage().data_ptr() == ptr for k in ("row", "col", "t", "step"))
    assert theirs["again"] is theirs["x"] and theirs["t"].stride() == (1, 6)
    assert theirs["step"].stride() == (12, 3) and theirs["col"].storage_offset() == 2
    theirs["x"][1, 2] = -1.0
    assert theirs["row"][2] == -1 and theirs["col"][1] == -1
    back = ja.load(io.BytesIO(_bytes(torch.save, theirs)))
    for k in obj:
        assert np.array_equal(_bits(back[k]), _bits(theirs[k])), k
    back["x"][2, 3] = 100.0
    assert back["t"][3, 2].item() == 100.0 and back["step"][1, 1].item() == 100.0
    assert back["row"][2].item() == -1.0 and back["again"] is back["x"]


def test_broadcast_zero_d_empty_and_negative_stride_tensors(torch):
    base = ja.arange(3.0)
    obj = {
        "expanded": base.expand(4, 3),
        "scalar": ja.tensor(2.5),
        "empty": ja.zeros(0, 3),
        "flipped": ja.from_numpy(np.arange(5.0)[::-1]),
        "int0": ja.tensor(7),
    }
    theirs = torch.load(io.BytesIO(_bytes(ja.save, obj)))
    assert theirs["expanded"].stride() == (0, 1) and theirs["expanded"].tolist() == [[0, 1, 2]] * 4
    assert theirs["scalar"].shape == () and theirs["scalar"].item() == 2.5
    assert theirs["empty"].shape == (0, 3) and theirs["int0"].dtype == torch.int64
    assert theirs["flipped"].tolist() == [4.0, 3.0, 2.0, 1.0, 0.0]
    back = ja.load(io.BytesIO(_bytes(torch.save, theirs)))
    assert back["expanded"].tolist() == [[0, 1, 2]] * 4 and back["scalar"].shape == ()
    assert back["empty"].shape == (0, 3) and back["flipped"].tolist() == [4.0, 3.0, 2.0, 1.0, 0.0]


def test_parameters_requires_grad_and_module_state_dicts(torch):
    def model(T):
        T.manual_seed(0)
        return T.nn.Sequential(
            T.nn.Linear(4, 3), T.nn.ReLU(), T.nn.LayerNorm(3), T.nn.Linear(3, 2, bias=False)
        )

    ours, theirs = model(ja), model(torch)
    got = torch.load(io.BytesIO(_bytes(ja.save, {"sd": ours.state_dict(), "p": ours[0].weight})))
    assert list(got["sd"]) == list(theirs.state_dict())
    for k, v in theirs.state_dict().items():
        assert (_bits(got["sd"][k]) == _bits(v)).all(), k
    assert isinstance(got["p"], torch.nn.Parameter) and got["p"].requires_grad
    theirs.load_state_dict(got["sd"])  # torch accepts our state dict
    back = ja.load(
        io.BytesIO(
            _bytes(
                torch.save,
                {
                    "sd": theirs.state_dict(),
                    "p": theirs[0].weight,
                    "rg": torch.ones(2, requires_grad=True),
                },
            )
        )
    )
    fresh = model(ja)
    fresh.load_state_dict(back["sd"])  # and we accept torch's (with its _metadata)
    assert isinstance(back["p"], ja.nn.Parameter) and back["p"].requires_grad
    assert back["rg"].requires_grad and back["rg"].is_leaf
    assert getattr(back["sd"], "_metadata", None) is not None


def test_optimizer_state_dicts_round_trip(torch):
    def run(T, cls, **kw):
        T.manual_seed(0)
        m = T.nn.Linear(3, 2)
        opt = getattr(T.optim, cls)(m.parameters(), lr=0.1, **kw)
        for _ in range(3):
            opt.zero_grad()
            (m(T.ones(4, 3)) ** 2).sum().backward()
            opt.step()
        return m, opt

    for cls, kw in (("Adam", {}), ("SGD", {"momentum": 0.9}), ("AdamW", {"weight_decay": 0.1})):
        (_, oo), (_, ot) = run(ja, cls, **kw), run(torch, cls, **kw)
        ours, ref = oo.state_dict(), ot.state_dict()
        in_torch = torch.load(io.BytesIO(_bytes(ja.save, ours)))
        assert in_torch["param_groups"] == ref["param_groups"] == ours["param_groups"]
        for i, st in ours["state"].items():
            assert set(st) == set(ref["state"][i])
            for k, v in st.items():
                assert (_bits(in_torch["state"][i][k]) == _bits(v)).all(), (cls, i, k)
        ot.load_state_dict(in_torch)
        in_ours = ja.load(io.BytesIO(_bytes(torch.save, ref)))
        for i, st in ref["state"].items():
            for k, v in st.items():
                assert (_bits(in_ours["state"][i][k]) == _bits(v)).all(), (cls, i, k)
        oo.load_state_dict(in_ours)


def test_nested_containers_and_plain_values(torch):
    obj = {
        "list": [1, 2.5, "s", None, True],
        "tuple": (ja.ones(1), (ja.zeros(2),)),
        "set": {1, 2},
        "bytes": b"\x00\xff",
        "complex": 1 - 2j,
        "big": -(2**80),
        "od": __import__("collections").OrderedDict(a=ja.tensor([1, 2])),
        "nested": {"k": [{"v": ja.eye(2)}]},
    }
    theirs = torch.load(io.BytesIO(_bytes(ja.save, obj)))
    assert (
        theirs["list"] == obj["list"] and theirs["set"] == {1, 2} and theirs["bytes"] == b"\x00\xff"
    )
    assert theirs["complex"] == 1 - 2j and theirs["big"] == -(2**80)
    assert theirs["nested"]["k"][0]["v"].tolist() == [[1, 0], [0, 1]]
    back = ja.load(io.BytesIO(_bytes(torch.save, theirs)))
    assert back["tuple"][1][0].tolist() == [0.0, 0.0] and type(back["od"]).__name__ == "OrderedDict"
    assert back["od"]["a"].tolist() == [1, 2] and back["list"] == obj["list"]


class _Payload:
    def __reduce__(self):
        return (
            os.system,
            ("touch " + os.path.join(os.environ.get("JA_PWNED_DIR", "/nonexistent"), "pwned"),),
        )


class Point:
    def __init__(self, x):
        self.x = x


def test_malicious_pickle_is_refused_with_torchs_message(torch, tmp_path, monkeypatch):
    monkeypatch.setenv("JA_PWNED_DIR", str(tmp_path))
    raw = _bytes(torch.save, {"w": torch.ones(1), "evil": _Payload()})
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(io.BytesIO(raw))
    with pytest.raises(pickle.UnpicklingError) as ours:
        ja.load(io.BytesIO(raw))
    assert str(ours.value) == str(theirs.value)
    assert "GLOBAL posix.system whose module posix is blocked" in str(ours.value) or os.name == "nt"
    assert not (tmp_path / "pwned").exists()
    raw = _bytes(ja.save, {"p": Point(3)})
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(io.BytesIO(raw))
    with pytest.raises(pickle.UnpicklingError) as ours:
        ja.load(io.BytesIO(raw))
    assert str(ours.value) == str(theirs.value)
    assert ja.load(io.BytesIO(raw), weights_only=False)["p"].x == 3
    with ja.serialization.safe_globals([Point]):
        assert ja.load(io.BytesIO(raw))["p"].x == 3
    with pytest.raises(
        RuntimeError, match="Can not safely load weights when explicit pickle_module"
    ):
        ja.load(io.BytesIO(raw), pickle_module=pickle, weights_only=True)


def test_paths_file_objects_archive_names_and_mmap(torch, tmp_path):
    p = tmp_path / "my.model.pt"
    ja.save({"w": ja.arange(5.0)}, p)
    assert zipfile.ZipFile(p).namelist()[0] == "my.model/data.pkl"
    assert torch.load(p)["w"].tolist() == [0, 1, 2, 3, 4]
    assert ja.load(str(p))["w"].tolist() == ja.load(pathlib.Path(p), mmap=True)["w"].tolist()
    with open(p, "rb") as f:
        assert ja.load(f)["w"].tolist() == [0, 1, 2, 3, 4]
    torch.save({"w": torch.arange(3)}, tmp_path / "t.pt")
    assert ja.load(tmp_path / "t.pt", mmap=True)["w"].tolist() == [0, 1, 2]
    with pytest.raises(
        AttributeError, match="expected 'f' to be string, path, or a file-like object"
    ):
        ja.save({}, 3)


def test_map_location_forms(torch):
    raw = _bytes(torch.save, {"w": torch.ones(2)})
    for ml in ("cpu", ja.device("cpu"), {"cpu": "cpu"}, lambda s, loc: s, lambda s, loc: s.cpu()):
        assert ja.load(io.BytesIO(raw), map_location=ml)["w"].tolist() == [1.0, 1.0]
    seen = []
    ja.load(io.BytesIO(raw), map_location=lambda s, loc: seen.append((loc, s.nbytes())) or s)
    assert seen == [("cpu", 8)]
    cuda_file = _relocated(raw, "cuda:0")
    if not ja.cuda.is_available():
        with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
            ja.load(io.BytesIO(cuda_file))
    assert ja.load(io.BytesIO(cuda_file), map_location={"cuda:0": "cpu"})["w"].tolist() == [
        1.0,
        1.0,
    ]
    assert ja.load(io.BytesIO(cuda_file), map_location="cpu")["w"].device.type == "cpu"


def _relocated(raw: bytes, location: str) -> bytes:
    """The checkpoint ``raw`` with its storages' location tag set to ``location``."""
    from jupyter_autograd._ptzip import Writer

    z = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    w = Writer(out, "archive")
    for name in z.namelist():
        short = name.split("/", 1)[1]
        data = z.read(name)
        if short == "data.pkl":
            data = data.replace(
                b"X\x03\x00\x00\x00cpu",
                b"X" + len(location).to_bytes(4, "little") + location.encode(),
            )
        if short not in ("version", ".data/serialization_id"):
            w.write_record(short, data)
    w.close()
    return out.getvalue()


def test_legacy_format_both_ways(torch):
    torch.manual_seed(0)
    x = torch.randn(3, 4)
    raw = _bytes(
        torch.save, {"x": x, "v": x[1:], "l": [1, 2]}, _use_new_zipfile_serialization=False
    )
    ours = ja.load(io.BytesIO(raw))
    assert (_bits(ours["x"]) == _bits(x)).all() and ours["l"] == [1, 2]
    ours["x"][2, 0] = 9.0
    assert ours["v"][1, 0].item() == 9.0  # the view still shares the storage
    back = torch.load(io.BytesIO(_bytes(ja.save, ours, _use_new_zipfile_serialization=False)))
    assert back["x"][2, 0].item() == 9.0 and (_bits(back["v"]) == _bits(ours["v"])).all()


def test_saving_one_storage_as_two_dtypes_is_refused():
    arr = np.arange(4, dtype=np.float32)
    with pytest.raises(
        RuntimeError,
        match="Cannot save multiple tensors or storages that view the same data as different types",
    ):
        ja.save([ja.from_numpy(arr), ja.from_numpy(arr.view(np.int32))], io.BytesIO())


def test_whole_module_pickles_load_with_weights_only_false(torch):
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh())
    raw = _bytes(torch.save, m)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ja.load(io.BytesIO(raw))
    ours = ja.load(io.BytesIO(raw), weights_only=False)
    assert type(ours) is ja.nn.Sequential and type(ours[0]) is ja.nn.Linear
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(
        ours(ja.from_numpy(x)).detach().numpy(), m(torch.from_numpy(x)).detach().numpy()
    )


def test_big_endian_checkpoints_are_byte_swapped_on_load():
    from jupyter_autograd._ptzip import Writer

    little = zipfile.ZipFile(io.BytesIO(_bytes(ja.save, {"w": ja.tensor([1.5, -2.0, 3.25])})))
    out = io.BytesIO()
    w = Writer(out, "archive")
    for name in little.namelist():
        short = name.split("/", 1)[1]
        data = little.read(name)
        if short == "byteorder":
            data = b"big"
        elif short.startswith("data/"):
            data = np.frombuffer(data, "<f4").astype(">f4").tobytes()
        if short not in ("version", ".data/serialization_id"):
            w.write_record(short, data)
    w.close()
    assert ja.load(io.BytesIO(out.getvalue()))["w"].tolist() == [1.5, -2.0, 3.25]
