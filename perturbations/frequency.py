"""How common a word or phrase is in English: wordfreq's Zipf frequency (log10 of occurrences per billion
words, about 0 to 8; "the" 7.7, "castle" 4.6, "complexness" 0).

Why wordfreq: WordNet lists many rare, archaic or technical lemmas as synonyms ("macroscopical",
"aright", "yr"); a frequency table built from a broad mix of modern text tells them from the words a
question writer would use. The values are persisted in the lexicon cache (a warm build never loads
wordfreq's tables); wordfreq is imported on first use, never at import.
"""

from __future__ import annotations

from perturbations.errors import MissingPackageError
from perturbations.store import persistent


@persistent("zipf")
def zipf(phrase: str) -> float:
    """wordfreq's English Zipf frequency of `phrase` (lower-case; a phrase of several words combines its
    words' frequencies as wordfreq does)."""
    try:
        from wordfreq import zipf_frequency
    except ImportError as exc:
        raise MissingPackageError("wordfreq", "word frequencies for the rarity rules") from exc
    return float(zipf_frequency(phrase, "en"))
