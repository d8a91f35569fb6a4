"""Reporting finished runs: the one table pipeline (`tables`), the charts (`charts`), report.md and the
`robustqa report` documents (`report`, `report_html`), the failure analysis (`analysis`) and how edits are
shown (`edits`)."""
