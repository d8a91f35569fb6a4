"""What a local model is, from what its files hold: one id for run signatures and score caches alike.

Why content, not path and time: the same checkpoint copied to another folder or machine must get the same
id (signatures agree, a cache carries over), and a rewritten file must get a new one (old scores are never
reused for new weights).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".h5", ".msgpack", ".gguf")
_SAMPLES = 16  # windows read from a large file, evenly spaced from its first byte to its last
_WINDOW = 1 << 16  # bytes per window


def content_digest(path: Path) -> bytes:
    """The file's size and its bytes: all of them for a small file, `_SAMPLES` evenly spaced windows of a
    large one (every tensor of a fine-tuned checkpoint differs from its parent's, so windows tell weights
    apart without reading gigabytes)."""
    size = path.stat().st_size
    digest = hashlib.sha256(f"{size}:".encode())
    with path.open("rb") as handle:
        if size <= 2 * _SAMPLES * _WINDOW:
            digest.update(handle.read())
        else:
            for i in range(_SAMPLES):
                handle.seek(i * (size - _WINDOW) // (_SAMPLES - 1))
                digest.update(handle.read(_WINDOW))
    return digest.digest()


def folder_fingerprint(folder: Path) -> str:
    """16 hex digits from a model folder's config, tokenizer and weight files, by name and content."""
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        if not path.is_file():
            continue
        if path.name == "config.json" or path.suffix in WEIGHT_SUFFIXES or path.name.startswith(("tokenizer", "vocab")):
            digest.update(path.name.encode("utf-8"))
            digest.update(content_digest(path))
    return digest.hexdigest()[:16]


def file_fingerprint(path: Path) -> str:
    """16 hex digits from one model file (a GGUF checkpoint), by name and content."""
    return hashlib.sha256(path.name.encode("utf-8") + content_digest(path)).hexdigest()[:16]
