"""The persistent lexicon cache: written once, reused, never required, and never changes a result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = (
    "import json, perturbations\n"
    "from perturbations import store\n"
    "r = perturbations.get_recipe('qads')\n"
    "p = r.perturb('Where was the ancient temple located by the explorers?', seed=3, key='q1')\n"
    "print(json.dumps([p.text, [s.to_dict() for s in p.substitutions], store.save()]))\n"
)


def _run(cache: str, home: Path) -> tuple[str, list[object], bool]:
    env = dict(os.environ, ROBUSTQA_CACHE=cache, HOME=str(home))
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text, subs, saved = json.loads(done.stdout.strip().splitlines()[-1])
    return text, subs, saved


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
    engine.mkdir()
    for source in Path(store.__file__).parent.glob("*.py"):
        (engine / source.name).write_bytes(source.read_bytes())
    monkeypatch.setattr(store, "__file__", str(engine / "store.py"))
    assert store.cache_path() == before  # same sources, same file
    (engine / "wsd.py").write_bytes((engine / "wsd.py").read_bytes() + b"\n# edited\n")
    assert store.cache_path() != before
