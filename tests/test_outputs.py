"""Every output file, text or chart, is written atomically with ordinary permissions."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from robustqa.errors import OutputError
from robustqa.outputs import write_bytes_atomic


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_chart_gets_the_same_permissions_as_text_files(tmp_path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robustqa.outputs import write_json_atomic
    from robustqa.reporting.charts import png_bytes

    figure = plt.figure()
    write_bytes_atomic(tmp_path / "chart.png", png_bytes(figure))
    plt.close(figure)
    write_json_atomic(tmp_path / "report.json", {"a": 1})
    umask = os.umask(0)
    os.umask(umask)
    assert _mode(tmp_path / "chart.png") == _mode(tmp_path / "report.json") == 0o666 & ~umask
    assert (tmp_path / "chart.png").read_bytes().startswith(b"\x89PNG")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart.png", "report.json"]  # no temporary files left


def test_missing_folder_is_a_one_line_error_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="does not exist"):
        write_bytes_atomic(tmp_path / "missing" / "x.bin", b"data")
    assert list(tmp_path.iterdir()) == []


def test_a_run_folder_that_cannot_be_made_is_one_line_that_names_it(tmp_path: Path) -> None:
    """A run folder below a file: the one-line error of every output folder, naming the folder and the setting."""
    from robustqa.runs.schema import RunReport
    from robustqa.runs.write import write_run

    (tmp_path / "a-file").write_text("")
    folder = tmp_path / "a-file" / "run"
    report = RunReport(
        signature="signature",
        rules="2.0",
        shift=None,
        clean_file="clean.json",
        perturbed_file=None,
        clean_signature=None,
        perturbed_signature=None,
        settings={},
        models=(),
    )
    with pytest.raises(OutputError) as caught:
        write_run(folder, report, [], [])
    expected = f"{folder}: cannot write the run folder ({os.strerror(errno.ENOTDIR)}); choose another folder"
    assert str(caught.value) == expected
    assert caught.value.setting == "output_dir" and caught.value.__suppress_context__  # no chained traceback
