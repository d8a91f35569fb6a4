"""The persistent lexicon cache: written once, reused, never required, and never changes a result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = (
    "import json, sys, perturbations\n"
    "from perturbations import store\n"
    "r = perturbations.get_recipe('qads@2.0')\n"
    "p = r.perturb('Where was the ancient temple located by the explorers?', seed=3, key='q1')\n"
    "print(json.dumps([p.perturbed, [s.to_dict() for s in p.substitutions], store.save(), 'nltk' in sys.modules]))\n"
)


def _run_with_nltk(cache: str, home: Path, **env: str) -> tuple[str, list[object], bool, bool]:
    """(perturbed text, substitutions, whether the tables were written, whether NLTK was imported)."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=REPO,
        env=dict(os.environ, ROBUSTQA_CACHE=cache, HOME=str(home), **env),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    text, subs, saved, nltk = json.loads(done.stdout.strip().splitlines()[-1])
    return text, subs, saved, nltk


def _run(cache: str, home: Path) -> tuple[str, list[object], bool]:
    return _run_with_nltk(cache, home)[:3]


def test_cache_is_written_reused_rebuilt_when_corrupt_and_optional(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    cold = _run(str(folder), tmp_path)
    files = list(folder.glob("lexicon-*.pickle"))
    assert cold[2] is True  # the tables grew, so they were written
    assert len(files) == 1 and files[0].stat().st_size > 0
    warm = _run(str(folder), tmp_path)
    assert warm[:2] == cold[:2]
    assert warm[2] is False  # nothing new to write: every look-up came from the file
    files[0].write_bytes(b"not a pickle")
    rebuilt = _run(str(folder), tmp_path)
    assert rebuilt[:2] == cold[:2] and rebuilt[2] is True
    assert files[0].stat().st_size > 100  # rewritten
    off = _run("off", tmp_path)
    assert off[:2] == cold[:2] and off[2] is False
    assert cold[1], "the sentence must get at least one substitution for this test to mean anything"


def test_unwritable_cache_folder_is_not_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    text, subs, saved = _run(str(blocker / "cache"), tmp_path)
    assert saved is False and subs and text


def test_cache_file_name_follows_the_engine_source(tmp_path: Path, monkeypatch) -> None:
    """An edited engine must never read tables an older engine cached."""
    from perturbations import store

    monkeypatch.setenv("ROBUSTQA_CACHE", str(tmp_path))
    before = store.cache_path()
    engine = tmp_path / "engine-copy"
    package = Path(store.__file__).parent
    for source in package.rglob("*.py"):
        copy = engine / source.relative_to(package)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(source.read_bytes())
    monkeypatch.setattr(store, "__file__", str(engine / "store.py"))
    assert store.cache_path() == before  # same sources, same file
    # a constraint decides what the cached candidate tables hold: its subpackage counts too
    for edited in ("constraints/replacements.py", "wsd.py"):
        (engine / edited).write_bytes((engine / edited).read_bytes() + b"\n# edited\n")
        assert store.cache_path() != before, edited
        before = store.cache_path()


def test_a_warm_process_never_imports_nltk(tmp_path: Path) -> None:
    """`import nltk` costs about a second (it imports scipy.stats): with a warm cache nothing needs it."""
    cold = _run_with_nltk(str(tmp_path / "cache"), tmp_path)
    warm = _run_with_nltk(str(tmp_path / "cache"), tmp_path)
    off = _run_with_nltk("off", tmp_path)
    assert cold[3] is True and off[3] is True  # tables derived from NLTK's files
    assert warm[3] is False and warm[:2] == cold[:2] == off[:2]


def _stopword_script() -> str:
    return (
        "import json, sys\n"
        "from perturbations import lexicon, store\n"
        "lexicon.check_resources()\n"
        "print(json.dumps([store.resources_verified(), sorted(lexicon.stopwords()), store.save(), "
        "'nltk' in sys.modules]))\n"
    )


def _stopwords_run(tmp_path: Path, nltk_data: str) -> tuple[bool, list[str], bool, bool]:
    env = dict(os.environ, ROBUSTQA_CACHE=str(tmp_path / "cache"), HOME=str(tmp_path), NLTK_DATA=nltk_data)
    done = subprocess.run([sys.executable, "-c", _stopword_script()], cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    verified, words, saved, nltk = json.loads(done.stdout.strip().splitlines()[-1])
    return verified, words, saved, nltk


def test_changed_or_shadowed_nltk_data_is_asked_again(tmp_path: Path) -> None:
    """The cache vouches for NLTK's files by path, size and mtime; an edited file, or a copy NLTK would
    now find earlier on its path, makes the process ask NLTK again and rebuild what depends on it."""
    shared = os.environ["NLTK_DATA"]
    mine = tmp_path / "nltk_data"
    mine.mkdir()
    search = os.pathsep.join([str(mine), shared])
    first = _stopwords_run(tmp_path, search)
    assert first[0] is False and first[3] is True and first[2] is True  # cold: NLTK asked, tables written
    again = _stopwords_run(tmp_path, search)
    assert again[0] is True and again[3] is False and again[1] == first[1]  # warm: vouched for, no NLTK
    # a stopword list appears earlier on NLTK's path: it shadows the shared one
    (mine / "corpora" / "stopwords").mkdir(parents=True)
    english = mine / "corpora" / "stopwords" / "english"
    english.write_text("\n".join(first[1] + ["zeppelin"]) + "\n")
    shadowed = _stopwords_run(tmp_path, search)
    assert shadowed[0] is False and shadowed[3] is True and "zeppelin" in shadowed[1]
    assert _stopwords_run(tmp_path, search)[:2] == (True, shadowed[1])
    # the file is edited in place (size and mtime change)
    english.write_text("\n".join(first[1] + ["zeppelin", "blimp"]) + "\n")
    edited = _stopwords_run(tmp_path, search)
    assert edited[0] is False and "blimp" in edited[1]


def test_a_record_that_is_not_a_record_vouches_for_nothing() -> None:
    from perturbations import resources

    assert not any(
        resources.unchanged(bad) for bad in (None, {}, {"resources": []}, {"search_path": [], "resources": {}})
    )


def test_a_relative_nltk_data_path_is_vouched_for_too(tmp_path: Path) -> None:
    """NLTK_DATA may be relative (NLTK's pointers are absolute): the record must still match it."""
    shared = Path(os.environ["NLTK_DATA"]).resolve()
    relative = os.path.relpath(shared, REPO)
    first = _run_with_nltk(str(tmp_path / "cache"), tmp_path, NLTK_DATA=relative)
    second = _run_with_nltk(str(tmp_path / "cache"), tmp_path, NLTK_DATA=relative)
    assert first[3] is True and second[3] is False and second[:2] == first[:2]
