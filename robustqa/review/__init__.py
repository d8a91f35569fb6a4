"""People certify a perturbed set: review pages, decisions files, their statistics, and applying them.

A reviewer judges each changed question of a built file (accept, reject as meaning changed, reject as
ungrammatical, or skip) on a page served locally or written as one self-contained HTML file. The
decisions go to a JSON file that names the reviewer and the sha256 of the reviewed file; `stats` sums
them up (accepted share with a Wilson interval, Cohen's kappa between reviewers) and `validate` applies
them to the file, reverting every question no reviewer accepted.

Modules: `items` (what is reviewed, in which order), `decisions` (the decisions file), `page` (the HTML),
`server` (the local server), `stats`, `validate`.
"""
