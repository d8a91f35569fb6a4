"""Build the packaged British/American spelling table (`perturbations/data/spelling_variants-1.json`).

Why a written list and rules rather than a dictionary: a pair belongs in the table only when both spellings
name the same word in every sense, so that either direction keeps the meaning. Pairs where one spelling is
also another word are left out on purpose: metre/meter (a meter measures), tyre/tire, storey/story,
cheque/check, kerb/curb, draught/draft, programme/program, licence/license, practise/practice,
analogue/analog, dialogue, aesthetic and archaeology (American English uses both spellings), and "analyses"
(the plural of "analysis" in both). Inflected
forms are spelled out by the rules below, so the engine writes each form as it is, with no inflection step.

    python tools/spelling_table.py   # rewrites the file; a changed table is a new file with a new name
"""

from __future__ import annotations

import json
from pathlib import Path

TARGET = Path(__file__).resolve().parents[1] / "perturbations" / "data" / "spelling_variants-1.json"

# -our / -or: words used as nouns and verbs get every verb form; nouns their plural
OUR_VERBS = "colour favour honour labour harbour savour endeavour flavour clamour rumour armour".split()
OUR_NOUNS = "neighbour behaviour humour vapour vigour odour parlour rigour splendour tumour valour candour".split()
OUR_NOUNS += "fervour saviour ardour".split()
OUR_OTHER = {
    "colourful": "colorful",
    "favourite": "favorite",
    "favourites": "favorites",
    "favourable": "favorable",
    "unfavourable": "unfavorable",
    "favourably": "favorably",
    "honourable": "honorable",
    "neighbourhood": "neighborhood",
    "neighbourhoods": "neighborhoods",
    "neighbouring": "neighboring",
    "behavioural": "behavioral",
    "labourer": "laborer",
    "labourers": "laborers",
    "humorous": "humorous",
}
# -re / -er nouns (and the verb centre)
RE_NOUNS = "centre theatre fibre calibre spectre lustre sabre litre centimetre kilometre millimetre manoeuvre".split()
RE_ADJECTIVES = "sombre meagre".split()
# -ise / -ize verbs, and the -isation nouns of some
ISE_VERBS = """organise realise recognise civilise apologise criticise emphasise memorise minimise maximise
modernise normalise prioritise specialise standardise summarise symbolise sympathise utilise authorise capitalise
categorise characterise colonise centralise crystallise finalise harmonise industrialise legalise mobilise
monopolise neutralise popularise privatise publicise stabilise urbanise visualise fertilise hospitalise immunise
jeopardise legitimise marginalise mechanise patronise penalise polarise revolutionise scrutinise stigmatise
subsidise synthesise terrorise theorise vaporise globalise""".split()
ISATION = """organisation civilisation realisation colonisation modernisation industrialisation urbanisation
specialisation standardisation privatisation stabilisation centralisation characterisation categorisation
authorisation mobilisation globalisation normalisation""".split()
YSE_VERBS = "analyse paralyse catalyse".split()
# doubled l before a suffix (British) / single l (American)
LL = """travelled travelling traveller travellers cancelled cancelling labelled labelling modelled modelling
fuelled fuelling signalled signalling counselled counselling counsellor counsellors levelled levelling
quarrelled channelled tunnelled dialled equalled rivalled marvellous woollen""".split()
OTHER = {
    "defence": "defense",
    "defences": "defenses",
    "offence": "offense",
    "offences": "offenses",
    "pretence": "pretense",
    "anaemia": "anemia",
    "anaemic": "anemic",
    "anaesthesia": "anesthesia",
    "anaesthetic": "anesthetic",
    "anaesthetics": "anesthetics",
    "encyclopaedia": "encyclopedia",
    "encyclopaedias": "encyclopedias",
    "foetus": "fetus",
    "foetal": "fetal",
    "oestrogen": "estrogen",
    "paediatric": "pediatric",
    "paediatrics": "pediatrics",
    "paediatrician": "pediatrician",
    "haemoglobin": "hemoglobin",
    "haemorrhage": "hemorrhage",
    "leukaemia": "leukemia",
    "orthopaedic": "orthopedic",
    "palaeontology": "paleontology",
    "palaeontologist": "paleontologist",
    "oesophagus": "esophagus",
    "diarrhoea": "diarrhea",
    "catalogue": "catalog",
    "catalogues": "catalogs",
    "catalogued": "cataloged",
    "grey": "gray",
    "greyish": "grayish",
    "plough": "plow",
    "ploughs": "plows",
    "ploughed": "plowed",
    "aluminium": "aluminum",
    "mould": "mold",
    "moulds": "molds",
    "moulded": "molded",
    "mouldy": "moldy",
    "sceptic": "skeptic",
    "sceptics": "skeptics",
    "sceptical": "skeptical",
    "scepticism": "skepticism",
    "ageing": "aging",
    "judgement": "judgment",
    "judgements": "judgments",
    "acknowledgement": "acknowledgment",
    "acknowledgements": "acknowledgments",
    "artefact": "artifact",
    "artefacts": "artifacts",
    "pyjamas": "pajamas",
    "moustache": "mustache",
    "cosy": "cozy",
    "enrol": "enroll",
    "enrols": "enrolls",
    "enrolment": "enrollment",
    "enrolments": "enrollments",
    "fulfil": "fulfill",
    "fulfils": "fulfills",
    "fulfilment": "fulfillment",
    "skilful": "skillful",
    "skilfully": "skillfully",
    "instalment": "installment",
    "instalments": "installments",
    "wilful": "willful",
    "sulphur": "sulfur",
    "sulphate": "sulfate",
    "sulphuric": "sulfuric",
    "jewellery": "jewelry",
}


def _verb_forms(stem: str) -> list[str]:
    """base, 3rd person, past, -ing of a verb ending in a consonant (-our) or in e (-ise, -yse, -re)."""
    if stem.endswith("e"):
        return [stem, stem + "s", stem + "d", stem[:-1] + "ing"]
    return [stem, stem + "s", stem + "ed", stem + "ing"]


def pairs() -> dict[str, str]:
    """British spelling -> American spelling, every form."""
    out: dict[str, str] = {}
    for stem in OUR_VERBS:
        for form in _verb_forms(stem):
            out[form] = form.replace("our", "or", 1)
    for noun in OUR_NOUNS:
        for form in (noun, noun + "s"):
            out[form] = form.replace("our", "or", 1)
    out.update({gb: us for gb, us in OUR_OTHER.items() if gb != us})
    for noun in RE_NOUNS:
        us = noun[:-2] + "er"
        if noun == "manoeuvre":
            us = "maneuver"
        out[noun], out[noun + "s"] = us, us + "s"
    out["centred"], out["centring"] = "centered", "centering"
    for adjective in RE_ADJECTIVES:
        out[adjective] = adjective[:-2] + "er"
    for stem in ISE_VERBS + YSE_VERBS:
        us = stem[:-2] + "ze"
        for gb_form, us_form in zip(_verb_forms(stem), _verb_forms(us)):
            if not (stem in YSE_VERBS and gb_form.endswith("yses")):  # "analyses" is also the plural of analysis
                out[gb_form] = us_form
    for noun in ISATION:
        us = noun.replace("isation", "ization")
        out[noun], out[noun + "s"] = us, us + "s"
    for word in LL:
        out[word] = word.replace("ll", "l", 1)
    out.update(OTHER)
    return dict(sorted(out.items()))


def document_text() -> str:
    """The file's text: the pairs, checked to be one-to-one (so either direction has one answer)."""
    table = pairs()
    assert len(set(table.values())) == len(table), "an American spelling of two British ones"
    assert not set(table) & set(table.values()), "a spelling on both sides"
    document = {
        "description": "British -> American spellings of the same word in every sense, every form spelled out "
        "(tools/spelling_table.py)",
        "pairs": table,
    }
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    TARGET.write_text(document_text(), encoding="utf-8")
    print(f"{TARGET.name}: {len(pairs())} pairs")


if __name__ == "__main__":
    main()
