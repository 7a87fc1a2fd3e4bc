"""``torch.random``: PyTorch's CPU generator (mt19937) with torch's seeding and state format.

A :class:`Generator` draws the same 32-bit words as torch's ``CPUGeneratorImpl`` for the same
seed: the engine is the standard mt19937 (NumPy's ``MT19937`` bit generator, whose C loop makes
a million words in a few milliseconds), seeded with ``init_genrand(seed & 0xffffffff)`` as torch
does, and ``get_state()`` returns torch's 5056-byte state (``CPUGeneratorImplState``), so states
move between torch and this package in both directions. How the words become floats, normals,
integers and permutations is in ``_distributions``.

Example:
    >>> import jupyter_autograd as torch
    >>> g = torch.Generator().manual_seed(0)
    >>> torch.rand(3, generator=g)
    tensor([0.4963, 0.7682, 0.0885])
    >>> state = torch.get_rng_state()
    >>> a = torch.randn(2)
    >>> torch.set_rng_state(state)
    >>> bool((torch.randn(2) == a).all())
    True
"""

from __future__ import annotations

import contextlib
import os
import struct

import numpy as np

from .backend import canonical_device

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]

_N = 624  # mt19937 state words
_DEFAULT_SEED = 67280421310721  # torch's default_rng_seed_val, the seed of a new Generator()
# CPUGeneratorImplState: uint64 seed, int left, int seeded, uint64 next, uint64 state[624],
# double normal_x, normal_y, normal_rho, int normal_is_valid, (pad), float next_float_normal,
# bool its validity, (pad): 5056 bytes, little-endian as torch writes it on x86 and arm.
_HEAD = struct.Struct("<QiiQ")
_TAIL = struct.Struct("<dddi4xf?3x")
_STATE_SIZE = _HEAD.size + 8 * _N + _TAIL.size


def _unpack_seed(seed) -> int:
    """torch's unpacking of a seed: a 64-bit unsigned, or a negative int64 taken modulo 2**64."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        if hasattr(seed, "__index__") and not isinstance(seed, (float, np.floating)):
            seed = seed.__index__()
        else:
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError("Overflow when unpacking long long")
    return seed & ((1 << 64) - 1)


def _init_genrand(seed32: int) -> np.ndarray:
    """The mt19937 key after ``init_genrand(seed32)`` (NumPy's legacy integer seeding is exactly
    that routine)."""
    return np.random.RandomState(seed32).get_state()[1]


class Generator:
    """A pseudo-random number generator, as ``torch.Generator``: mt19937 with torch's seeding,
    transforms and state, so a seed gives torch's numbers.

    Args:
        device: accepted for torch's signature; samples are drawn on the host.

    Example:
        >>> import jupyter_autograd as torch
        >>> g = torch.Generator()
        >>> g.initial_seed()
        67280421310721
        >>> torch.randint(0, 10, (5,), generator=g.manual_seed(3))
        tensor([6, 8, 7, 7, 0])
    """

    def __init__(self, device="cpu") -> None:
        self.device = canonical_device(device)
        self._mt = None
        self._reseed(_DEFAULT_SEED)

    @property
    def _engine(self):
        """The mt19937 engine, keyed from the seed on the first draw: numpy.random (about 20 ms)
        is not imported by ``import jupyter_autograd`` (issue #17: a fast %load_ext)."""
        if self._mt is None:
            self._mt = np.random.MT19937(0)
            key = _init_genrand(self._seed & 0xFFFFFFFF)
            self._mt.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _N}}
        return self._mt

    def _reseed(self, seed: int) -> None:
        self._mt = None  # keyed from the new seed when next needed
        self._seed = seed
        self._fresh = True  # torch's "next" index is 0 until the first draw
        self._normal = None  # the cached second Box-Muller sample (double), as torch keeps it
        self._normal_float = None  # kept only so a state round-trips

    # ------------------------------------------------------------------ torch's API
    def manual_seed(self, seed) -> Generator:
        """Seed the generator (an int in [-2**63, 2**64)); returns ``self``."""
        self._reseed(_unpack_seed(seed))
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy and return that seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self._reseed(s)
        return s

    def initial_seed(self) -> int:
        """The seed last set (torch's ``initial_seed``)."""
        return self._seed

    def get_state(self):
        """The state as torch's 5056-byte ``uint8`` tensor (torch accepts it in ``set_state``)."""
        from .tensor import Tensor

        return Tensor._wrap(np.frombuffer(self._state_bytes(), np.uint8).copy())

    def set_state(self, new_state) -> Generator:
        """Restore a state from :meth:`get_state` or from torch's ``get_rng_state()``."""
        from .tensor import Tensor

        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        data = new_state.detach().cpu()._data
        if data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if data.size != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input RNG "
                f"state size to be {data.size}"
            )
        self._load_state_bytes(np.ascontiguousarray(data).tobytes())
        return self

    def clone_state(self) -> Generator:
        """A new generator in the same state."""
        g = Generator(self.device)
        g._load_state_bytes(self._state_bytes())
        return g

    def get_offset(self) -> int:
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset) -> Generator:
        raise RuntimeError("CPU Generator does not use offset")

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {id(self):#x}>"

    def __reduce__(self):
        return (_rebuild_generator, (str(self.device), self._state_bytes()))

    # ------------------------------------------------------------------ state bytes
    def _state_bytes(self) -> bytes:
        st = self._engine.state["state"]
        pos = int(st["pos"])
        left, nxt = _N + 1 - pos, (0 if self._fresh else pos)
        head = _HEAD.pack(self._seed, left, 1, nxt)
        body = np.asarray(st["key"], dtype="<u8").tobytes()
        n, f = self._normal, self._normal_float
        tail = _TAIL.pack(
            0.0, 0.0 if n is None else n, 0.0, n is not None, 0.0 if f is None else f, f is not None
        )
        return head + body + tail

    def _load_state_bytes(self, raw: bytes) -> None:
        seed, left, seeded, nxt = _HEAD.unpack_from(raw, 0)
        key = np.frombuffer(raw, "<u8", _N, _HEAD.size).astype(np.uint32)
        _, normal_y, _, normal_valid, nf, nf_valid = _TAIL.unpack_from(raw, _HEAD.size + 8 * _N)
        if not (seeded and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        # torch twists when ``left`` reaches 0 and otherwise reads word ``next``
        pos = _N if left == 1 else int(nxt)
        self._engine.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self._seed = seed
        self._fresh = left == 1 and nxt == 0
        self._normal = normal_y if normal_valid else None
        self._normal_float = nf if nf_valid else None

    # ------------------------------------------------------------------ raw words
    def _words32(self, n: int) -> np.ndarray:
        """``n`` outputs of torch's ``random()`` (uint32)."""
        self._fresh = False
        return self._engine.random_raw(n).astype(np.uint32)

    def _words64(self, n: int) -> np.ndarray:
        """``n`` outputs of torch's ``random64()``: two words, the first one high (uint64)."""
        self._fresh = False
        w = self._engine.random_raw(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]


def _rebuild_generator(device: str, state: bytes) -> Generator:
    g = Generator(device)
    g._load_state_bytes(state)
    return g


default_generator = Generator()
default_generator.seed()  # torch seeds its default generator nondeterministically at start


#: randomness= of the vmaps running (innermost last); torch refuses random ops in "error" mode
_VMAP_MODES: list = []


def _get(generator) -> Generator:
    """The generator a sampling function uses: ``generator=`` or the default one."""
    if _VMAP_MODES and _VMAP_MODES[-1] == "error":
        raise RuntimeError(
            "vmap: called random operation while in randomness error mode. Please either use the "
            "'same' or 'different' randomness flags on vmap or perform the randomness operation "
            "out of vmap"
        )
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a torch.Generator, but got {type(generator).__name__}")
    return generator


def manual_seed(seed) -> Generator:
    """Seed the default generator, as ``torch.manual_seed``: afterwards ``rand``, ``randn``,
    ``randint``, ``randperm``, dropout, ``nn.init`` and ``DataLoader(shuffle=True)`` give torch's
    values for the same seed. Returns the default generator.

    Example:
        >>> import jupyter_autograd as torch
        >>> _ = torch.manual_seed(0)
        >>> torch.randn(2, 3)
        tensor([[ 1.5410, -0.2934, -2.1788],
                [ 0.5684, -1.0845, -1.3986]])
    """
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator nondeterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed of the default generator."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state, torch's 5056-byte ``uint8`` tensor."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the default generator's state (from :func:`get_rng_state` or torch's)."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(
    devices=None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type=None,
):
    """Run a block and then put the default generator back in the state it had before.

    Example:
        >>> import jupyter_autograd as torch
        >>> _ = torch.manual_seed(1)
        >>> with torch.random.fork_rng():
        ...     _ = torch.rand(100)
        >>> torch.rand(1)
        tensor([0.7576])
    """
    if not enabled or device_type == "meta":
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
