"""`robustqa attack`: for each question a model gets right, search the recipe's space of valid synonym
substitutions for a variant it gets wrong, with the model in the loop.

One job per module: `space` (the recipe's edits, the only module that talks to the engine), `margin` (how
firmly the model holds its clean answer), `scorer` (batched model queries), `query_cache` and `oracle`
(never score a variant twice; resume), `search` (one question's greedy or beam search), `driver` (all
questions in lockstep rounds), `summary`, `adversarial` and `write` (attack.json, adversarial.json, the
chart), `transfer` (each model's score on each adversarial set, for `robustqa report`).
"""
