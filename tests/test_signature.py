from robustqa import __version__
from robustqa.signature import Signature


def test_signature_format_is_ordered_with_version_last():
    sig = Signature.create({"recipe": "qads@1", "rate": 0.3, "seed": 13, "wordnet": "3.0", "lower": True})
    assert sig.format() == f"recipe:qads@1|rate:0.3|seed:13|wordnet:3.0|lower:yes|robustqa:{__version__}"


def test_signature_round_trips_through_its_string():
    sig = Signature.create({"model": "a/b", "protected": ("x", "y"), "none": None})
    assert Signature.parse(sig.format()) == sig
    assert sig.get("protected") == "x,y"
    assert sig.get("none") == "none"


def test_each_kind_of_signature_declares_its_keys_once() -> None:
    """A signature's keys come from its schema, in the schema's order; an undeclared key is refused, so a new
    field is declared in one place (robustqa.signature) before any code writes it."""
    import pytest

    from robustqa.signature import BUILD, RUN

    built = BUILD.create(
        {"seed": 13, "recipe": "qads@1.1", "wsd": "lesk", "variants": None, "wordnet": "3.0"}, recipe_keys=["wsd"]
    )
    assert [key for key, _ in built.items] == ["recipe", "wsd", "variants", "seed", "wordnet", "robustqa"]
    with pytest.raises(ValueError, match="undeclared keys"):
        RUN.create({"clean": "a", "surprise": 1})


def test_recipe_parameters_and_settings_each_stand_in_their_own_slot() -> None:
    """An attack signature has both: the recipe's fields follow `attack`, the inference settings follow `seed`
    (they once all went to the first slot)."""
    from robustqa.signature import ATTACK

    fields = {"attack": "qads@2.0", "wsd": "lesk", "target": "m", "budget": 5, "seed": 13, "max_seq_length": 384}
    signature = ATTACK.create(fields, recipe_keys=["wsd"], setting_keys=["max_seq_length"])
    keys = [key for key, _ in signature.items]
    assert keys == ["attack", "wsd", "target", "budget", "seed", "max_seq_length", "robustqa"]
