"""`robustqa import`: read a published shift of SQuAD, write the clean/perturbed files eval reads, print a summary.

Which formats exist, and what is printed about each, comes from the importer objects in
`robustqa.importers`; this module only parses options and prints.
"""

from __future__ import annotations

from pathlib import Path

import click

from robustqa.importers import IMPORTERS


def _formats_help() -> str:
    lines = ["\b", "Formats:"]
    for name, importer in IMPORTERS.items():
        lines += [f"  {name}", *(f"      {line}" for line in importer.describe().splitlines())]
    return "\n".join(lines)


@click.command("import", epilog=_formats_help())
@click.argument("format_name", metavar="FORMAT", type=click.Choice(list(IMPORTERS)))
@click.argument("source", metavar="INPUT")
@click.option(
    "--output-dir",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder for clean.json (and perturbed.json); created if missing.",
)
def import_command(format_name: str, source: str, output_dir: Path) -> None:
    """Import a published shift of SQuAD (FORMAT) from INPUT as files that `robustqa eval` reads."""
    from robustqa.importers import write_import

    importer = IMPORTERS[format_name]
    imported = importer.read(source)
    written = write_import(importer, imported, output_dir)
    lines = []
    for path in written:
        role = "perturbed" if path.name.startswith("perturbed") else "clean"
        dataset = imported.perturbed if role == "perturbed" and imported.perturbed is not None else imported.clean
        detail = ", each with the source_id of its original" if role == "perturbed" else ""
        lines.append(f"wrote {path} ({len(dataset):,} questions{detail})")
    if not importer.paired:
        lines.append(
            f"{importer.title} has no paired original questions: a clean-only set, compared side by side, so no "
            "perturbed.json"
        )
    rows = [
        ("set", f"{importer.title}: {importer.citation}"),
        ("licence", importer.licence),
        ("input", imported.input_label),
    ]
    rows += [(key, f"{value:,}") for key, value in imported.counts.items()]
    rows.append(("signature", importer.signature(imported).format()))
    width = max(len(key) for key, _ in rows)
    lines += [f"  {key:<{width}}  {value}" for key, value in rows]
    click.echo("\n".join(lines))
