"""The charts read: no two labels of one figure overlap, small groups are not drawn as bars, the drop axis
holds zero and the data (so a half-point drop shows), and models are named short."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

from robustqa.reporting import analysis, charts, tables
from robustqa.runs import load_run


def _overlaps(figure) -> list[tuple[str, str]]:
    """Pairs of visible, non-empty texts of the figure whose drawn boxes intersect."""
    from matplotlib.text import Text

    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    texts = [
        t
        for t in figure.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.get_window_extent(renderer).width > 0
    ]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    return [(a, b) for (a, box_a), (b, box_b) in combinations(boxes, 2) if box_a.overlaps(box_b)]


def test_no_two_labels_of_a_figure_overlap(synthetic_run: Path) -> None:
    run = load_run(synthetic_run)
    rows = tables.model_rows([run])
    model = run.models[0]
    panels = [(analysis.breakdown(run, by, model), f"F1 drop by {by}") for by in analysis.BREAKDOWNS]
    for name, figure in (
        ("headline", charts.headline_figure(rows)),
        ("breakdowns", charts.breakdowns_figure(panels)),
        ("cost", charts.cost_figure(rows)),
    ):
        assert not _overlaps(figure), (name, _overlaps(figure)[:3])


def test_small_groups_are_named_but_not_drawn(synthetic_run: Path) -> None:
    run = load_run(synthetic_run)
    rows = [
        {"group": "big", "n": 40, "drop_f1": -5.0, "drop_f1_ci": (-9.0, -1.0)},
        {"group": "one", "n": 1, "drop_f1": -100.0, "drop_f1_ci": None},
    ]
    figure = charts.breakdown_figure(rows, "by something")
    ax = figure.axes[0]
    widths = [patch.get_width() for patch in ax.patches]
    assert widths == [-5.0, 0.0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["big (n=40)", "one (n=1, too few to draw)"]
    assert charts.MIN_GROUP == 10
    assert run  # the fixture's run loads


def test_the_drop_axis_holds_zero_and_the_data_and_names_models_short(synthetic_run: Path) -> None:
    run = load_run(synthetic_run)
    figure = charts.headline_figure(tables.model_rows([run]))
    f1 = figure.axes[1]
    low, high = f1.get_xlim()
    drops = [entry["drop"] for entry in run.report["models"]]
    assert low < min(d["f1_ci"][0] for d in drops) and high > 0
    assert high - low < 100  # scaled to the data, not 0..100
    assert any(line.get_xdata()[0] == 0.0 for line in f1.get_lines())  # zero is marked
    ticks = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    assert ticks == [tables.short_model_name(m) for m in run.models]
    assert tables.short_model_name("../shared/models/minilm-squad2-mini") == "minilm-squad2-mini"
    assert tables.short_model_name("deepset/roberta-base-squad2") == "deepset/roberta-base-squad2"
