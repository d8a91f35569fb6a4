"""robustqa: do extractive QA models understand words, or only match them?

Builds QADS-style synonym-substituted variants of SQuAD 2.0 and measures the EM/F1 drop they cause.
Importing the package is cheap: torch, transformers and NLTK load only when a command needs them.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
