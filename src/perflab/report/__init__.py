"""One table model (report.table) and the exporters that render it."""
