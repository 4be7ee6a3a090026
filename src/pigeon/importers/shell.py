"""Splitting a command line into words the way a shell does: POSIX shells (quotes, backslashes,
line continuations, ``$'...'`` ANSI-C strings, redirections, heredocs) and Windows cmd.exe with
the C runtime's rules. Nothing here is curl's: the curl importer reads its options from the
words this module gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pigeon.importers.common import ImportFailed

# -- shell words ------------------------------------------------------------------------------

SEPARATOR = "\0sep"  # a command boundary (newline, ;, &&, ||, |, &)
# Markers among the words, each followed by one word: the text a command reads on standard
# input (a heredoc or here-string), a file it reads there (``< body.json``), and an output
# redirection (``> out.json``, kept only to be named in a note).
STDIN_TEXT = "\0stdin"
STDIN_FILE = "\0stdin-file"
REDIRECT = "\0redirect"
MARKERS = (STDIN_TEXT, STDIN_FILE, REDIRECT)

_ANSI_C = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
_VAR_RE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
# Longest first: the first that matches is the operator.
_REDIRECT_OPS = ("&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">&", ">|", "<", ">")


@dataclass
class Words:
    words: list[str] = field(default_factory=list)
    env: list[str] = field(default_factory=list)  # shell variables met
    substitutions: int = 0  # $(...) and `...` left as written
    open_heredoc: bool = False  # a heredoc ran to the end of the text without its end line
    windows: bool = False  # read with cmd.exe's rules: variables are %NAME%


@dataclass
class _Heredoc:
    at: int  # where its text goes among the words
    delimiter: str
    strip_tabs: bool  # <<- strips leading tabs
    literal: bool  # a quoted delimiter: the body is not expanded


def _closing(text: str, at: int) -> int:
    """Index of the ``)`` matching the ``(`` at ``at`` (the last index if there is none)."""
    depth = 0
    for j in range(at, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return len(text) - 1


def shell_words(text: str) -> Words:
    """Split ``text`` into words like a POSIX shell, with ``SEPARATOR`` between commands.

    Unquoted and double-quoted ``$NAME`` become ``{{$env.NAME}}``; command substitutions are
    kept as written (and counted). Redirections become markers (``STDIN_TEXT``,
    ``STDIN_FILE``, ``REDIRECT``) followed by one word; a heredoc's body is read from the
    lines after its command, so it never reads as commands. Raises ``ImportFailed`` on an
    unterminated quote.
    """
    out = Words()
    i, n = 0, len(text)
    word: list[str] = []
    in_word = False
    pending: str | None = None  # a redirection operator waiting for its word
    heredocs: list[_Heredoc] = []

    def finish() -> None:
        nonlocal word, in_word, pending
        if in_word:
            value = "".join(word)
            if pending is None:
                out.words.append(value)
            elif pending == "<<<":
                out.words += [STDIN_TEXT, value + "\n"]  # a here-string ends with a newline
            elif pending in ("<", "<>"):
                out.words += [STDIN_FILE, value]
            elif pending not in (">&", "<&"):  # 2>&1 and the like name no file
                out.words += [REDIRECT, f"{pending} {value}"]
            pending = None
        word, in_word = [], False

    def variable(src: str, at: int, sink: list[str]) -> int:
        """Handle ``$`` at ``at`` outside single quotes; return the index after it."""
        m = _VAR_RE.match(src, at)
        if m:
            name = m.group(1) or m.group(2)
            out.env.append(name)
            sink.append("{{$env." + name + "}}")
            return m.end()
        if src.startswith("$(", at):
            j = _closing(src, at + 1)
            out.substitutions += 1
            sink.append(src[at : j + 1])
            return j + 1
        sink.append("$")
        return at + 1

    def backticks(src: str, at: int, sink: list[str]) -> int:
        j = src.find("`", at + 1)
        j = len(src) - 1 if j < 0 else j
        out.substitutions += 1
        sink.append(src[at : j + 1])
        return j + 1

    def heredoc_start(at: int, strip_tabs: bool) -> int:
        """Read the delimiter word after ``<<``; the body is read at the end of the line."""
        while at < n and text[at] in " \t":
            at += 1
        start, delimiter, literal = at, [], False
        while at < n and text[at] not in " \t\n;|&<>()":
            ch = text[at]
            if ch in "'\"":
                end = text.find(ch, at + 1)
                end = n if end < 0 else end
                delimiter.append(text[at + 1 : end])
                literal, at = True, end + 1
            elif ch == "\\" and at + 1 < n:
                delimiter.append(text[at + 1])
                literal, at = True, at + 2
            else:
                delimiter.append(ch)
                at += 1
        if at > start:
            out.words += [STDIN_TEXT, ""]
            heredocs.append(_Heredoc(len(out.words) - 1, "".join(delimiter), strip_tabs, literal))
        return at

    def expand_step(text: str, at: int, sink: list[str], escapable: str) -> int:
        """One step of expansion as in double quotes or a heredoc body: a backslash before one
        of ``escapable`` (a newline joins lines), a variable, backticks, or a plain
        character; returns where the next step starts."""
        ch = text[at]
        follower = text[at + 1 : at + 2]
        if ch == "\\" and follower and follower in escapable:
            if follower != "\n":
                sink.append(follower)
            return at + 2
        if ch == "$":
            return variable(text, at, sink)
        if ch == "`":
            return backticks(text, at, sink)
        sink.append(ch)
        return at + 1

    def expand(body: str) -> str:
        """A heredoc body as the shell passes it on: variables, \\$ \\` \\\\ and joined lines."""
        sink: list[str] = []
        k = 0
        while k < len(body):
            k = expand_step(body, k, sink, "$`\\\n")
        return "".join(sink)

    def read_heredocs(at: int) -> int:
        """Read the bodies of the line's heredocs from ``at``; return the index after them."""
        for doc in heredocs:
            lines: list[str] = []
            while True:
                if at >= n:
                    out.open_heredoc = True
                    break
                end = text.find("\n", at)
                end = n if end < 0 else end
                line = text[at:end]
                at = end + 1
                if doc.strip_tabs:
                    line = line.lstrip("\t")
                if line.rstrip("\r") == doc.delimiter:
                    break
                lines.append(line + "\n")
            body = "".join(lines)
            out.words[doc.at] = body if doc.literal else expand(body)
        heredocs.clear()
        return min(at, n)

    while i < n:
        c = text[i]
        if c == "\\":
            if i + 1 < n and text[i + 1] == "\n":
                i += 2  # line continuation
                continue
            if i + 1 < n and text[i + 1] == "\r" and text[i + 2 : i + 3] == "\n":
                i += 3
                continue
            if i + 1 < n:
                word.append(text[i + 1])
                in_word = True
            i += 2
            continue
        if c == "'":
            j = text.find("'", i + 1)
            if j < 0:
                raise ImportFailed("curl: unterminated single quote")
            word.append(text[i + 1 : j])
            in_word = True
            i = j + 1
            continue
        if c == "$" and text.startswith("$'", i):
            i = _ansi_c(text, i + 2, word)
            in_word = True
            continue
        if c == '"' or (c == "$" and text.startswith('$"', i)):
            i += 2 if c == "$" else 1
            in_word = True
            while True:
                if i >= n:
                    raise ImportFailed("curl: unterminated double quote")
                if text[i] == '"':
                    i += 1
                    break
                i = expand_step(text, i, word, '$`"\\\n')
            continue
        if c == "$":
            i = variable(text, i, word)
            in_word = True
            continue
        if c == "`":
            i = backticks(text, i, word)
            in_word = True
            continue
        if text.startswith(("<(", ">("), i):  # process substitution: kept as written
            j = _closing(text, i + 1)
            out.substitutions += 1
            word.append(text[i : j + 1])
            in_word = True
            i = j + 1
            continue
        if c in "<>" or text.startswith("&>", i):
            if in_word and "".join(word).isdigit():
                word, in_word = [], False  # the 2 of 2>err.log is a file descriptor
            finish()
            op = next(o for o in _REDIRECT_OPS if text.startswith(o, i))
            i += len(op)
            if op in ("<<", "<<-"):
                i = heredoc_start(i, op == "<<-")
            else:
                pending = op
            continue
        if c in " \t\r":
            finish()
            i += 1
            continue
        if c in "\n;|&":
            finish()
            pending = None
            out.words.append(SEPARATOR)
            if c == "\n" and heredocs:
                i = read_heredocs(i + 1)
                continue
            i += 2 if text[i : i + 2] in ("&&", "||") else 1
            continue
        if c == "#" and not in_word:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        word.append(c)
        in_word = True
        i += 1
    finish()
    if heredocs:
        read_heredocs(n)
    return out


def _ansi_c(text: str, i: int, word: list[str]) -> int:
    """Decode a ``$'...'`` string starting after its opening quote; return the index after."""
    n = len(text)
    buf = bytearray()
    while True:
        if i >= n:
            raise ImportFailed("curl: unterminated $'...' string")
        c = text[i]
        if c == "'":
            word.append(buf.decode("utf-8", errors="replace"))
            return i + 1
        if c != "\\" or i + 1 >= n:
            buf += c.encode("utf-8")
            i += 1
            continue
        e = text[i + 1]
        if e in _ANSI_C:
            buf += _ANSI_C[e].encode()
            i += 2
        elif e == "x":
            m = re.match(r"[0-9A-Fa-f]{1,2}", text[i + 2 :])
            if m:
                buf.append(int(m.group(), 16))
                i += 2 + m.end()
            else:
                buf += b"\\x"
                i += 2
        elif e in "uU":
            width = 4 if e == "u" else 8
            m = re.match("[0-9A-Fa-f]{1," + str(width) + "}", text[i + 2 :])
            if m:
                buf += chr(int(m.group(), 16)).encode("utf-8", errors="replace")
                i += 2 + m.end()
            else:
                buf += ("\\" + e).encode()
                i += 2
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", text[i + 1 :])
            assert m is not None
            buf.append(int(m.group(), 8) & 0xFF)
            i += 1 + m.end()
        elif e == "c" and i + 2 < n:
            buf.append(ord(text[i + 2]) & 0x1F)
            i += 3
        else:
            buf += ("\\" + e).encode("utf-8")
            i += 2


# -- Windows command lines --------------------------------------------------------------------

# A backtick ending a line (continuation) or $env:NAME is PowerShell.
POWERSHELL_HINT = re.compile(r"[ \t]`[ \t]*\r?$|\$env:[A-Za-z_]", re.M)
_CMD_VAR = re.compile(r"%([A-Za-z_][A-Za-z0-9_]*)%")


def cmd_words(text: str) -> Words:
    """Split a Windows ``cmd.exe`` command line into words, as Windows does, in two layers.

    First cmd.exe: ``^`` takes the next character literally, ``^`` at the end of a line joins
    the next line (whose first character is then literal), ``"`` switches quoting on and off
    (no ``^`` escapes inside), ``&`` and ``|`` end a command, ``%NAME%`` is an environment
    variable (``{{$env.NAME}}``). Then the C runtime's rules inside curl.exe: ``"`` quotes,
    ``\\"`` is a literal quote, ``""`` inside quotes is one quote, other backslashes are
    literal.
    """
    out = Words(windows=True)
    text = text.replace("\r\n", "\n")

    def env(m: re.Match[str]) -> str:
        name = m.group(1)
        if re.fullmatch(r"[0-9A-Fa-f]{2}", name):
            return m.group(0)  # %C3% in %C3%A9 is percent-encoding, not a variable
        out.env.append(name)
        return "{{$env." + name + "}}"

    text = _CMD_VAR.sub(env, text)
    buf: list[str] = []
    markers: list[str] = []
    quoted = False
    i, n = 0, len(text)

    def end_command() -> None:
        out.words.extend(_crt_split("".join(buf)))
        out.words.extend(markers)
        out.words.append(SEPARATOR)
        buf.clear()
        markers.clear()

    while i < n:
        c = text[i]
        if c == "\n":
            end_command()
            quoted = False
            i += 1
            continue
        if quoted:
            quoted = c != '"'
            buf.append(c)
            i += 1
            continue
        if c == "^":
            if text.startswith("^\n", i):
                i += 2
                if i < n:
                    buf.append(text[i])
                    i += 1
            elif i + 1 < n:
                buf.append(text[i + 1])
                i += 2
            else:
                i += 1
            continue
        if c == '"':
            quoted = True
            buf.append(c)
            i += 1
            continue
        if c in "&|":
            end_command()
            i += 2 if text[i : i + 2] in ("&&", "||") else 1
            continue
        if c in "<>":
            if buf and buf[-1].isdigit() and (len(buf) == 1 or buf[-2] in " \t"):
                buf.pop()  # 2>nul: the 2 is a file descriptor
            op = ">>" if text.startswith(">>", i) else c
            i += len(op)
            if text.startswith("&", i):
                op += "&"
                i += 1
            while i < n and text[i] in " \t":
                i += 1
            start = i
            while i < n and text[i] not in " \t\n&|<>":
                if text[i] == '"':
                    close = text.find('"', i + 1)
                    i = n if close < 0 else close
                i += 1
            target = text[start:i].replace('"', "").replace("^", "")
            if op == "<":
                markers += [STDIN_FILE, target]
            elif not op.endswith("&"):
                markers += [REDIRECT, f"{op} {target}"]
            continue
        buf.append(c)
        i += 1
    end_command()
    return out


def _crt_split(line: str) -> list[str]:
    """Arguments as the Microsoft C runtime splits a command line for a program's ``argv``."""
    words: list[str] = []
    i, n = 0, len(line)
    while True:
        while i < n and line[i] in " \t":
            i += 1
        if i >= n:
            return words
        word: list[str] = []
        quoted = False
        while i < n and (quoted or line[i] not in " \t"):
            c = line[i]
            if c == "\\":
                j = i
                while j < n and line[j] == "\\":
                    j += 1
                if j < n and line[j] == '"':
                    word.append("\\" * ((j - i) // 2))
                    if (j - i) % 2:
                        word.append('"')  # \" is a literal quote
                        j += 1
                else:
                    word.append("\\" * (j - i))
                i = j
            elif c == '"':
                if quoted and line[i + 1 : i + 2] == '"':
                    word.append('"')  # "" inside quotes
                    i += 2
                else:
                    quoted = not quoted
                    i += 1
            else:
                word.append(c)
                i += 1
        words.append("".join(word))
