"""Applying decisions: `robustqa filter` and `robustqa build-dataset --validated`, and the server's decisions log."""

from __future__ import annotations

import hashlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli
from robustqa.errors import InputError
from robustqa.review.decisions import DecisionLog, read_decisions
from robustqa.review.items import load_built
from robustqa.review.server import ReviewServer
from robustqa.squad import load_squad

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "robustqa" / "data" / "squad2-sample.json"
BUILD_ARGS = ["build-dataset", "--input", str(SAMPLE), "--recipe", "qads", "--seed", "13"]  # as the built_file fixture


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def decide(built: Path, path: Path, reviewer: str, codes: str) -> list[str]:
    """Decide the first questions in review order (A accept, M/G reject, S skip); the ids, in that order."""
    review = load_built(built)
    log = DecisionLog(review, reviewer, path)
    table = {
        "A": ("accepted", None),
        "M": ("rejected", "meaning_changed"),
        "G": ("rejected", "ungrammatical"),
        "S": ("skipped", None),
    }
    for item, code in zip(review.items, codes):
        log.decide(item.id, *table[code])
    return [item.id for item in review.items]


def questions(path: Path) -> dict[str, dict]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return {qa["id"]: qa for a in document["data"] for p in a["paragraphs"] for qa in p["qas"]}


def test_filter_keeps_accepted_and_reverts_the_rest(built_file: Path, tmp_path: Path) -> None:
    ann = tmp_path / "ann.json"
    ids = decide(built_file, ann, "ann", "AMS")
    total = len(ids)
    out = tmp_path / "validated.json"
    result = run("filter", str(built_file), "--validated", str(ann), "--output", str(out))
    assert result.exit_code == 0, result.output
    assert (
        "accepted           1 (kept perturbed)\n  rejected           1 (reverted to the original question)\n"
        f"  unreviewed         {total - 2} (reverted"
    ) in result.stdout
    before, after = questions(built_file), questions(out)
    assert list(before) == list(after)
    accepted, rejected, skipped = (after[i] for i in ids[:3])
    assert (
        accepted["question"] == before[ids[0]]["question"]
        and accepted["original_question"] == before[ids[0]]["original_question"]
    )
    assert accepted["review"] == {"status": "accepted", "reviewers": ["ann"]}
    assert rejected["question"] == before[ids[1]]["original_question"]
    assert "original_question" not in rejected and "substitutions" not in rejected
    assert rejected["review"] == {
        "status": "rejected",
        "reviewers": ["ann"],
        "reasons": ["meaning_changed"],
        "perturbed_question": before[ids[1]]["question"],
        "substitutions": before[ids[1]]["substitutions"],
    }
    assert skipped["question"] == before[ids[2]]["original_question"]
    assert skipped["review"]["status"] == "unreviewed" and "reviewers" not in skipped["review"]
    for qid, qa in after.items():
        assert qa["answers"] == before[qid]["answers"]
        if "original_question" not in before[qid]:
            assert qa == before[qid]  # unchanged questions are left alone
    document = json.loads(out.read_text(encoding="utf-8"))
    sha12 = hashlib.sha256(ann.read_bytes()).hexdigest()[:12]
    assert document["signature"].endswith(
        f"|validated:{sha12}|accepted:1|rejected:1|unreviewed:{total - 2}|robustqa:0.1.0"
    )
    assert document["signature"].startswith(json.loads(built_file.read_text())["signature"].rsplit("|robustqa:", 1)[0])
    assert document["robustqa"]["review"]["reviewed_sha256"] == hashlib.sha256(built_file.read_bytes()).hexdigest()
    assert document["robustqa"]["review"]["counts"] == {"accepted": 1, "rejected": 1, "unreviewed": total - 2}
    # still a SQuAD 2.0 file whose answers sit at their offsets, and an eval sees one changed question
    load_squad(out, check_answers=True)
    from robustqa.evaluation.run import load_eval_data

    data = load_eval_data(SAMPLE, out)
    assert sum(data.changed.values()) == 1


def test_several_reviewers_accept_only_what_all_who_judged_accepted(built_file: Path, tmp_path: Path) -> None:
    ann, bob = tmp_path / "ann.json", tmp_path / "bob.json"
    decide(built_file, ann, "ann", "AMS")
    ids = decide(built_file, bob, "bob", "AAAG")
    out = tmp_path / "validated.json"
    result = run("filter", str(built_file), "--validated", str(ann), "--validated", str(bob), "--output", str(out))
    assert result.exit_code == 0, result.output
    after = questions(out)
    # i0 both accept; i1 ann rejects; i2 ann skipped, bob accepts; i3 bob rejects
    assert [after[i]["review"]["status"] for i in ids[:4]] == ["accepted", "rejected", "accepted", "rejected"]
    assert after[ids[0]]["review"]["reviewers"] == ["ann", "bob"]
    assert after[ids[2]]["review"]["reviewers"] == ["bob"]
    assert after[ids[3]]["review"]["reasons"] == ["ungrammatical"]
    assert "|accepted:2|rejected:2|" in json.loads(out.read_text())["signature"]


def test_build_dataset_validated_matches_filter(built_file: Path, tmp_path: Path) -> None:
    ann = tmp_path / "ann.json"
    decide(built_file, ann, "ann", "AMGS")
    filtered, rebuilt = tmp_path / "filtered.json", tmp_path / "rebuilt.json"
    assert run("filter", str(built_file), "--validated", str(ann), "--output", str(filtered)).exit_code == 0
    result = run(*BUILD_ARGS, "--output", str(rebuilt), "--validated", str(ann))
    assert result.exit_code == 0, result.output
    assert "  accepted           1 (kept perturbed)" in result.stdout
    assert "|validated:" in result.stdout
    assert rebuilt.read_bytes() == filtered.read_bytes()


def test_decisions_for_another_dataset_are_refused(built_file: Path, tmp_path: Path) -> None:
    ann = tmp_path / "ann.json"
    decide(built_file, ann, "ann", "AM")
    sha = hashlib.sha256(built_file.read_bytes()).hexdigest()
    other = tmp_path / "other.json"
    other.write_bytes(built_file.read_bytes().replace(b'"version": "v2.0"', b'"version": "v2.0" '))
    out = tmp_path / "out.json"
    result = run("filter", str(other), "--validated", str(ann), "--output", str(out))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    other_sha = hashlib.sha256(other.read_bytes()).hexdigest()
    assert result.stderr == (
        f"robustqa: error: {ann}: made for another dataset ({built_file.name} with sha256 {sha[:12]}), "
        f"not {other.name} (sha256 {other_sha[:12]}); give the decisions made on this very file\n"
    )
    assert not out.exists()
    result = run(*[a if a != "13" else "14" for a in BUILD_ARGS], "--output", str(out), "--validated", str(ann))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert (
        f"made for another dataset ({built_file.name} with sha256 {sha[:12]}), not this build of out.json"
        in result.stderr
    )
    assert not out.exists()
    # serving the other file with these decisions is refused too
    result = run("review", str(other), "--reviewer", "ann", "--decisions", str(ann), "--no-browser", "--port", "0")
    assert result.exit_code == 2 and "made for another dataset" in result.stderr
    # a bad decisions file fails before any building
    (tmp_path / "bad.json").write_text("[]", encoding="utf-8")
    result = run(*BUILD_ARGS, "--output", str(out), "--validated", str(tmp_path / "bad.json"))
    assert result.exit_code == 2 and "not a decisions file" in result.stderr and not out.exists()


def test_decisions_log_resumes_and_replaces(built_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "ann.json"
    review = load_built(built_file)
    log = DecisionLog(review, "ann", path)
    first, second = review.items[0].id, review.items[1].id
    log.decide(second, "skipped")
    log.decide(first, "accepted")
    assert [d.id for d in read_decisions(path).decisions] == [first, second]  # review order, not decision order
    resumed = DecisionLog(review, "ann", path)
    assert resumed.done == 2
    resumed.decide(second, "rejected", "ungrammatical")
    saved = read_decisions(path)
    assert len(saved.decisions) == 2 and saved.by_id()[second].reason == "ungrammatical"
    with pytest.raises(InputError, match="a rejection needs a reason"):
        resumed.decide(first, "rejected")
    with pytest.raises(InputError, match="is not under review"):
        resumed.decide("no-such-id", "accepted")
    with pytest.raises(InputError, match="these decisions are ann's, not bob's"):
        DecisionLog(review, "bob", path)


@pytest.fixture
def server(built_file: Path, tmp_path: Path) -> Iterator[ReviewServer]:
    review = load_built(built_file)
    instance = ReviewServer(DecisionLog(review, "ann", tmp_path / "ann.json"), 0)
    thread = threading.Thread(target=instance.serve_forever, daemon=True)
    thread.start()
    try:
        yield instance
    finally:
        instance.shutdown()
        instance.close()
        thread.join(5)


def request(server: ReviewServer, path: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, str]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        server.url.rstrip("/") + path, data=data, headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_server_accepts_only_its_own_page(server: ReviewServer) -> None:
    status, page = request(server, "/")
    assert status == 200 and server.token in page and '"mode": "server"' in page
    assert server.url.startswith("http://127.0.0.1:")
    item = server.log.review_set.items[0].id
    token = {"X-Review-Token": server.token}
    assert request(server, "/decide", {"id": item, "decision": "accepted"})[0] == 403  # no token
    assert request(server, "/decide", {"id": item, "decision": "accepted"}, {"X-Review-Token": "guess"})[0] == 403
    assert (
        request(server, "/decide", {"id": item, "decision": "accepted"}, {**token, "Host": "evil.example:80"})[0] == 403
    )
    assert request(server, "/", headers={"Host": "evil.example"})[0] == 403
    status, body = request(server, "/decide", {"id": item, "decision": "rejected"}, token)
    assert status == 400 and "a rejection needs a reason" in json.loads(body)["error"]
    status, body = request(server, "/decide", {"id": "nope", "decision": "accepted"}, token)
    assert status == 400 and "not under review" in json.loads(body)["error"]
    assert request(server, "/decide", {"decision": "accepted"}, token)[0] == 400
    assert request(server, "/elsewhere")[0] == 404
    status, body = request(server, "/decide", {"id": item, "decision": "rejected", "reason": "meaning_changed"}, token)
    answer = json.loads(body)
    assert status == 200 and answer["done"] == 1 and answer["total"] == len(server.log.review_set.items)
    assert read_decisions(server.log.path).by_id()[item].reason == "meaning_changed"
