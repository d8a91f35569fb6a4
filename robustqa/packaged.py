"""The evaluation sets that ship with robustqa, so that `robustqa eval MODEL` needs no data option.

A packaged set is a clean SQuAD 2.0 file and a perturbed file made from it, both inside the package, with a
dataset card saying how it was made. The default is the reviewed benchmark `certified@2`: the variants of
`certified@1` (tools/certify.py builds it; its card is `robustqa/data/certified/CARD.md`), each edit with its
kind (tools/certify_kinds.py; `CARD-v2.md`). A run evaluates every variant; its headline counts synonyms,
common and rare (`headline_kinds`), and spelling variants, abbreviations and other forms of a word get their own
rows in the breakdown by edit kind; `kinds` selects the variants a run counts instead. `certified@1` stays
loadable, as it was published.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from robustqa.errors import InputError


@dataclass(frozen=True)
class PackagedSet:
    """One shipped clean/perturbed pair of files, by name and version."""

    name: str
    version: int
    folder: str  # under robustqa/data/
    clean: str
    perturbed: str
    description: str
    card: str = "CARD.md"
    # the edit kinds a run's headline counts when no kinds are chosen (every variant is evaluated); None: every kind
    headline_kinds: tuple[str, ...] | None = None

    @property
    def ident(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def slug(self) -> str:
        """The set's part of a default run folder name (`runs/<model>-<slug>`)."""
        return f"{self.name}-v{self.version}"

    def _path(self, name: str) -> Path:
        path = Path(str(resources.files("robustqa") / "data" / self.folder / name))
        if not path.is_file():
            raise InputError(
                f"the packaged set {self.ident} is missing its file {name}", path=str(path), hint="reinstall robustqa"
            )
        return path

    @property
    def clean_path(self) -> Path:
        return self._path(self.clean)

    @property
    def perturbed_path(self) -> Path:
        return self._path(self.perturbed)

    @property
    def card_path(self) -> Path:
        return self._path(self.card)


CERTIFIED = PackagedSet(
    name="certified",
    version=1,
    folder="certified",
    clean="squad2-dev-half.json",
    perturbed="certified-v1.json",
    description=(
        "6,078 SQuAD 2.0 dev questions (16 articles) and their reviewed one-word WordNet-synonym variants: "
        "every variant kept was judged to keep the meaning by two reviewers (language-model agents, not people)"
    ),
)

CERTIFIED_2 = PackagedSet(
    name="certified",
    version=2,
    folder="certified",
    clean="squad2-dev-half.json",
    perturbed="certified-v2.json",
    description=(
        "certified@1's variants, unchanged, each edit with its kind (synonym, rare, spelling, abbreviation, "
        "morphology); a run evaluates every variant, and its headline counts synonyms and rare synonyms"
    ),
    card="CARD-v2.md",
    headline_kinds=("synonym", "rare"),
)

PACKAGED_SETS: dict[str, PackagedSet] = {CERTIFIED.ident: CERTIFIED, CERTIFIED_2.ident: CERTIFIED_2}
DEFAULT_SET = CERTIFIED_2.ident


def get_set(name: str = DEFAULT_SET) -> PackagedSet:
    """A packaged set by `name@version` (or its name alone: the newest version)."""
    if name in PACKAGED_SETS:
        return PACKAGED_SETS[name]
    versions = [s for s in PACKAGED_SETS.values() if s.name == name]
    if versions:
        return max(versions, key=lambda s: s.version)
    raise InputError(f"no packaged set named '{name}'", hint=f"use one of {', '.join(sorted(PACKAGED_SETS))}")
