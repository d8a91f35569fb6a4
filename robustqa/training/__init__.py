"""`robustqa train`: fine-tuning an extractive-QA model on SQuAD 2.0 data, with or without variants.

`features` cuts questions into training windows, `run` drives Hugging Face's `Trainer` and writes the folder
(its training-data record through `robustqa.provenance`). Nothing here imports torch at import time.
"""
