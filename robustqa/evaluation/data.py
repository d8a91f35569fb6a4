"""The data of an evaluation, checked before any model loads: clean questions, perturbed questions matched
to them, what changed, which SQuAD rules score them and which shift they are.

Everything that can be wrong with the inputs (unreadable files, duplicate ids, perturbed questions that
match no clean question, an empty set, a SQuAD v1.1 file beside a SQuAD 2.0 one) fails here, before any
model is downloaded or loaded.

Rules: a file without unanswerable questions is a SQuAD v1.1 file, scored with the v1.1 rules (the model
always answers); a file with some is scored with the SQuAD 2.0 rules. Both files of a run must be of one
kind, since a drop between two rule sets would measure the rules. Detection looks at the whole files, so
a limit on the questions never changes the rules.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from perturbations.edit_kinds import EDIT_KINDS
from robustqa.errors import InputError
from robustqa.metric import RULES, RULES_V1, RULES_V2
from robustqa.review.status import ReviewStatus, status_of_file
from robustqa.signature import Signature
from robustqa.squad import Article, QAExample, SquadDataset, check_unique_ids, load_squad
from robustqa.stats import match_to_clean


@dataclass(frozen=True)
class EvalData:
    """The validated inputs: clean examples, perturbed examples matched to them, and what changed."""

    clean: list[QAExample]
    perturbed: list[QAExample] | None
    mapping: dict[str, str]  # perturbed id -> clean id
    changed: dict[str, bool]  # perturbed id -> question or context differs from its clean question
    context_changed: dict[str, bool]
    clean_sha: str
    perturbed_sha: str | None
    # the shift: a robustqa recipe or an imported set (`qads@1.1`, `addsent@1`); None for clean SQuAD alone
    recipe: str | None
    perturbed_signature: str | None
    rules: str = RULES_V2  # robustqa.metric.RULES_V2 or RULES_V1
    clean_signature: str | None = None
    review: ReviewStatus | None = None  # whether people reviewed the perturbed set; None without one
    kinds: tuple[str, ...] | None = None  # the edit kinds a variant must be made of to count; None: every variant
    articles: tuple[str, ...] | None = None  # the article titles the run keeps; None: every article
    exclude_articles: tuple[str, ...] | None = None  # the titles it leaves out
    evaluated_articles: tuple[Article, ...] = ()  # the clean articles with a question in the run (the overlap check)
    # the edit kinds the headline counts among the variants kept (every variant is still evaluated and broken
    # down); None: the headline counts every variant kept
    headline_kinds: tuple[str, ...] | None = None

    @property
    def clean_by_id(self) -> dict[str, QAExample]:
        return {ex.id: ex for ex in self.clean}

    @property
    def counted_kinds(self) -> tuple[str, ...] | None:
        """The edit kinds the headline covers: `headline_kinds`, else the kinds selected, else None (every kind)."""
        return self.headline_kinds or self.kinds


def file_sha12(path: Path) -> str:
    """The first 12 hex digits of a file's SHA-256: the data's identity in signatures and cache keys."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def recipe_of(dataset: SquadDataset) -> tuple[str | None, str | None]:
    """(what made the file, its signature): the recipe of a robustqa-built file (`qads@1.1`), of an adversarial
    set `robustqa attack` wrote (`attack:qads@1.1`), the shift of an imported one (`addsent@1`, from `shift:` in
    its signature); (None, None) for any other file."""
    build_signature = dataset.extra.get("signature")
    meta = dataset.extra.get("robustqa")
    recipe = None
    if isinstance(meta, dict):
        info = meta.get("recipe")
        if isinstance(info, dict) and info.get("name"):
            recipe = f"{info['name']}@{info.get('version', '?')}"
            if isinstance(meta.get("attack"), dict):  # `robustqa attack`'s adversarial set: searched against a model
                recipe = f"attack:{recipe}"
        elif isinstance(meta.get("signature"), dict):
            recipe = meta["signature"].get("recipe")
    if recipe is None and isinstance(build_signature, str):
        try:
            parsed = Signature.parse(build_signature)
            recipe = parsed.get("recipe") or parsed.get("shift")
        except ValueError:
            recipe = None
    return recipe, build_signature if isinstance(build_signature, str) else None


def clean_only_shift(dataset: SquadDataset) -> str | None:
    """The shift a clean file *is* (`squad-shifts@1`): an imported set of new questions with nothing to pair
    with. None for clean SQuAD, including the original questions an importer of a paired set (AddSent) wrote."""
    from robustqa.importers import importer_of_shift

    shift, _ = recipe_of(dataset)
    if shift is None:
        return None
    importer = importer_of_shift(shift)
    return None if importer is not None and importer.paired else shift


def first_unanswerable(dataset: SquadDataset) -> tuple[int, str | None]:
    """How many questions of the file have no gold answer, and where the first is (article, question id)."""
    count, first = 0, None
    for example in dataset.iter_examples():
        if not example.answers:
            count += 1
            first = first or f"article '{example.title}', question {example.id}"
    return count, first


def choose_rules(requested: str, clean: SquadDataset, perturbed: SquadDataset | None) -> str:
    """The SQuAD rules of a run: `requested` ("auto", "1.1" or "2.0"), "auto" detected from the files.

    A SQuAD v1.1 file beside a SQuAD 2.0 one is refused under "auto"; "1.1" is refused for a file with
    unanswerable questions (v1.1 rules cannot score them); "2.0" scores any file.
    """
    if requested not in ("auto", *RULES):
        raise InputError(
            f"unknown SQuAD rules '{requested}'", hint=f"use auto, {RULES_V1} or {RULES_V2}", setting="rules"
        )
    files = [(clean, "clean"), *([(perturbed, "perturbed")] if perturbed is not None else [])]
    found = [(dataset, role, *first_unanswerable(dataset)) for dataset, role in files]
    if requested == RULES_V2:
        return RULES_V2
    if requested == RULES_V1:
        for dataset, role, count, first in found:
            if count:
                raise InputError(
                    f"the {role} file has {count} unanswerable question{'s' if count > 1 else ''}, which SQuAD v1.1 "
                    "rules cannot score",
                    path=dataset.path,
                    where=first,
                    hint="score it with the SQuAD 2.0 rules",
                    setting="rules",
                )
        return RULES_V1
    kinds = {role: (RULES_V2 if count else RULES_V1) for _, role, count, _ in found}
    if len(set(kinds.values())) > 1:
        dataset, role, count, first = next(item for item in found if item[2])
        other = "perturbed" if role == "clean" else "clean"
        raise InputError(
            f"the {role} file has {count} unanswerable question{'s' if count > 1 else ''} (SQuAD 2.0) but the {other} "
            "file has none (SQuAD v1.1): one run scores both with one set of rules",
            path=dataset.path,
            where=first,
            hint="score both with the SQuAD 2.0 rules, or give two files of one kind",
            setting="rules",
        )
    return kinds["clean"]


def check_kinds(kinds: Collection[str]) -> tuple[str, ...]:
    """The selected edit kinds in their canonical order, or an `InputError` naming an unknown one."""
    unknown = sorted(set(kinds) - set(EDIT_KINDS))
    if unknown or not kinds:
        raise InputError(
            f"unknown edit kind '{unknown[0]}'" if unknown else "no edit kind selected",
            hint=f"choose among {', '.join(EDIT_KINDS)}",
            setting="kinds",
        )
    return tuple(kind for kind in EDIT_KINDS if kind in kinds)


def of_kinds(example: QAExample, kinds: Collection[str]) -> bool:
    """Whether a variant counts under `kinds`: every edit that made it is of a selected kind (a record without its
    kind is classified from its two words)."""
    return all(edit.classified().kind in kinds for edit in example.edits)


def _select_kinds(
    perturbed: list[QAExample], changed: dict[str, bool], kinds: tuple[str, ...], path: Path
) -> list[QAExample]:
    edited = [ex for ex in perturbed if changed[ex.id]]
    if edited and not any(ex.edits for ex in edited):
        raise InputError(
            "its variants carry no edit records, so edit kinds cannot select among them",
            path=str(path),
            hint="evaluate every variant, or give a file robustqa built",
            setting="kinds",
        )
    kept = [ex for ex in perturbed if not changed[ex.id] or of_kinds(ex, kinds)]
    if not any(changed[ex.id] for ex in kept):
        raise InputError(
            f"no changed variant is made only of {', '.join(kinds)} edits",
            path=str(path),
            hint="select more edit kinds",
            setting="kinds",
        )
    return kept


def _unknown_titles(titles: Collection[str], dataset: SquadDataset, role: str) -> None:
    known = [article.title for article in dataset.articles]
    missing = [title for title in titles if title not in set(known)]
    if missing:
        close = difflib.get_close_matches(missing[0], known, n=1)
        suggestion = f"did you mean '{close[0]}'? " if close else ""
        raise InputError(
            f"no article titled {', '.join(repr(t) for t in missing[:5])}{' ...' if len(missing) > 5 else ''} "
            f"in the {role} file",
            path=dataset.path,
            hint=f"{suggestion}titles are the files' 'title' fields ({len(known)} articles, e.g. '{known[0]}')",
        )


def select_articles(
    dataset: SquadDataset, articles: Collection[str] | None, exclude: Collection[str] | None
) -> SquadDataset:
    """The dataset with only the `articles` (all when None) not in `exclude`; an unknown title is an error, and so is
    a selection that leaves nothing."""
    for titles in (articles, exclude):
        if titles:
            _unknown_titles(titles, dataset, "clean")
    kept = tuple(
        a
        for a in dataset.articles
        if (articles is None or a.title in set(articles)) and (exclude is None or a.title not in set(exclude))
    )
    if not kept:
        raise InputError(
            "the article selection leaves no question", path=dataset.path, hint="keep at least one article"
        )
    return SquadDataset(kept, dataset.version, dataset.extra, dataset.path)


def _load(path: Path, role: str) -> SquadDataset:
    dataset = load_squad(path)
    check_unique_ids(dataset)
    if len(dataset) == 0:
        raise InputError(
            f"the {role} file has no questions", path=str(path), hint="give a SQuAD 2.0 file with questions"
        )
    return dataset


def load_eval_data(
    clean_file: Path,
    perturbed_file: Path | None,
    *,
    limit: int | None = None,
    rules: str = "auto",
    decisions: Sequence[Path] = (),
    kinds: Collection[str] | None = None,
    articles: Collection[str] | None = None,
    exclude_articles: Collection[str] | None = None,
    headline_kinds: Collection[str] | None = None,
) -> EvalData:
    """Read and cross-check the clean and perturbed files; `limit` keeps the first N clean questions;
    `rules` ("auto", "1.1", "2.0") chooses the SQuAD rules (see `choose_rules`); `decisions` are review
    decisions files made on the perturbed file (`robustqa review`), read and checked here too. `kinds` keeps
    only the variants made entirely of those edit kinds (`perturbations.edit_kinds`); `headline_kinds` keeps
    every variant but has the headline count only those made of its kinds (some must be); `articles` and
    `exclude_articles` select the clean file's articles by title, before `limit` counts questions."""
    if limit is not None and limit < 1:
        raise InputError(f"limit {limit} leaves no questions", hint="give a positive number")
    selected_kinds = check_kinds(kinds) if kinds is not None else None
    counted_kinds = check_kinds(headline_kinds) if headline_kinds is not None else None
    articles = tuple(dict.fromkeys(articles)) if articles else None
    exclude_articles = tuple(dict.fromkeys(exclude_articles)) if exclude_articles else None
    clean_set = _load(Path(clean_file), "clean")
    perturbed_set = _load(Path(perturbed_file), "perturbed") if perturbed_file is not None else None
    chosen_rules = choose_rules(rules, clean_set, perturbed_set)
    _, clean_signature = recipe_of(clean_set)
    selected_set = select_articles(clean_set, articles, exclude_articles)
    clean = selected_set.examples()
    if limit is not None:
        clean = clean[:limit]
    kept_titles = {ex.title for ex in clean}
    evaluated = tuple(a for a in selected_set.articles if a.title in kept_titles)
    clean_sha = file_sha12(Path(clean_file))
    if perturbed_file is None or perturbed_set is None:
        if decisions:
            raise InputError(
                "review decisions were given without a perturbed file",
                hint="give the perturbed file the decisions were made on",
            )
        if selected_kinds is not None or counted_kinds is not None:
            raise InputError(
                "edit kinds were selected without a perturbed file",
                hint="give the perturbed file",
                setting="kinds",
            )
        return EvalData(
            clean,
            None,
            {},
            {},
            {},
            clean_sha,
            None,
            clean_only_shift(clean_set),
            None,
            chosen_rules,
            clean_signature,
            articles=articles,
            exclude_articles=exclude_articles,
            evaluated_articles=evaluated,
        )
    perturbed_all = perturbed_set.examples()
    mapping_all = match_to_clean(perturbed_all, (ex.id for ex in clean_set.iter_examples()), path=str(perturbed_file))
    kept_ids = {ex.id for ex in clean}
    perturbed = [ex for ex in perturbed_all if mapping_all[ex.id] in kept_ids]
    if not perturbed:
        selected = "the selected articles' questions" if articles or exclude_articles else "clean questions"
        raise InputError(
            f"no perturbed question matches the first {limit} {selected}"
            if limit is not None
            else f"no perturbed question matches the {selected}",
            path=str(perturbed_file),
            hint="evaluate more of the clean questions, or all of them",
            setting="limit" if limit is not None else "articles",
        )
    by_id = {ex.id: ex for ex in clean}
    mapping = {ex.id: mapping_all[ex.id] for ex in perturbed}
    context_changed = {ex.id: ex.context != by_id[mapping[ex.id]].context for ex in perturbed}
    changed = {ex.id: context_changed[ex.id] or ex.question != by_id[mapping[ex.id]].question for ex in perturbed}
    if selected_kinds is not None:
        perturbed = _select_kinds(perturbed, changed, selected_kinds, Path(perturbed_file))
        mapping = {ex.id: mapping[ex.id] for ex in perturbed}
        context_changed = {ex.id: context_changed[ex.id] for ex in perturbed}
        changed = {ex.id: changed[ex.id] for ex in perturbed}
    if counted_kinds is not None:  # the headline needs some variant to count; the variants all stay
        _select_kinds(perturbed, changed, counted_kinds, Path(perturbed_file))
    recipe, build_signature = recipe_of(perturbed_set)
    review = _review_status(
        perturbed_set, Path(perturbed_file), [ex.id for ex in perturbed if changed[ex.id]], decisions, recipe
    )
    return EvalData(
        clean,
        perturbed,
        mapping,
        changed,
        context_changed,
        clean_sha,
        file_sha12(Path(perturbed_file)),
        recipe or "unknown",
        build_signature,
        chosen_rules,
        clean_signature,
        review,
        selected_kinds,
        articles,
        exclude_articles,
        evaluated,
        counted_kinds,
    )


def _review_status(
    dataset: SquadDataset, path: Path, changed_ids: Sequence[str], decisions: Sequence[Path], shift: str | None
) -> ReviewStatus | None:
    """Decisions given to the eval, else what the file's metadata records (a filtered file), else not
    reviewed; None for an imported set (its authors validated it their own way) reviewed by nobody here."""
    from robustqa.importers import importer_of_shift

    if decisions:
        from robustqa.review.decisions import read_decisions
        from robustqa.review.validate import status_from_decisions

        return status_from_decisions([read_decisions(p) for p in decisions], path, changed_ids)
    if importer_of_shift(shift) is not None:
        return None
    return status_of_file(dataset.extra.get("robustqa"))
