"""A GGUF file's header read without loading the model: the tensors it lists say how long the
file must be, so a file cut short (an interrupted download or copy) is named as such. llama.cpp
refuses such a file too, but says only "Failed to load model from file"."""

import mmap
import struct
from functools import lru_cache
from pathlib import Path

# ggml type id -> (elements per block, bytes per block), as libggml's ggml_blck_size and
# ggml_type_size report them (ids 4, 5, 31-33 and 36-38 are removed types).
BLOCKS = {
    0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
    9: (32, 36), 10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210),
    15: (256, 292), 16: (256, 66), 17: (256, 74), 18: (256, 98), 19: (256, 50), 20: (32, 18),
    21: (256, 110), 22: (256, 82), 23: (256, 136), 24: (1, 1), 25: (1, 2), 26: (1, 4),
    27: (1, 8), 28: (1, 8), 29: (256, 56), 30: (1, 2), 34: (256, 54), 35: (256, 66),
    39: (32, 17), 40: (64, 36), 41: (128, 18),
}  # fmt: skip
# GGUF metadata value types with a fixed size in bytes (8 is a string, 9 an array)
SCALARS = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
STRING, ARRAY = 8, 9
DEFAULT_ALIGNMENT = 32


class Header:
    """A cursor over the start of a GGUF file; reading past the file's end is an IndexError."""

    def __init__(self, data):
        self.data, self.at = data, 0

    def read(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.at + size > len(self.data):
            raise IndexError("past the end of the file")
        (value,) = struct.unpack_from(fmt, self.data, self.at)
        self.at += size
        return value

    def string(self) -> bytes:
        length = self.read("<Q")
        if self.at + length > len(self.data):
            raise IndexError("past the end of the file")
        self.at += length
        return bytes(self.data[self.at - length : self.at])

    def skip_value(self, kind: int) -> None:
        if kind == STRING:
            self.string()
        elif kind == ARRAY:
            item_kind, count = self.read("<I"), self.read("<Q")
            if item_kind in SCALARS:
                self.at += SCALARS[item_kind] * count
            else:
                for _ in range(count):
                    self.skip_value(item_kind)
        elif kind in SCALARS:
            self.at += SCALARS[kind]
        else:
            raise ValueError(f"unknown metadata type {kind}")


def required_size(data) -> int:
    """The bytes a GGUF file (given as a buffer) needs to hold all its tensors; an IndexError
    when the buffer ends inside the header. Tensors of a type not in BLOCKS count as empty."""
    header = Header(data)
    if header.read("<4s") != b"GGUF" or header.read("<I") < 2:
        raise ValueError("not a GGUF file of version 2 or later")
    tensors, entries = header.read("<Q"), header.read("<Q")
    alignment = DEFAULT_ALIGNMENT
    for _ in range(entries):
        key, kind = header.string(), header.read("<I")
        if key == b"general.alignment" and kind == 4:
            alignment = header.read("<I")
        else:
            header.skip_value(kind)
    end = 0
    for _ in range(tensors):
        header.string()
        shape = [header.read("<Q") for _ in range(header.read("<I"))]
        kind, offset = header.read("<I"), header.read("<Q")
        elements = 1
        for length in shape:
            elements *= length
        per_block, block_bytes = BLOCKS.get(kind, (1, 0))
        end = max(end, offset + elements // per_block * block_bytes)
    data_start = -(-header.at // alignment) * alignment
    return data_start + end


def truncation(path: Path) -> str | None:
    """How the GGUF file at `path` is cut short, or None when it is as long as its header says
    (or its header cannot be understood: llama.cpp then says what is wrong)."""
    stat = path.stat()
    return _truncation(path, stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=8)  # checked before every answer: a 1 GB model's header takes ~0.1 s
def _truncation(path: Path, size: int, _mtime_ns: int) -> str | None:
    if size == 0:
        return "the file is empty"
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        try:
            needed = required_size(data)
        except IndexError:
            return f"the file ({size:,} bytes) ends inside its GGUF header"
        except (ValueError, OverflowError, MemoryError):
            return None
    if needed > size:
        return f"its tensors need {needed:,} bytes but the file has {size:,}"
    return None
