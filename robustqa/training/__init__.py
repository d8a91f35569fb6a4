"""`robustqa train`: fine-tuning an extractive-QA model on SQuAD 2.0 data, with or without variants.

`features` cuts questions into training windows, `record` writes what a trained folder says of its data,
`run` drives Hugging Face's `Trainer`. Nothing here imports torch at import time.
"""
