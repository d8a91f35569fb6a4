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
        {"seed": 13, "recipe": "qads@1.1", "wsd": "lesk", "variants": None, "wordnet": "3.0"}, open_keys=["wsd"]
    )
    assert [key for key, _ in built.items] == ["recipe", "wsd", "variants", "seed", "wordnet", "robustqa"]
    with pytest.raises(ValueError, match="undeclared keys"):
        RUN.create({"clean": "a", "surprise": 1})
