"""Typed errors of the perturbation engine.

The engine never prints or exits; callers (the robustqa CLI) turn these into one-line messages.
Each message says what is wrong and what to do about it.
"""

from __future__ import annotations


class PerturbationError(Exception):
    """Base class of every error the engine raises on purpose."""


class MissingResourceError(PerturbationError):
    """An NLTK resource (WordNet, the POS tagger, stopwords) is not installed where NLTK looks."""

    def __init__(self, resource: str, install_command: str) -> None:
        self.resource = resource
        self.install_command = install_command
        super().__init__(
            f"NLTK resource '{resource}' is not installed; run `{install_command}` "
            "or point the NLTK_DATA environment variable at a folder that holds it"
        )


class MissingPackageError(PerturbationError):
    """A Python package a rule needs is not installed."""

    def __init__(self, package: str, needed_for: str) -> None:
        self.package = package
        super().__init__(f"the Python package '{package}' ({needed_for}) is not installed; run `pip install {package}`")


class UnknownRecipeError(PerturbationError):
    """A recipe name that is not registered."""

    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        self.name = name
        self.known = known
        super().__init__(f"unknown recipe '{name}'; choose one of: {', '.join(known)} (see `robustqa recipes`)")


class RecipeParameterError(PerturbationError):
    """A recipe parameter outside its allowed range."""


class UnknownEditKindRulesError(PerturbationError):
    """An edit-kind rules version (`edit-kinds-<n>`) this engine does not have."""


class UnknownRecipeVersionError(UnknownRecipeError):
    """A registered recipe name asked for with a version that is not registered."""

    def __init__(self, name: str, version: str, available: tuple[str, ...], default: str) -> None:
        self.name = name
        self.version = version
        self.available = available
        self.default = default
        self.known = tuple(f"{name}@{v}" for v in available)  # what could be asked for instead
        listed = ", ".join(v + (" (default)" if v == default else "") for v in available)
        PerturbationError.__init__(self, f"recipe '{name}' has no version '{version}'; available versions: {listed}")


class RecipeRegistrationError(PerturbationError):
    """A recipe that cannot be registered: a malformed name or version, or a (name, version) already taken
    (a published version never changes; a changed recipe is a new version)."""


class InvalidEditError(PerturbationError):
    """An edit that a search space does not allow: a word the recipe may not edit, a replacement it does
    not offer there, or one word edited twice."""


class MissingExtraError(PerturbationError):
    """Packages an optional part of the engine needs (an extra of the robustqa distribution) are missing."""

    def __init__(self, extra: str, needed_for: str, *, missing: tuple[str, ...]) -> None:
        self.extra = extra
        self.missing = missing
        super().__init__(f"{needed_for} needs the optional packages {', '.join(missing)}; run `pip install '{extra}'`")


class LanguageModelError(PerturbationError):
    """A language model that cannot be found or loaded."""
