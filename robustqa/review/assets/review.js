// robustqa review page: keyboard review of changed questions. Data comes inline (#payload); in "server"
// mode each decision is posted to the local server, which writes the decisions file; in "file" mode
// decisions live in localStorage (keyed by the reviewed file's sha256) and are saved as a JSON download
// in the same format as the server's file (docs/FORMATS.md).
(function () {
  "use strict";
  const P = JSON.parse(document.getElementById("payload").textContent);
  const items = P.items;
  const order = new Map(items.map((item, i) => [item.id, i]));
  const storeKey = "robustqa-review:" + P.dataset.sha256;
  const decisions = new Map();
  for (const d of P.decisions) decisions.set(d.id, d);
  const $ = (id) => document.getElementById(id);
  const reviewerInput = $("reviewer");
  let busy = false;

  document.body.classList.add(P.mode);
  $("dataset").textContent = P.dataset.name;
  reviewerInput.value = P.reviewer;
  if (P.mode === "server") {
    reviewerInput.readOnly = true;
  } else {
    loadLocal();
    reviewerInput.addEventListener("change", () => { reviewerInput.value = reviewerInput.value.trim(); saveLocal(); });
    $("save").addEventListener("click", download);
    $("load").addEventListener("change", loadFile);
  }
  let index = firstUndecided(0);
  render();
  status(P.mode === "server" ? "decisions are saved to " + P.saved_to + " after each one" : "decisions are kept in this browser; press D to save them as a file");

  function firstUndecided(from) {
    for (let i = from; i < items.length; i++) if (!decisions.has(items[i].id)) return i;
    for (let i = 0; i < from; i++) if (!decisions.has(items[i].id)) return i;
    return items.length;
  }

  function status(text, isError) {
    const el = $("status");
    el.textContent = text;
    el.className = isError ? "error" : "";
  }

  function text(el, value) { el.textContent = value; return el; }

  function describe(d) {
    if (!d) return "";
    if (d.decision === "rejected") return "decided: rejected (" + d.reason.replace("_", " ") + ")";
    return "decided: " + d.decision;
  }

  function render() {
    $("progress").textContent = decisions.size + " / " + items.length;
    document.body.dataset.index = String(index);
    const finished = index >= items.length;
    $("item").hidden = finished;
    $("finished").hidden = !finished;
    if (finished) {
      $("position").textContent = "";
      $("finished-detail").textContent = decisions.size + " of " + items.length + " questions decided." +
        (P.mode === "file" ? " Press D to save the decisions file." : " The decisions file is up to date.");
      return;
    }
    const item = items[index];
    $("item").dataset.id = item.id;
    $("position").textContent = "question " + (index + 1) + " of " + items.length;
    text($("title"), item.title);
    text($("item-id"), item.id);
    text($("current"), describe(decisions.get(item.id)));
    $("original").innerHTML = item.original_html;
    $("perturbed").innerHTML = item.perturbed_html;
    const subs = $("substitutions");
    subs.replaceChildren(...item.substitutions.map((s) => text(document.createElement("li"),
      s.original + " → " + s.replacement + "  (" + s.pos + (s.synset ? ", " + s.synset : "") + ")")));
    const answer = $("answer");
    if (item.answers.length) {
      answer.className = "";
      answer.replaceChildren(...item.answers.flatMap((value, i) => {
        const span = text(document.createElement("span"), value);
        span.className = "answer-text";
        return i ? [document.createTextNode(" | "), span] : [span];
      }));
    } else {
      answer.className = "no-answer";
      answer.textContent = "no answer (the question is unanswerable from the paragraph)";
    }
    const label = item.evidence === "answer" ? "the sentence that holds it"
      : item.evidence === "plausible answer" ? "the sentence with a plausible (but wrong) answer" : "";
    $("sentence-label").hidden = !label;
    $("sentence").hidden = !label;
    text($("sentence-label"), label);
    $("sentence").innerHTML = item.sentence_html;
    $("context").innerHTML = item.context_html;
    const notes = $("notes");
    notes.hidden = item.notes.length === 0;
    notes.tBodies[0].replaceChildren(...item.notes.map((n) => {
      const row = document.createElement("tr");
      for (const value of [n.model, n.clean || "(no answer)", n.perturbed || "(no answer)", n.flipped ? "flipped right → wrong" : ""]) {
        row.appendChild(text(document.createElement("td"), value));
      }
      return row;
    }));
  }

  function after(position) {
    if (position + 1 < items.length) return position + 1;
    return firstUndecided(0);
  }

  function stamp() { return new Date().toISOString().replace(/\.\d+Z$/, "Z"); }

  async function decide(decision, reason) {
    if (index >= items.length || busy) return;
    const item = items[index];
    if (P.mode === "server") {
      busy = true;
      try {
        const response = await fetch("decide", {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Review-Token": P.token },
          body: JSON.stringify({ id: item.id, decision: decision, reason: reason }),
        });
        const answer = await response.json();
        if (!response.ok) { status("not saved: " + answer.error, true); return; }
        decisions.set(item.id, answer.decision);
        status("saved " + answer.done + " / " + answer.total + " to " + P.saved_to);
      } catch (error) {
        status("not saved: the review server does not answer (" + error + "); restart `robustqa review` and reload", true);
        return;
      } finally {
        busy = false;
      }
    } else {
      if (!reviewerInput.value.trim()) {
        status("type your name as reviewer first", true);
        reviewerInput.focus();
        return;
      }
      decisions.set(item.id, {
        id: item.id, decision: decision, reason: reason, original: item.original, perturbed: item.perturbed,
        substitutions: item.substitutions, at: stamp(),
      });
      saveLocal();
      status("kept in this browser: " + decisions.size + " / " + items.length + " (press D to save them as a file)");
    }
    index = after(index);
    render();
  }

  function move(step) {
    index = Math.min(items.length, Math.max(0, index + step));
    render();
  }

  function ordered() {
    return [...decisions.values()].sort((a, b) => order.get(a.id) - order.get(b.id));
  }

  function saveLocal() {
    try {
      localStorage.setItem(storeKey, JSON.stringify({ reviewer: reviewerInput.value.trim(), decisions: ordered() }));
    } catch (error) {
      status("this browser does not keep the decisions (" + error + "); press D often to save them", true);
    }
  }

  function loadLocal() {
    let kept = null;
    try { kept = JSON.parse(localStorage.getItem(storeKey) || "null"); } catch (error) { kept = null; }
    if (!kept) return;
    if (!reviewerInput.value && kept.reviewer) reviewerInput.value = kept.reviewer;
    for (const d of kept.decisions || []) if (order.has(d.id)) decisions.set(d.id, d);
  }

  function decisionsFile() {
    return {
      format: P.format,
      format_version: P.format_version,
      robustqa: P.robustqa,
      reviewer: reviewerInput.value.trim(),
      dataset: P.dataset,
      order: P.order,
      updated: decisions.size ? ordered().map((d) => d.at).sort().pop() : null,
      decisions: ordered(),
    };
  }

  function download() {
    const reviewer = reviewerInput.value.trim();
    if (!reviewer) { status("type your name as reviewer first", true); reviewerInput.focus(); return; }
    const blob = new Blob([JSON.stringify(decisionsFile(), null, 2) + "\n"], { type: "application/json" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "decisions-" + reviewer.replace(/[^A-Za-z0-9_.-]+/g, "_") + "-" + P.dataset.sha256.slice(0, 12) + ".json";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    status("saved " + decisions.size + " decisions as " + link.download);
  }

  function loadFile(event) {
    const file = event.target.files[0];
    if (!file) return;
    file.text().then((content) => {
      let loaded;
      try { loaded = JSON.parse(content); } catch (error) { status(file.name + " is not JSON", true); return; }
      if (!loaded || loaded.format !== P.format) { status(file.name + " is not a decisions file", true); return; }
      if (!loaded.dataset || loaded.dataset.sha256 !== P.dataset.sha256) {
        status(file.name + " was made for another dataset; load the decisions made on " + P.dataset.name, true);
        return;
      }
      reviewerInput.value = loaded.reviewer || reviewerInput.value;
      for (const d of loaded.decisions || []) if (order.has(d.id)) decisions.set(d.id, d);
      saveLocal();
      index = firstUndecided(0);
      render();
      status("loaded " + (loaded.decisions || []).length + " decisions from " + file.name);
    });
    event.target.value = "";
  }

  const actions = {
    a: () => decide("accepted", null),
    m: () => decide("rejected", "meaning_changed"),
    g: () => decide("rejected", "ungrammatical"),
    s: () => decide("skipped", null),
    b: () => move(-1),
    Backspace: () => move(-1),
    ArrowLeft: () => move(-1),
    n: () => move(1),
    ArrowRight: () => move(1),
    d: () => { if (P.mode === "file") download(); },
  };

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement) {
      if (event.key === "Enter" || event.key === "Escape") event.target.blur();
      return;
    }
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    const action = actions[key];
    if (!action) return;
    event.preventDefault();
    action();
  });

  for (const button of document.querySelectorAll(".keys button")) {
    button.addEventListener("click", () => { const action = actions[button.dataset.key]; if (action) action(); button.blur(); });
  }
})();
