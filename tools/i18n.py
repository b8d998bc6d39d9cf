"""Gettext catalogues without GNU gettext: a small ``.po`` reader and ``.mo`` writer (standard library only).

``make messages`` compiles the catalogues under ``locale/`` with Django's ``compilemessages`` when GNU
``msgfmt`` is installed, and with this module otherwise (``python -m tools.i18n compile``), so the quick
start and the Docker image need no system package. ``tests/web/test_i18n.py`` reads the catalogues with
:func:`parse_po` and checks that both compilers agree.

The ``.mo`` layout is the one GNU gettext documents ("The Format of GNU MO Files"): a header, two tables of
(length, offset) pairs for the original and translated strings sorted by original, no hash table.
"""

from __future__ import annotations

import ast
import os
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCALE_DIR = ROOT / "locale"


@dataclass
class Entry:
    """One message of a ``.po`` file. ``msgstr`` holds one string, or one per plural form (``msgstr[n]``)."""

    msgid: str
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    line: int = 0

    @property
    def fuzzy(self) -> bool:
        """Whether the entry is marked ``#, fuzzy`` (gettext then ignores its translation)."""
        return "fuzzy" in self.flags

    @property
    def key(self) -> tuple[str | None, str]:
        """``(msgctxt, msgid)``: what identifies the message in a catalogue."""
        return self.msgctxt, self.msgid


def _unquote(token: str, path: str, line: int) -> str:
    token = token.strip()
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise ValueError(f"{path}:{line}: expected a quoted string, got {token!r}")
    value = ast.literal_eval(token)
    assert isinstance(value, str)
    return value


def parse_po(text: str, path: str = "<po>") -> list[Entry]:
    """Parse ``.po`` text into its entries, header (msgid ``""``) first; obsolete ``#~`` entries are skipped.

    Raises:
        ValueError: a line that is not a comment, a keyword line or a continued string.
    """
    entries: list[Entry] = []
    fields: dict[tuple[str, int], str] = {}
    flags: set[str] = set()
    target: tuple[str, int] | None = None  # the field a continued string extends
    start = 0

    def flush() -> None:
        nonlocal fields, flags, target
        if fields:
            forms = sorted(index for name, index in fields if name == "msgstr")
            entries.append(
                Entry(
                    msgid=fields.get(("msgid", 0), ""),
                    msgid_plural=fields.get(("msgid_plural", 0)),
                    msgctxt=fields.get(("msgctxt", 0)),
                    msgstr=[fields[("msgstr", index)] for index in forms],
                    flags=flags,
                    line=start,
                )
            )
        fields, flags, target = {}, set(), None

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#~"):
            continue
        has_msgstr = any(name == "msgstr" for name, _index in fields)
        if line.startswith("#"):
            if has_msgstr:
                flush()
            if line.startswith("#,"):
                flags |= {flag.strip() for flag in line[2:].split(",") if flag.strip()}
            continue
        if line.startswith('"'):
            if target is None:
                raise ValueError(f"{path}:{number}: a string outside an entry")
            fields[target] += _unquote(line, path, number)
            continue
        keyword, _sep, rest = line.partition(" ")
        index = 0
        if keyword.startswith("msgstr[") and keyword.endswith("]"):
            index = int(keyword[len("msgstr[") : -1])
            keyword = "msgstr"
        if keyword not in ("msgctxt", "msgid", "msgid_plural", "msgstr"):
            raise ValueError(f"{path}:{number}: unknown line {raw!r}")
        if keyword in ("msgctxt", "msgid") and has_msgstr:
            flush()
        if not fields:
            start = number
        target = (keyword, index)
        fields[target] = _unquote(rest, path, number)
    flush()
    return entries


def read_po(path: Path) -> list[Entry]:
    """The entries of the ``.po`` file at ``path``."""
    return parse_po(path.read_text(encoding="utf-8"), str(path))


def mo_bytes(entries: list[Entry]) -> bytes:
    """A GNU ``.mo`` file of the translated, non-fuzzy entries (the header is kept even when fuzzy-free)."""
    messages: dict[bytes, bytes] = {}
    for entry in entries:
        if entry.msgid and (entry.fuzzy or not entry.msgstr or not all(entry.msgstr)):
            continue
        original = entry.msgid
        if entry.msgid_plural is not None:
            original += "\0" + entry.msgid_plural
        if entry.msgctxt is not None:
            original = entry.msgctxt + "\x04" + original
        messages[original.encode()] = "\0".join(entry.msgstr).encode()
    keys = sorted(messages)
    ids = b"".join(key + b"\0" for key in keys)
    strs = b"".join(messages[key] + b"\0" for key in keys)
    count = len(keys)
    header_size = 7 * 4
    ids_start = header_size + 2 * 8 * count
    strs_start = ids_start + len(ids)
    originals: list[int] = []
    translations: list[int] = []
    offset = 0
    for key in keys:
        originals += [len(key), ids_start + offset]
        offset += len(key) + 1
    offset = 0
    for key in keys:
        value = messages[key]
        translations += [len(value), strs_start + offset]
        offset += len(value) + 1
    header = struct.pack("<7I", 0x950412DE, 0, count, header_size, header_size + 8 * count, 0, 0)
    tables = struct.pack(f"<{2 * count}I", *originals) + struct.pack(f"<{2 * count}I", *translations)
    return header + tables + ids + strs


def compile_all(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Write ``<name>.mo`` next to every ``<lang>/LC_MESSAGES/<name>.po`` under ``locale_dir``."""
    written = []
    for po in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        mo.write_bytes(mo_bytes(read_po(po)))
        written.append(mo)
    return written


def compile_stale(locale_dir: Path = LOCALE_DIR) -> list[Path]:
    """Compile only the catalogues whose ``.mo`` is missing or older than the ``.po``. Each file is written
    to a temporary name and renamed, so concurrent callers (pytest-xdist workers) never see half a file."""
    written = []
    for po in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        tmp = mo.with_name(f".{mo.name}.{os.getpid()}.tmp")
        tmp.write_bytes(mo_bytes(read_po(po)))
        os.replace(tmp, mo)
        written.append(mo)
    return written


def main(argv: list[str]) -> int:
    """``python -m tools.i18n compile [LOCALE_DIR]``: compile every catalogue."""
    if not argv or argv[0] != "compile":
        print("usage: python -m tools.i18n compile [LOCALE_DIR]", file=sys.stderr)
        return 2
    locale_dir = Path(argv[1]) if len(argv) > 1 else LOCALE_DIR
    for mo in compile_all(locale_dir):
        print(f"compiled {mo.relative_to(locale_dir.parent) if mo.is_relative_to(locale_dir.parent) else mo}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
