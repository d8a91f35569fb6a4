"""Train the judges of one-word edits (`perturbations/data/judge-1.json`, and judge 2, `judge-2.json`, which
follows judge 1) from the certification judgments.

The label is the strict one of the certified set: both reviewers say the edit keeps the meaning and neither
gives fluency 1. The four held-out articles (Normans, Computational complexity theory, Huguenot, Steam
engine) are never read for training: the pair tables, the trees and the calibration all come from the
other twelve. The architecture was chosen by cross-validation by article within those twelve
(`compare`), and the calibration is isotonic on out-of-fold scores, so a probability is a precision
measured on articles the trees had not seen. `compare` also scores candidates that were tried and not shipped
(see docs/engine.md, "What was tried after judge 1").

    NLTK_DATA=../shared/nltk_data python tools/train_judge.py compare   # the candidates, by article
    NLTK_DATA=../shared/nltk_data python tools/train_judge.py train     # write the judge
    NLTK_DATA=../shared/nltk_data python tools/train_judge.py train-2   # write judge 2 (needs robustqa[lm])
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _study: the judgments and what each sheet showed
import _study

from perturbations.judge import (
    FEATURES,
    JUDGE_2_FILE,
    JUDGE_FILE,
    SECOND_FEATURES,
    TABLE_NAMES,
    Edit,
    PairCounts,
    edit_features,
    load_judge,
    pair_features,
    pair_keys,
    predict_trees,
    vetted_facts,
)
from perturbations.lexicon import lemma_of, wn_pos
from perturbations.text import tag
from perturbations.variants import text_of, variant_text
from perturbations.wsd import bag, context_bag, posterior_names

HELD_OUT = ("Normans", "Computational_complexity_theory", "Huguenot", "Steam_engine")
SEED = 27
FOLDS = 4  # cross-validation folds, by article (three training articles each)
# the gradient-boosted trees: chosen by `compare` (cross-validation by article)
ROUNDS, DEPTH, RATE, L2, MIN_HESSIAN, BINS = 300, 4, 0.05, 1.0, 5.0, 32
# judge 2: the edits judge 1 gives at least GATE are scored again (chosen by cross-validation by article among
# GATES: `train-2` prints the table; docs/engine.md, "Judge 2"); the vetted table its second stage reads
GATE, GATES, VETTED = 0.5, (0.5, 0.6, 0.7, 0.8, 0.9, 0.95), "vetted-1"


@dataclass(frozen=True)
class Row:
    """One judged edit: where it comes from, the edit, and the strict two-reviewer label."""

    id: str
    source_id: str
    article: str
    question: str
    start: int
    end: int
    replacement: str
    label: bool


def judged_rows() -> tuple[list[Row], int]:
    """Every judged one-word edit of both review rounds, in variant-id order; and how many judged variants
    were left out because they change one word in several places (a word repeated in the question)."""
    from perturbations.text import tokenize

    verdicts, _ = _study.certified_verdicts()
    shown = _study.shown_variants()
    source = json.loads(_study.SOURCE.read_text(encoding="utf-8"))
    article_of = {qa["id"]: a["title"] for a in source["data"] for p in a["paragraphs"] for qa in p["qas"]}
    rows, skipped = [], 0
    for variant_id in sorted(verdicts):
        verdict = verdicts[variant_id]
        question, edited = shown[variant_id]["question"], shown[variant_id]["edited"]
        if verdict["variant"] is not None:
            subs = verdict["variant"]["substitutions"]
            if len(subs) != 1:
                skipped += 1
                continue
            start, end, replacement = subs[0]["start"], subs[0]["end"], subs[0]["replacement"]
        else:  # round 1's key names the variant only: the edit is where the two texts differ
            a, b = tokenize(question), tokenize(edited)
            i = 0
            while i < min(len(a), len(b)) and a[i][0] == b[i][0]:
                i += 1
            j = 0
            while j < min(len(a), len(b)) - i and a[-1 - j][0] == b[-1 - j][0]:
                j += 1
            old, new = a[i : len(a) - j], b[i : len(b) - j]
            if len(old) > 1 and old[0][0].lower() in ("a", "an") and new and new[0][0].lower() in ("a", "an"):
                old, new = old[1:], new[1:]  # the article before the word agreed with the replacement
            if len(old) != 1 or not new:
                skipped += 1
                continue
            start, end, replacement = old[0][1], old[0][2], edited[new[0][1] : new[-1][2]]
        rows.append(
            Row(
                id=variant_id,
                source_id=verdict["source_id"],
                article=article_of[verdict["source_id"]],
                question=question,
                start=start,
                end=end,
                replacement=replacement,
                label=bool(verdict["certified"]),
            )
        )
    return rows, skipped


def training_rows(rows: Iterable[Row]) -> list[Row]:
    """The rows the judge may learn from: none of a held-out article's questions."""
    return [r for r in rows if r.article not in HELD_OUT]


def data_hash(rows: Sequence[Row]) -> str:
    """A hash of the training rows (ids, edits, labels): the judge's signature names it."""
    digest = hashlib.sha256()
    for r in rows:
        digest.update(f"{r.id}\t{r.question}\t{r.start}\t{r.end}\t{r.replacement}\t{int(r.label)}\n".encode())
    return digest.hexdigest()[:16]


def edit_of(row: Row, tagged: dict[str, Any], paragraphs: dict[str, str]) -> Edit:
    """The edit as the engine would show it to the judge: the tagged question, the word, the replacement and
    the word's sense distribution (enhanced Lesk over the question and its paragraph, as the engine runs it)."""
    tokens = tagged.get(row.question)
    if tokens is None:
        tokens = tagged[row.question] = tag(row.question)
    index = next(i for i, t in enumerate(tokens) if t.start == row.start)
    token = tokens[index]
    pos = wn_pos(token.tag)
    lemma = lemma_of(token.text.lower(), pos) if pos is not None else None
    senses: tuple[tuple[str, float], ...] = ()
    if pos is not None and lemma is not None:
        context = bag(t.text for t in tokens) | context_bag(paragraphs[row.source_id])
        senses = tuple(posterior_names("enhanced-lesk", lemma, pos, context))
    return Edit(tokens, index, row.replacement, senses)


def count_tables(rows: Sequence[Row], edits: Sequence[Edit]) -> dict[str, dict[str, dict[str, list[int]]]]:
    """Per table, key -> article -> [judged, accepted]."""
    tables: dict[str, dict[str, dict[str, list[int]]]] = {name: {} for name in TABLE_NAMES}
    for row, edit in zip(rows, edits):
        token = edit.tokens[edit.index]
        for name, key in zip(TABLE_NAMES, pair_keys(token.text, token.tag, edit.replacement)):
            cell = tables[name].setdefault(key, {}).setdefault(row.article, [0, 0])
            cell[0] += 1
            cell[1] += int(row.label)
    return tables


def tables_without(
    counts: dict[str, dict[str, dict[str, list[int]]]], allowed: set[str], exclude: str | None
) -> tuple[PairCounts, ...]:
    """The pair tables summed over the `allowed` articles except `exclude`."""
    out = []
    for name in TABLE_NAMES:
        table: PairCounts = {}
        for key, by_article in counts[name].items():
            judged = sum(v[0] for a, v in by_article.items() if a in allowed and a != exclude)
            if judged:
                accepted = sum(v[1] for a, v in by_article.items() if a in allowed and a != exclude)
                table[key] = (judged, accepted)
        out.append(table)
    return tuple(out)


_EDIT_FEATURES: dict[int, list[float]] = {}


def base_rate(counts: dict[str, Any], allowed: set[str]) -> float:
    """The share of accepted edits in the allowed articles (what an unseen pair's rate is pulled towards)."""
    judged = accepted = 0
    for by_article in counts["pair"].values():
        for article, (n, k) in by_article.items():
            if article in allowed:
                judged += n
                accepted += k
    return accepted / judged


def feature_matrix(
    rows: Sequence[Row], edits: Sequence[Edit], counts: dict[str, Any], allowed: set[str], own_out: bool
) -> np.ndarray:
    """Features of `rows` with pair tables from the `allowed` articles; `own_out`: each row's own article's
    counts left out (training rows, so that the trees learn how pair statistics of unseen articles behave)."""
    base = base_rate(counts, allowed)
    cache: dict[str | None, tuple[PairCounts, ...]] = {}
    x = np.zeros((len(rows), len(FEATURES)))
    for i, (row, edit) in enumerate(zip(rows, edits)):
        key = row.article if own_out else None
        if key not in cache:
            cache[key] = tables_without(counts, allowed, key)
        fixed = _EDIT_FEATURES.get(id(edit))
        if fixed is None:
            fixed = _EDIT_FEATURES[id(edit)] = edit_features(edit)
        token = edit.tokens[edit.index]
        x[i] = fixed + pair_features(pair_keys(token.text, token.tag, edit.replacement), cache[key], base)
    return x


# ---- the learners: numpy alone, so that the package needs nothing else at inference


def bin_edges(x: np.ndarray, bins: int) -> list[np.ndarray]:
    edges = []
    for f in range(x.shape[1]):
        qs = np.unique(np.quantile(x[:, f], np.linspace(0, 1, bins + 1)[1:-1], method="lower"))
        edges.append(qs)
    return edges


def fit_trees(
    x: np.ndarray,
    y: np.ndarray,
    *,
    rounds: int = ROUNDS,
    depth: int = DEPTH,
    rate: float = RATE,
    l2: float = L2,
    min_hessian: float = MIN_HESSIAN,
    bins: int = BINS,
    seed: int = SEED,
    subsample: float = 0.8,
) -> dict[str, Any]:
    """Gradient-boosted trees for the log loss, on histograms of quantile bins (the arrays `predict_trees`
    reads). Deterministic for a seed: rows are subsampled per round by a generator from it."""
    rng = np.random.default_rng(seed)
    n, m = x.shape
    edges = bin_edges(x, bins)
    width = max(len(e) for e in edges) + 1
    binned = np.stack([np.searchsorted(edges[f], x[:, f], side="left") for f in range(m)], axis=1)
    flat = binned + np.arange(m) * width
    base = float(np.log(y.mean() / (1 - y.mean())))
    score = np.full(n, base)
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list[float] = []
    roots: list[int] = []

    def new_node() -> int:
        feature.append(-1)
        threshold.append(0.0)
        left.append(-1)
        right.append(-1)
        value.append(0.0)
        return len(feature) - 1

    for _ in range(rounds):
        p = 1 / (1 + np.exp(-score))
        g, h = p - y, p * (1 - p)
        sample = np.flatnonzero(rng.random(n) < subsample)
        root = new_node()
        roots.append(root)
        frontier = [(root, sample)]
        for level in range(depth + 1):
            nxt = []
            for node, idx in frontier:
                gs, hs = g[idx].sum(), h[idx].sum()
                value[node] = -rate * gs / (hs + l2)
                if level == depth or len(idx) < 2:
                    continue
                cells = flat[idx].ravel()
                gh = np.bincount(cells, np.repeat(g[idx], m), m * width)
                hh = np.bincount(cells, np.repeat(h[idx], m), m * width)
                gl = np.cumsum(gh.reshape(m, width), axis=1)
                hl = np.cumsum(hh.reshape(m, width), axis=1)
                gr, hr = gs - gl, hs - hl
                gain = gl**2 / (hl + l2) + gr**2 / (hr + l2) - gs**2 / (hs + l2)
                gain[(hl < min_hessian) | (hr < min_hessian)] = -np.inf
                for f in range(m):
                    gain[f, len(edges[f]) :] = -np.inf
                best = int(np.argmax(gain))
                f, b = divmod(best, width)
                if not np.isfinite(gain[f, b]) or gain[f, b] <= 1e-9:
                    continue
                feature[node], threshold[node] = f, float(edges[f][b])
                go_left = binned[idx, f] <= b
                left[node], right[node] = new_node(), new_node()
                nxt += [(left[node], idx[go_left]), (right[node], idx[~go_left])]
            frontier = nxt
        # the tree's values apply to every row, not only the sampled ones
        tree = {
            "base": np.array([0.0]),
            "feature": np.array(feature),
            "threshold": np.array(threshold),
            "left": np.array(left),
            "right": np.array(right),
            "value": np.array(value),
            "roots": np.array([root]),
        }
        score += predict_trees(tree, x)
    return {
        "base": base,
        "feature": feature,
        "threshold": threshold,
        "left": left,
        "right": right,
        "value": value,
        "roots": roots,
    }


def tree_arrays(trees: dict[str, Any]) -> dict[str, np.ndarray]:
    return {k: np.array([v] if k == "base" else v) for k, v in trees.items()}


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 400) -> tuple[np.ndarray, ...]:
    """L2-regularised logistic regression on standardised features (Newton steps)."""
    mean, std = x.mean(0), x.std(0) + 1e-9
    z = np.hstack([(x - mean) / std, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-z @ w))
        grad = z.T @ (p - y) / len(y) + l2 * np.r_[w[:-1], 0]
        hess = (z * (p * (1 - p))[:, None]).T @ z / len(y) + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return mean, std, w


def predict_logistic(model: tuple[np.ndarray, ...], x: np.ndarray) -> np.ndarray:
    mean, std, w = model
    return np.hstack([(x - mean) / std, np.ones((len(x), 1))]) @ w


def isotonic(scores: np.ndarray, y: np.ndarray, points: int = 64) -> tuple[list[float], list[float]]:
    """Pool-adjacent-violators on (score, label), thinned to at most `points` breakpoints for np.interp."""
    order = np.argsort(scores, kind="stable")
    s, t = scores[order], y[order].astype(float)
    blocks: list[list[float]] = []  # [sum, weight, min score, max score]
    for sv, tv in zip(s, t):
        blocks.append([tv, 1.0, sv, sv])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            a, b = blocks[-2], blocks.pop()
            a[0] += b[0]
            a[1] += b[1]
            a[3] = b[3]
    xs, ys = [], []
    for total, weight, low, high in blocks:
        xs += [low, high]
        ys += [total / weight] * 2
    keep = np.unique(np.linspace(0, len(xs) - 1, min(points, len(xs))).round().astype(int))
    return [round(float(xs[i]), 6) for i in keep], [round(float(ys[i]), 6) for i in keep]


# ---- measuring a scorer the way the recipe uses it: each question's best-scored edits


def frontier(rows: Sequence[Row], scores: np.ndarray, picks: int = 1) -> list[tuple[float, float, float, int]]:
    """(threshold, question coverage, precision of the picks, picks) as the threshold falls: a question is
    covered when its best edit clears the threshold, and up to `picks` of its edits that clear it are kept."""
    by_question: dict[str, list[tuple[float, bool, str]]] = {}
    for row, s in zip(rows, scores):
        by_question.setdefault(row.source_id, []).append((-float(s), not row.label, row.id))
    ranked = {q: sorted(v) for q, v in by_question.items()}
    thresholds = sorted({-v[0][0] for v in ranked.values()}, reverse=True)
    out = []
    n = len(ranked)
    for t in thresholds:
        kept = [e for v in ranked.values() for e in v[:picks] if -e[0] >= t]
        covered = sum(1 for v in ranked.values() if -v[0][0] >= t)
        good = sum(1 for e in kept if not e[1])
        out.append((t, covered / n, good / len(kept), len(kept)))
    return out


def precision_at(curve: Sequence[tuple[float, float, float, int]], coverage: float) -> float:
    """The precision at the first threshold whose coverage reaches `coverage`."""
    return next((p for _, c, p, _ in curve if c >= coverage), curve[-1][2])


def coverage_at(curve: Sequence[tuple[float, float, float, int]], precision: float) -> float:
    """The largest coverage whose precision is still at least `precision` (0 when none is)."""
    return max((c for _, c, p, _ in curve if p >= precision), default=0.0)


def auc(y: np.ndarray, s: np.ndarray) -> float:
    """ROC AUC (ties count half)."""
    order = np.argsort(s, kind="stable")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    pos = y.astype(bool)
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum()))


def pair_lookup(rows: Sequence[Row], edits: Sequence[Edit], counts: dict[str, Any], allowed: set[str]) -> np.ndarray:
    """The baseline: each edit's smoothed acceptance rate as a pair (lemma -> lemma) in the allowed articles."""
    x = feature_matrix(rows, edits, counts, allowed, own_out=False)
    return x[:, FEATURES.index("pair_rate")]


def folds_of(articles: Sequence[str]) -> list[set[str]]:
    order = sorted(articles)
    np.random.default_rng(SEED).shuffle(order)
    return [set(order[k::FOLDS]) for k in range(FOLDS)]


def vetted_features(edits: Sequence[Edit]) -> np.ndarray:
    """Two more features per edit, from the default recipe's table (`vetted-1`): the word has vetted synonyms,
    and the replacement is one of them (judge 2's second stage reads them)."""
    from perturbations.vetted import vetted_table

    table = vetted_table(VETTED)
    return np.array([vetted_facts(edit, table) for edit in edits], dtype=float).reshape(len(edits), 2)


def encoder_cosines(edits: Sequence[Edit]) -> np.ndarray:
    """The encoder's two cosines of every edit (`perturbations.edit_similarity`), as a build computes them: each
    question once, with its edits, in batches of many questions."""
    from perturbations.edit_similarity import EditSimilarity
    from perturbations.sentence_encoder import DEFAULT_ENCODER

    encoder = EditSimilarity.load(DEFAULT_ENCODER)  # the scorer a build's score table uses
    groups: dict[str, list[tuple[int, str]]] = {}
    for i, edit in enumerate(edits):
        groups.setdefault(text_of(edit.tokens), []).append((i, variant_text(edit.tokens, edit.index, edit.replacement)))
    items = list(groups.items())
    out = np.zeros((len(edits), 2))
    for first in range(0, len(items), 200):
        chunk = items[first : first + 200]
        found = encoder.score_many([(o, [v for _, v in vs]) for o, vs in chunk])
        for (_, vs), row in zip(chunk, found):
            for (i, _), pair in zip(vs, row):
                out[i] = pair
    return out


def out_of_fold(
    rows: Sequence[Row],
    edits: Sequence[Edit],
    counts: dict[str, Any],
    learner: str,
    more: np.ndarray | None = None,
    **params: Any,
) -> np.ndarray:
    """Each training row's score from a model fitted on the other folds' articles (`more`: extra feature
    columns, one row per training row)."""
    articles = sorted({r.article for r in rows})
    scores = np.zeros(len(rows))
    for fold in folds_of(articles):
        fit_idx = [i for i, r in enumerate(rows) if r.article not in fold]
        test_idx = [i for i, r in enumerate(rows) if r.article in fold]
        allowed = set(articles) - fold
        x_fit = feature_matrix([rows[i] for i in fit_idx], [edits[i] for i in fit_idx], counts, allowed, True)
        y_fit = np.array([rows[i].label for i in fit_idx], dtype=float)
        x_test = feature_matrix([rows[i] for i in test_idx], [edits[i] for i in test_idx], counts, allowed, False)
        if more is not None:
            x_fit, x_test = np.hstack([x_fit, more[fit_idx]]), np.hstack([x_test, more[test_idx]])
        if learner == "trees":
            scores[test_idx] = predict_trees(tree_arrays(fit_trees(x_fit, y_fit, **params)), x_test)
        elif learner == "logistic":
            scores[test_idx] = predict_logistic(fit_logistic(x_fit, y_fit), x_test)
        else:
            scores[test_idx] = x_test[:, FEATURES.index("pair_rate")]
    return scores


def report(name: str, rows: Sequence[Row], scores: np.ndarray) -> str:
    y = np.array([r.label for r in rows], dtype=float)
    top, three = frontier(rows, scores, 1), frontier(rows, scores, 3)
    return (
        f"{name:<34} AUC {auc(y, scores):.3f} | top pick: precision at 50% coverage "
        f"{100 * precision_at(top, 0.5):.1f}%, coverage at 95% precision {100 * coverage_at(top, 0.95):.1f}%, "
        f"at 90% {100 * coverage_at(top, 0.90):.1f}% | up to 3: precision at 50% {100 * precision_at(three, 0.5):.1f}%"
    )


def prepared(articles: Sequence[str] | None = None) -> tuple[list[Row], list[Edit], dict[str, Any]]:
    """The judged rows (of `articles` only, when given), their edits and the pair counts by article."""
    rows, skipped = judged_rows()
    if articles is not None:
        rows = [r for r in rows if r.article in articles]
    tagged: dict[str, Any] = {}
    source = json.loads(_study.SOURCE.read_text(encoding="utf-8"))
    paragraphs = {qa["id"]: p["context"] for a in source["data"] for p in a["paragraphs"] for qa in p["qas"]}
    edits = [edit_of(r, tagged, paragraphs) for r in rows]
    note = f"{skipped} edits of a repeated word left out, all articles"
    print(f"{len(rows)} judged one-word edits ({note})", file=sys.stderr)
    return rows, edits, count_tables(rows, edits)


def compare() -> None:
    rows, edits, counts = prepared()
    keep = [i for i, r in enumerate(training_rows(rows)) if True]
    train = training_rows(rows)
    train_edits = [e for r, e in zip(rows, edits) if r.article not in HELD_OUT]
    assert len(keep) == len(train_edits)
    print(f"cross-validation by article: {FOLDS} folds of the 12 training articles, {len(train)} edits")
    print(report("pair lookup", train, out_of_fold(train, train_edits, counts, "pairs")))
    print(report("logistic regression", train, out_of_fold(train, train_edits, counts, "logistic")))
    for params in ({"rounds": 150, "depth": 3}, {"rounds": 300, "depth": 4}, {"rounds": 300, "depth": 6}):
        label = "trees " + " ".join(f"{k}={v}" for k, v in params.items())
        print(report(label, train, out_of_fold(train, train_edits, counts, "trees", **params)), flush=True)
    vetted = vetted_features(train_edits)
    print(report("trees + vetted table (not shipped)", train, out_of_fold(train, train_edits, counts, "trees", vetted)))


def train(out: Path) -> None:
    rows, edits, counts = prepared()
    train_rows = training_rows(rows)
    train_edits = [e for r, e in zip(rows, edits) if r.article not in HELD_OUT]
    articles = sorted({r.article for r in train_rows})
    assert not set(articles) & set(HELD_OUT)
    allowed = set(articles)
    y = np.array([r.label for r in train_rows], dtype=float)
    oof = out_of_fold(train_rows, train_edits, counts, "trees")
    print(report("trees, out of fold", train_rows, oof), file=sys.stderr)
    x = feature_matrix(train_rows, train_edits, counts, allowed, own_out=True)
    trees = fit_trees(x, y)
    cal_x, cal_y = isotonic(oof, y)
    calibrated = np.interp(oof, cal_x, cal_y)
    curve = frontier(train_rows, calibrated, 1)
    for t in (0.8, 0.85, 0.9, 0.95):
        _, covered, precision, _ = min((c for c in curve if c[0] >= t), key=lambda c: c[0], default=(t, 0.0, 0.0, 0))
        print(
            f"out of fold, probability >= {t}: top pick {100 * precision:.1f}% right, {100 * covered:.1f}% covered",
            file=sys.stderr,
        )
    tables = tables_without(counts, allowed, None)
    document = {
        "format": "robustqa-judge-1",
        "label": "both reviewers same meaning, neither fluency 1 (studies/certified-1)",
        "training_data": data_hash(train_rows),
        "training_articles": articles,
        "training_questions": sorted({r.source_id for r in train_rows}),
        "training_edits": len(train_rows),
        "seed": SEED,
        "learner": {
            "rounds": ROUNDS,
            "depth": DEPTH,
            "rate": RATE,
            "l2": L2,
            "min_hessian": MIN_HESSIAN,
            "bins": BINS,
            "subsample": 0.8,
        },
        "features": list(FEATURES),
        "base_rate": round(base_rate(counts, allowed), 6),
        "calibration": {"x": cal_x, "y": cal_y},
        "trees": trees_document(trees),
        "tables": {name: {k: list(v) for k, v in sorted(table.items())} for name, table in zip(TABLE_NAMES, tables)},
    }
    out.write_text(json.dumps(document, separators=(",", ":"), sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)


def trees_document(trees: dict[str, Any]) -> dict[str, Any]:
    """A fitted ensemble as a weights file stores it (values rounded to 8 places)."""
    return {
        "base": round(trees["base"], 8),
        "feature": trees["feature"],
        "threshold": [round(t, 8) for t in trees["threshold"]],
        "left": trees["left"],
        "right": trees["right"],
        "value": [round(v, 8) for v in trees["value"]],
        "roots": trees["roots"],
    }


def cascade_scores(first: np.ndarray, second: np.ndarray, y: np.ndarray, gate: float) -> tuple[np.ndarray, Any]:
    """Judge 2's probabilities from out-of-fold scores: the second stage's, calibrated on the edits whose judge 1
    probability (`first`, calibrated) clears `gate`, for those; judge 1's below it. Also the calibration."""
    gated = first >= gate
    cal_x, cal_y = isotonic(second[gated], y[gated])
    return np.where(gated, np.interp(second, cal_x, cal_y), first), (cal_x, cal_y)


def train_second(out: Path) -> None:
    """Judge 2: judge 1 (the packaged file, trained on the same rows) gates which edits a second stage with the
    vetted table and the encoder's two cosines scores again. Prints the cascade out of fold at each of GATES."""
    from perturbations.sentence_encoder import DEFAULT_ENCODER, encoder_identity

    rows, edits, counts = prepared()
    train_rows = training_rows(rows)
    train_edits = [e for r, e in zip(rows, edits) if r.article not in HELD_OUT]
    articles = sorted({r.article for r in train_rows})
    assert not set(articles) & set(HELD_OUT)
    first = load_judge()
    if data_hash(train_rows) != first.data_hash:
        raise SystemExit("the packaged judge 1 was trained on other rows; train it first (train)")
    y = np.array([r.label for r in train_rows], dtype=float)
    more = np.hstack([vetted_features(train_edits), encoder_cosines(train_edits)])
    print("encoded", file=sys.stderr, flush=True)
    oof1 = out_of_fold(train_rows, train_edits, counts, "trees")
    x1, y1 = isotonic(oof1, y)
    p1 = np.interp(oof1, x1, y1)
    oof2 = out_of_fold(train_rows, train_edits, counts, "trees", more)
    lookup = out_of_fold(train_rows, train_edits, counts, "pairs")
    coverages = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
    reference = [precision_at(frontier(train_rows, lookup, 1), c) for c in coverages]
    print("out of fold, top-pick precision (%) at 10-60% coverage; min gain over the lookup; coverage at 95%")
    print(f"{'pair lookup':<26} AUC {auc(y, lookup):.3f} | " + " ".join(f"{100 * p:5.1f}" for p in reference))
    for name, scores in [("judge 1", p1)] + [
        (f"judge 2, gate {g} ({100 * (p1 >= g).mean():.0f}% enc.)", cascade_scores(p1, oof2, y, g)[0]) for g in GATES
    ]:
        curve = frontier(train_rows, scores, 1)
        at = [precision_at(curve, c) for c in coverages]
        gain = min(a - b for a, b in zip(at, reference))
        print(
            f"{name:<26} AUC {auc(y, scores):.3f} | "
            + " ".join(f"{100 * p:5.1f}" for p in at)
            + f" | {100 * gain:+.1f} | {100 * coverage_at(curve, 0.95):.1f}%",
            flush=True,
        )
    _, (cal_x, cal_y) = cascade_scores(p1, oof2, y, GATE)
    x = np.hstack([feature_matrix(train_rows, train_edits, counts, set(articles), own_out=True), more])
    trees = fit_trees(x, y)
    document = {
        "format": "robustqa-judge-2",
        "label": "both reviewers same meaning, neither fluency 1 (studies/certified-1)",
        "first_stage": first.identity,
        "gate": GATE,
        "vetted": VETTED,
        "encoder": DEFAULT_ENCODER,
        "encoder_identity": encoder_identity(DEFAULT_ENCODER),
        "training_data": data_hash(train_rows),
        "training_articles": articles,
        "training_edits": len(train_rows),
        "seed": SEED,
        "learner": {"rounds": ROUNDS, "depth": DEPTH, "rate": RATE, "l2": L2, "min_hessian": MIN_HESSIAN, "bins": BINS},
        "features": list(SECOND_FEATURES),
        "calibration": {"x": cal_x, "y": cal_y},
        "trees": trees_document(trees),
    }
    out.write_text(json.dumps(document, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("compare", help="cross-validate the candidate learners by article on the training articles")
    sub.add_parser("train", help="train the judge and write perturbations/data/judge-1.json")
    sub.add_parser("train-2", help="train judge 2 after judge 1 and write perturbations/data/judge-2.json")
    args = parser.parse_args()
    if args.command == "compare":
        compare()
    elif args.command == "train-2":
        train_second(JUDGE_2_FILE)
    else:
        train(JUDGE_FILE)


if __name__ == "__main__":
    main()
