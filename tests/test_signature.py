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
