"""What every part of a recipe has: overridable parameters, validation, and a one-line description.

A recipe is a transformation, a tuple of constraints and a budget; each part owns its parameters, so a
new part with a new parameter needs no edit elsewhere for `get_recipe(name, **overrides)`,
`Recipe.parameters()` or the signature to carry it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar


class Component:
    """A part of a recipe. Subclasses are frozen dataclasses whose fields are their whole configuration.

    `PARAMETERS` maps the fields a user may override to a function that coerces a raw value (raising
    ValueError or TypeError when it cannot); `validate` then checks the ranges.
    """

    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    def parameters(self) -> dict[str, object]:
        """The overridable parameters with their values, JSON-serialisable."""
        return {key: jsonable(getattr(self, key)) for key in self.PARAMETERS}

    def validate(self) -> None:
        """Raise RecipeParameterError when a parameter is outside its range (nothing to check by default)."""

    def describe(self) -> str:
        """One line for the recipe's printed composition."""
        return type(self).__name__


def jsonable(value: Any) -> Any:
    """Sets as sorted lists and tuples as lists, so parameters read the same in JSON and in Python."""
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def as_float(value: Any) -> float:
    return float(value)


def as_count(value: Any) -> int:
    """A whole number (1 or 2.0, never True or 1.5)."""
    if isinstance(value, bool) or int(value) != value:
        raise ValueError(value)
    return int(value)


def as_bool(value: Any) -> bool:
    return bool(value)


def as_str(value: Any) -> str:
    return str(value)
