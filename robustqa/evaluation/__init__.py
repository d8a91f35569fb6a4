"""Evaluation, by pipeline stage: the data of a run (`data`), the models and how they run (`models`,
`inference`, `decode`, `distributed`), predictions and their cache (`prediction`, `prediction_cache`), the
official scores and the drop (`scoring`), and one `robustqa eval` run tying them together (`run`)."""
