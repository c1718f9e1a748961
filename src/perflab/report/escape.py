"""User data (benchmark names, parameters, paths, labels, error texts) made inert for each output.

Names and parameter values come from benchmark files and are never markup: not rich console markup,
not Markdown table syntax, not HTML, not a spreadsheet formula. Every renderer passes such text
through the function of its format here.
"""
from __future__ import annotations

import re

from rich.markup import escape as _rich_escape
from rich.text import Text

_CONTROL = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_OTHER_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def visible(s: str) -> str:
    """One line, control characters shown as escapes: a cell never splits a row or moves the cursor."""
    s = "".join(_CONTROL.get(ch, ch) for ch in str(s))
    return _OTHER_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", s)


def text(s: str, style: str = "") -> Text:
    """A rich Text of user data: printed as is, never parsed as markup."""
    return Text(str(s), style=style)


def markup(s: str) -> str:
    """User data to embed in a rich markup string (f"[red]{markup(name)}[/red]")."""
    return _rich_escape(str(s))


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|])")


def md_cell(s: str) -> str:
    """A Markdown table cell: `|` and backslashes escaped, newlines as <br>, HTML inert, emphasis
    and link syntax escaped."""
    s = str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    s = s.replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")
    return _OTHER_CONTROL.sub("", s)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(s: str) -> str:
    """A CSV cell of user data: one starting like a formula (=, +, -, @, tab, CR) gets a leading
    apostrophe, so a spreadsheet shows it as text instead of evaluating it (OWASP's rule). Numbers
    perflab itself writes are not passed through here."""
    s = str(s)
    return "'" + s if s.startswith(_FORMULA_START) else s
