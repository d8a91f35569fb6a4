"""One candidate written into a text: how the engine writes an edit, and the variants a model rule scores
before the engine runs (the recipe lists them, `Recipe.prepare`; the rules score them)."""

from __future__ import annotations

from perturbations.inflect import agree_article, article_before, match_case, possessive_clitic
from perturbations.records import Token


def text_of(tokens: tuple[Token, ...]) -> str:
    """The text the tokens came from, as far as the rule needs it: every token at its offset, spaces between."""
    parts: list[str] = []
    cursor = 0
    for token in tokens:
        parts.append(" " * (token.start - cursor))
        parts.append(token.text)
        cursor = token.end
    return "".join(parts)


def written_span(text: str, tokens: tuple[Token, ...], index: int, form: str) -> tuple[int, int, str]:
    """Where writing `form` over the word at `index` changes `text`, and what goes there: the word with its
    case kept, a preceding "a"/"an" and a following possessive re-agreed (the engine's edits and the variants
    a rule scores are written by this one function)."""
    token = tokens[index]
    new_word = match_case(token.text, form)
    start, end, new = token.start, token.end, new_word
    clitic = possessive_clitic(tokens, index, new_word)
    if clitic is not None:
        end, new = clitic.end, new_word + clitic.text[0]
    article = article_before(tokens, index)
    if article is not None:
        agreed = agree_article(article.text, new_word)
        if agreed != article.text:
            start, new = article.start, agreed + text[article.end : token.start] + new
    return start, end, new


def variant_text(tokens: tuple[Token, ...], index: int, form: str) -> str:
    """The text with the word at `index` replaced by `form`, written as the engine writes an edit."""
    text = text_of(tokens)
    start, end, new = written_span(text, tokens, index, form)
    return text[:start] + new + text[end:]
