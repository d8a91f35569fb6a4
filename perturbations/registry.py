"""Recipes by name and version: "qads" is its default version, "qads@1.1" exactly that version.

Registering a (name, version) twice is an error: a published version never changes, so a changed recipe
is registered under a new version, and the old one stays available by name.
"""

from __future__ import annotations

from typing import Any

from perturbations.builtin_recipes import BUILTIN
from perturbations.errors import (
    RecipeRegistrationError,
    UnknownRecipeError,
    UnknownRecipeVersionError,
)
from perturbations.recipes import Recipe


def _version_key(version: str) -> tuple[tuple[int, object], ...]:
    """ "1.10" after "1.9"; parts that are not numbers sort after numbers, as text."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in version.split("."))


class RecipeRegistry:
    """Every registered recipe version, and which version each name means by default."""

    def __init__(self) -> None:
        self._versions: dict[str, dict[str, Recipe]] = {}
        self._default: dict[str, str] = {}

    def register(self, recipe: Recipe, *, default: bool = False) -> Recipe:
        """Add a recipe version. The first version of a name is its default until another is registered
        with `default=True`. Raises RecipeRegistrationError for a taken (name, version) or a malformed one."""
        for part, value in (("name", recipe.name), ("version", recipe.version)):
            if not value or "@" in value or value != value.strip():
                raise RecipeRegistrationError(
                    f"recipe {part} {value!r} must be non-empty, without '@' or surrounding spaces"
                )
        versions = self._versions.setdefault(recipe.name, {})
        if recipe.version in versions:
            raise RecipeRegistrationError(
                f"recipe {recipe.ident} is already registered; a changed recipe needs a new version"
            )
        recipe.validate()
        versions[recipe.version] = recipe
        if default or recipe.name not in self._default:
            self._default[recipe.name] = recipe.version
        return recipe

    def get(self, spec: str, **overrides: Any) -> Recipe:
        """The recipe "name" (its default version) or "name@version", with parameters overridden (None
        values are ignored)."""
        name, at, version = spec.partition("@")
        versions = self._versions.get(name)
        if versions is None:
            raise UnknownRecipeError(name, self.names())
        if not at:
            version = self._default[name]
        recipe = versions.get(version)
        if recipe is None:
            raise UnknownRecipeVersionError(name, version, self.versions(name), self._default[name])
        return recipe.with_overrides(**overrides) if overrides else recipe

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._versions))

    def versions(self, name: str) -> tuple[str, ...]:
        """The registered versions of `name`, oldest first (empty for an unknown name)."""
        return tuple(sorted(self._versions.get(name, {}), key=_version_key))

    def default_version(self, name: str) -> str:
        try:
            return self._default[name]
        except KeyError:
            raise UnknownRecipeError(name, self.names()) from None

    def all(self) -> list[Recipe]:
        """Every registered version, by name, then oldest version first."""
        return [self._versions[n][v] for n in self.names() for v in self.versions(n)]


REGISTRY = RecipeRegistry()
for _recipe, _default in BUILTIN:
    REGISTRY.register(_recipe, default=_default)


def get_recipe(spec: str, **overrides: Any) -> Recipe:
    """A registered recipe: "qads" (its default version) or "qads@1.1", with parameters overridden (None
    values are ignored). UnknownRecipeError for an unknown name, UnknownRecipeVersionError (a subclass)
    for an unknown version of a known name."""
    return REGISTRY.get(spec, **overrides)


def list_recipes() -> list[Recipe]:
    """Every registered recipe version with its default parameters, by name, then oldest version first."""
    return REGISTRY.all()


def register_recipe(recipe: Recipe, *, default: bool = False) -> Recipe:
    """Register a new recipe version (see `RecipeRegistry.register`)."""
    return REGISTRY.register(recipe, default=default)


def default_version(name: str) -> str:
    """The version "name" alone means."""
    return REGISTRY.default_version(name)
