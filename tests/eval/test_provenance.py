"""The training record of a model folder and its overlap with an evaluation set (robustqa/provenance.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from robustqa.errors import InputError
from robustqa.provenance import (
    TRAINING_FORMAT,
    TRAINING_RECORD,
    TrainedArticle,
    TrainingRecord,
    article_hash,
    article_sha256,
    read_training_record,
    training_overlap,
    training_record,
    write_training_record,
)
from robustqa.squad import parse_squad

from rqa_evalfakes import CONTEXT_A, CONTEXT_B, clean_document, perturbed_document


def test_article_hash_is_the_documented_formula() -> None:
    dataset = parse_squad(clean_document())
    expected = hashlib.sha256(CONTEXT_A.encode("utf-8")).hexdigest()
    assert article_hash(dataset.articles[0]) == expected
    joined = hashlib.sha256("one\n\ntwo é".encode()).hexdigest()
    assert article_sha256(["one", "two é"]) == joined


def test_a_perturbed_file_hashes_its_clean_text() -> None:
    document = perturbed_document()
    paragraph = document["data"][1]["paragraphs"][0]
    paragraph["original_context"] = paragraph["context"]
    paragraph["context"] = paragraph["context"].replace("improved", "amended")
    perturbed = parse_squad(document)
    assert article_hash(perturbed.articles[1]) == hashlib.sha256(CONTEXT_B.encode()).hexdigest()


def test_round_trip_through_the_model_folder(tmp_path: Path) -> None:
    record = training_record(parse_squad(clean_document()), "train:fake|seed:1")
    path = write_training_record(tmp_path, record)
    assert path.name == TRAINING_RECORD
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["format"] == TRAINING_FORMAT and raw["questions"] == 8
    assert [a["title"] for a in raw["articles"]] == ["Normans", "Steam"]
    assert read_training_record(tmp_path) == record


def test_a_folder_without_a_record_has_none(tmp_path: Path) -> None:
    assert read_training_record(tmp_path) is None


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"format": "robustqa-training/9", "articles": [], "questions": 1}', "not a robustqa-training/1 record"),
        ('{"format": "robustqa-training/1", "articles": {}, "questions": 1}', "needs an 'articles' list"),
        ('{"format": "robustqa-training/1", "articles": [{"title": 1}], "questions": 1}', "article 1 needs"),
        ('{"format": "robustqa-training/1", "articles": [', "not valid JSON"),
    ],
)
def test_a_broken_record_is_one_line_naming_the_file(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / TRAINING_RECORD).write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_training_record(tmp_path)
    text = caught.value.text()
    assert message in text and TRAINING_RECORD in text and "\n" not in text


def test_overlap_by_text_and_by_title() -> None:
    evaluation = parse_squad(clean_document())
    normans = article_hash(evaluation.articles[0])
    record = TrainingRecord(
        signature="s",
        articles=(TrainedArticle("Normans (renamed)", normans), TrainedArticle("Steam", "0" * 64)),
        questions=3,
    )
    overlap = training_overlap(record, evaluation.articles)
    assert overlap.same_text == ("Normans",)
    assert overlap.same_title == ("Steam",)
    assert overlap.titles == ("Normans", "Steam") and bool(overlap)


def test_no_overlap_is_falsy() -> None:
    evaluation = parse_squad(clean_document())
    record = TrainingRecord(signature="s", articles=(TrainedArticle("Other", "1" * 64),), questions=1)
    overlap = training_overlap(record, evaluation.articles)
    assert not overlap and overlap.titles == ()
