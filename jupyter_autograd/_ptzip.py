"""The zip container of PyTorch checkpoints, written the way torch 2.13 writes it.

torch's ``PyTorchFileWriter`` (miniz) stores every record uncompressed under one top-level
folder, pads each local header with an ``FB`` extra field of ``Z`` bytes so that the data start
on a 64-byte boundary (storages can then be memory-mapped), follows each record with a data
descriptor, and ends with a zip64 end-of-central-directory record before the classic one.
:class:`Writer` produces that layout; reading uses the standard :mod:`zipfile` module, which
understands it, through :class:`Reader`.

Example:
    >>> import io
    >>> from jupyter_autograd._ptzip import Reader, Writer
    >>> buf = io.BytesIO()
    >>> with Writer(buf, "archive") as w:
    ...     w.write_record("data.pkl", b"payload")
    >>> r = Reader(io.BytesIO(buf.getvalue()))
    >>> r.get_record("data.pkl"), r.prefix
    (b'payload', 'archive')
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib

ALIGNMENT = 64
_U32 = 0xFFFFFFFF
_LOCAL = struct.Struct("<IHHHHHIIIHH")  # local file header (30 bytes)
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")  # central directory entry (46 bytes)
_DESCRIPTOR = struct.Struct("<IIII")
_ZIP64_EOCD = struct.Struct("<IQHHIIQQQQ")
_ZIP64_LOCATOR = struct.Struct("<IIQI")
_EOCD = struct.Struct("<IHHHHIIH")
_UTF8 = 0x0800  # names are UTF-8
_FLAGS = 0x0808  # ... and a data descriptor follows the data


class Writer:
    """Append records to a PyTorch checkpoint zip on a writable binary stream.

    Args:
        stream: the file object written to (only ``write`` is used, so any stream works).
        prefix: the archive folder (torch uses the file's name without its extension, or
            ``archive`` for buffers).
    """

    def __init__(self, stream, prefix: str) -> None:
        self.stream = stream
        self.prefix = prefix
        self.offset = 0
        self.entries: list[tuple[bytes, int, int, int]] = []  # name, crc, size, header offset

    def _put(self, data) -> None:
        self.stream.write(data)
        self.offset += len(data)

    def write_record(self, name: str, data) -> None:
        """Add ``prefix/name`` holding ``data`` (bytes or a contiguous array's buffer)."""
        view = memoryview(data).cast("B")
        size = view.nbytes
        if size >= _U32 or self.offset >= _U32:
            raise RuntimeError(f"torch.save: record {name!r} is too large for this writer (4 GiB)")
        full = f"{self.prefix}/{name}".encode()
        start = self.offset + _LOCAL.size + len(full) + 4
        pad = -start % ALIGNMENT
        extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
        header_at = self.offset
        flags = _FLAGS if size else _UTF8  # miniz writes no data descriptor for empty records
        self._put(_LOCAL.pack(0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0, len(full), len(extra)))
        self._put(full + extra)
        crc = zlib.crc32(view) & _U32
        self._put(view)
        if size:
            self._put(_DESCRIPTOR.pack(0x08074B50, crc, size, size))
        self.entries.append((full, crc, size, header_at))

    def close(self) -> None:
        """Write torch's closing records (``version``, ``.data/serialization_id``) and the
        central directory."""
        self.write_record("version", b"3\n")
        digits = str(int.from_bytes(os.urandom(17), "little"))[-40:].rjust(40, "0")
        self.write_record(".data/serialization_id", digits.encode("ascii"))
        cd_start = self.offset
        for full, crc, size, header_at in self.entries:
            self._put(
                _CENTRAL.pack(
                    0x02014B50,
                    0,
                    0,
                    _FLAGS if size else _UTF8,
                    0,
                    0,
                    0,
                    crc,
                    size,
                    size,
                    len(full),
                    0,
                    0,
                    0,
                    0,
                    0,
                    header_at,
                )
            )
            self._put(full)
        cd_size = self.offset - cd_start
        zip64_at = self.offset
        n = len(self.entries)
        self._put(_ZIP64_EOCD.pack(0x06064B50, 44, 0x031E, 45, 0, 0, n, n, cd_size, cd_start))
        self._put(_ZIP64_LOCATOR.pack(0x07064B50, 0, zip64_at, 1))
        self._put(_EOCD.pack(0x06054B50, 0, 0, n, n, cd_size, cd_start, 0))

    def __enter__(self) -> Writer:  # noqa: PYI034
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()


class Reader:
    """Records of a checkpoint zip by their names inside the archive folder."""

    def __init__(self, stream) -> None:
        self.zip = zipfile.ZipFile(stream)
        names = self.zip.namelist()
        if not names:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        self.prefix = names[0].split("/", 1)[0]
        self.names = {n.split("/", 1)[1]: n for n in names if "/" in n}

    def has_record(self, name: str) -> bool:
        return name in self.names

    def get_record(self, name: str) -> bytes:
        if name not in self.names:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found")
        return self.zip.read(self.names[name])

    def get_record_into(self, name: str) -> bytearray:
        """A record's bytes in a writable buffer (a tensor's storage)."""
        return bytearray(self.get_record(name))

    def record_offset(self, name: str) -> int:
        """Where a record's data starts in the file (for memory mapping)."""
        info = self.zip.getinfo(self.names[name])
        self.zip.fp.seek(info.header_offset)
        head = _LOCAL.unpack(self.zip.fp.read(_LOCAL.size))
        return info.header_offset + _LOCAL.size + head[-2] + head[-1]
