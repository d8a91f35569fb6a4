"""Where NLTK's data (WordNet, stopwords, the tagger) lives, and whether it changed since we last looked.

Why: `import nltk` imports much of the scientific stack (scipy.stats, among much else), which a process
that only reads cached tables does not need. The engine's persistent cache (store.py) already
holds every table the engine derives from these files, so with a warm cache NLTK itself is not needed,
except to say where its data is. This module records NLTK's answer (its search path, which entry held
each resource, and the size and mtime of every file) next to the tables, and later checks that record
with a few `os.stat` calls instead of importing NLTK. The check is conservative: any doubt (a file
changed, a copy of the resource appeared in an earlier search-path entry, NLTK already imported with
a different search path) makes the caller ask NLTK again.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from perturbations.errors import MissingResourceError

# name -> (NLTK resource names tried in order, folder names whose presence earlier on the path means
# "ask NLTK", install command)
RESOURCES: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "wordnet": (
        ("corpora/wordnet", "corpora/wordnet.zip/wordnet/"),
        ("corpora/wordnet", "corpora/wordnet.zip"),
        "python -m nltk.downloader wordnet",
    ),
    "stopwords": (
        ("corpora/stopwords/english",),
        ("corpora/stopwords", "corpora/stopwords.zip"),
        "python -m nltk.downloader stopwords",
    ),
    "tagger": (
        ("taggers/averaged_perceptron_tagger_eng/",),
        ("taggers/averaged_perceptron_tagger_eng", "taggers/averaged_perceptron_tagger_eng.zip"),
        "python -m nltk.downloader averaged_perceptron_tagger_eng",
    ),
}


def find(name: str) -> Any:
    """NLTK's path pointer for a resource (imports NLTK); MissingResourceError when it is not installed."""
    import nltk.data

    names, _, install = RESOURCES[name]
    for resource in names:
        try:
            return nltk.data.find(resource)
        except LookupError:
            continue
    raise MissingResourceError(install.split()[-1], install)  # NLTK's package id, as the downloader names it


def location(pointer: Any) -> str:
    """The file or folder a pointer stands for (the archive, for a resource inside a zip file)."""
    zipped = getattr(getattr(pointer, "zipfile", None), "filename", None)
    return str(zipped or getattr(pointer, "path", None) or pointer)


def stat_files(path: str) -> list[str]:
    """path, size and mtime of a resource's files (of the one file, or of every file in its folder)."""
    files = [os.path.join(path, n) for n in sorted(os.listdir(path))] if os.path.isdir(path) else [path]
    out = []
    for f in files:
        try:
            st = os.stat(f)
            out.append(f"{f}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            out.append(f"{f}:?")
    return out


def _entry_index(search_path: list[str], path: str) -> int | None:
    """Which search-path entry holds `path` (entries may be relative; NLTK's pointers are absolute)."""
    for i, entry in enumerate(search_path):
        if os.path.abspath(path).startswith(os.path.join(os.path.abspath(entry), "")):
            return i
    return None


def record() -> dict[str, Any]:
    """NLTK's view of the three resources now (imports NLTK); MissingResourceError names the first missing."""
    import nltk.data

    search_path = [str(p) for p in nltk.data.path]
    found = {}
    for name in RESOURCES:
        path = location(find(name))
        found[name] = {"location": path, "entry": _entry_index(search_path, path), "files": stat_files(path)}
    return {"search_path": search_path, "resources": found}


def unchanged(saved: Any) -> bool:
    """Whether NLTK would find the same, unmodified files that `saved` (a `record()`) lists; never imports NLTK."""
    if not isinstance(saved, dict) or not isinstance(saved.get("resources"), dict):
        return False
    search_path = saved.get("search_path")
    loaded = sys.modules.get("nltk.data")
    if loaded is not None and [str(p) for p in loaded.path] != search_path:
        return False  # NLTK is imported and its path was changed in this process
    if set(saved["resources"]) != set(RESOURCES):
        return False
    for name, (_, folders, _) in RESOURCES.items():
        entry = saved["resources"][name]
        index = entry.get("entry")
        if index is None or stat_files(entry["location"]) != entry["files"]:
            return False
        for earlier in (search_path or [])[:index]:
            if any(os.path.exists(os.path.join(earlier, folder)) for folder in folders):
                return False  # a copy NLTK would now prefer (or refuse): ask NLTK
    return True
