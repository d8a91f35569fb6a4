"""robustqa's SQuAD metric for Hugging Face `evaluate`: SQuAD 2.0 (or 1.1) EM/F1 with the HasAns/NoAns split,
and, given perturbed predictions paired to clean ones, the clean-vs-perturbed drop with its paired bootstrap
interval.

Load it from the installed robustqa package (no network needed):

    import evaluate
    from robustqa.hf_metric import metric_path
    metric = evaluate.load(metric_path())              # SQuAD 2.0 rules, inputs as evaluate's squad_v2
    metric_v1 = evaluate.load(metric_path(), "squad")  # SQuAD v1.1 rules, inputs as evaluate's squad

This file only declares the inputs; every number is computed by `robustqa.hf_metric.compute`, that is by
robustqa's own metric and bootstrap code, so it equals what `robustqa eval` reports.
"""

import datasets
import evaluate

from robustqa.hf_metric import RULES, compute

_CITATION = """\
@inproceedings{rajpurkar-etal-2018-know,
    title = "Know What You Don{'}t Know: Unanswerable Questions for {SQ}u{AD}",
    author = "Rajpurkar, Pranav and Jia, Robin and Liang, Percy",
    booktitle = "Proceedings of ACL 2018",
    year = "2018",
}
"""

_DESCRIPTION = """\
Official SQuAD 2.0 (or, with the "squad" config, v1.1) exact match and F1, with the HasAns/NoAns split,
computed by robustqa; with perturbed predictions also the perturbed scores, the paired drop (perturbed minus
clean, in points) with 95% percentile bootstrap intervals that resample clean questions, and flip counts.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of {"id", "prediction_text", "no_answer_probability"} ("squad" config: no probability).
    references: list of {"id", "answers": {"text": [...], "answer_start": [...]}}.
    perturbed_predictions: optional, like predictions, for the perturbed questions.
    perturbed_references: optional, like references, each may add "source_id" (the id of the clean question
        it was made from; default: its own id) and "changed" (False when it equals that question; default True).
    no_answer_threshold: a question whose no_answer_probability exceeds it counts as abstained (default 1.0).
    bootstrap: bootstrap resamples of the drop intervals (default 1000).
    seed: seed of the bootstrap (default 13).
Returns:
    The official keys ("exact", "f1", "total", "HasAns_*", "NoAns_*", "best_*"; "squad" config: "exact_match",
    "f1", "total"), and with perturbed inputs "perturbed" (the same keys), "drop", "worst_copy" and "flips".
Examples:
    >>> import evaluate
    >>> from robustqa.hf_metric import metric_path
    >>> metric = evaluate.load(metric_path())
    >>> predictions = [{"id": "q1", "prediction_text": "1976", "no_answer_probability": 0.0}]
    >>> references = [{"id": "q1", "answers": {"text": ["1976"], "answer_start": [97]}}]
    >>> metric.compute(predictions=predictions, references=references)["exact"]
    100.0
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RobustqaSquad(evaluate.Metric):
    def _info(self):
        rules = RULES.get(self.config_name, "2.0")
        prediction = {"id": datasets.Value("string"), "prediction_text": datasets.Value("string")}
        if rules == "2.0":
            # float64, not squad_v2's float32: no-answer odds compared with the threshold keep every digit
            prediction["no_answer_probability"] = datasets.Value("float64")
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": prediction,
                    "references": {
                        "id": datasets.Value("string"),
                        "answers": datasets.Sequence(
                            {"text": datasets.Value("string"), "answer_start": datasets.Value("int32")}
                        ),
                    },
                }
            ),
            reference_urls=["https://rajpurkar.github.io/SQuAD-explorer/"],
        )

    def _compute(
        self,
        predictions,
        references,
        perturbed_predictions=None,
        perturbed_references=None,
        no_answer_threshold=1.0,
        bootstrap=1000,
        seed=13,
    ):
        return compute(
            predictions,
            references,
            rules=RULES.get(self.config_name, "2.0"),
            perturbed_predictions=perturbed_predictions,
            perturbed_references=perturbed_references,
            no_answer_threshold=no_answer_threshold,
            bootstrap=bootstrap,
            seed=seed,
        )
