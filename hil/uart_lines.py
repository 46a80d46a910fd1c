"""The kernel's UART line protocol, read from the host side.

The kernel reports everything as one line `keel <event> key=value ...`
(kernel/protocol.h): values never contain spaces, a bare word (e.g.
`fallback`) may sit among the fields, and a line too long for the kernel's
buffer ends in ` +` after the last whole field. Everything else on the wire
(the firmware's own log with uart_2ndstage=1, noise while a cable is
plugged in) is kept as it came but is not protocol.

`LineSplitter` cuts the raw byte stream into lines without changing a byte
and stamps each with the host's clock; `parse_line` reads one line.
hil/capture and its tests use these same functions.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

EVENT_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
KEY_RE = re.compile(r"^[a-z][a-z0-9_]*$")
PREFIX = b"keel "


def parse_line(raw: bytes) -> dict:
    """One line (without its b"\\n") as a JSON-ready record.

    `text` is the line decoded as UTF-8 (bytes that are not, as \\xNN escapes);
    `keel` is None for a line that is not protocol, else
    {"event", "fields", "words", "truncated"}. Noise before `keel ` on the
    same line (bytes outside printable ASCII, as a UART glitch leaves) is
    counted in `noise_bytes` and does not stop the line from parsing.
    """
    body = raw[:-1] if raw.endswith(b"\r") else raw
    record: dict = {"text": body.decode("utf-8", errors="backslashreplace"), "keel": None}
    start = body.find(PREFIX)
    if start < 0 or any(0x20 <= byte < 0x7F for byte in body[:start]):
        return record  # no `keel ` or printable text before it: not protocol
    rest_bytes = body[start + len(PREFIX):]
    if any(byte < 0x20 or byte >= 0x7F for byte in rest_bytes):
        return record  # the kernel prints printable ASCII only: a damaged line is not trusted
    tokens = rest_bytes.decode("ascii").split(" ")
    if not tokens or not EVENT_RE.match(tokens[0]):
        return record
    event, fields, words, truncated = tokens[0], {}, [], False
    rest = tokens[1:]
    if rest and rest[-1] == "+":
        truncated, rest = True, rest[:-1]
    for token in rest:
        key, sep, value = token.partition("=")
        if sep and KEY_RE.match(key) and key not in fields:
            fields[key] = value
        elif token and not sep:
            words.append(token)
        else:
            return record  # an empty token (two spaces), a bad key, a repeated key: not protocol
    if start:
        record["noise_bytes"] = start
    record["keel"] = {"event": event, "fields": fields, "words": words, "truncated": truncated}
    return record


@dataclass
class Line:
    raw: bytes           # the line's bytes, its b"\n" included when complete
    offset: int          # where it starts in the raw capture
    first_seconds: float  # host clock (seconds since the capture began) at its first byte
    end_seconds: float   # ... at its last byte (the newline, when complete)
    complete: bool


@dataclass
class LineSplitter:
    """Cuts a byte stream into lines at b"\\n", keeping every byte."""

    offset: int = 0
    _pending: bytearray = field(default_factory=bytearray)
    _pending_first: float = 0.0

    def feed(self, data: bytes, seconds: float) -> list[Line]:
        lines = []
        view = memoryview(data)
        while view:
            if not self._pending:
                self._pending_first = seconds
            newline = bytes(view).find(b"\n")
            if newline < 0:
                self._pending += view
                break
            self._pending += view[:newline + 1]
            view = view[newline + 1:]
            lines.append(Line(bytes(self._pending), self.offset, self._pending_first, seconds, True))
            self.offset += len(self._pending)
            self._pending.clear()
        return lines

    def finish(self, seconds: float) -> list[Line]:
        """The cut-off last line (bytes after the last newline), if any."""
        if not self._pending:
            return []
        line = Line(bytes(self._pending), self.offset, self._pending_first, seconds, False)
        self.offset += len(self._pending)
        self._pending.clear()
        return [line]
