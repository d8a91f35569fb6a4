"""perturbations: the engine of robustqa. Text in, perturbed text and immutable edit records out.

It knows nothing of SQuAD, models or the CLI. Importing it loads no NLTK resource and downloads
nothing: WordNet, the tagger and stopwords are loaded on first use.
"""

from __future__ import annotations

from perturbations.errors import (
    MissingResourceError,
    PerturbationError,
    RecipeParameterError,
    UnknownRecipeError,
)
from perturbations.lexicon import check_resources, wordnet_version
from perturbations.recipes import Recipe, get_recipe, list_recipes
from perturbations.records import Perturbation, Substitution, Token

__all__ = [
    "MissingResourceError",
    "Perturbation",
    "PerturbationError",
    "Recipe",
    "RecipeParameterError",
    "Substitution",
    "Token",
    "UnknownRecipeError",
    "check_resources",
    "get_recipe",
    "list_recipes",
    "wordnet_version",
]
