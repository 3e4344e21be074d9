"""pipe()'s steps written as on the command line: 'blur --sigma 2 | sobel',
each step an image command with the options it takes alone (gpuimg pipe's
grammar: '|' between steps, blanks between words, '...' or "..." quoting),
or a list of such steps. Each step becomes a call of the step builders in
_steps.py, so values are checked once, in one place."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Sequence, Tuple, Union

from . import _gpuimg as _c
from . import _steps

# Each command's options: long name -> (short name, Python argument, value
# parser or None for a flag). An operation's own are its parameters in the
# library's table (as the command line's are); the rest are parsed by the
# command in its own way.
_Option = Tuple[str, str, Any]
_KINDS = {"float": "float", "int": "int", "choice": str, "flag": None}


def _table(kind: int, **own: _Option) -> Dict[str, _Option]:
    """The operation's options; a number's parser is (kind, its parser), so
    that the table parses and checks the text, as on the command line."""
    options = {p["name"]: (p["short"], p["name"],
                           (kind, _KINDS[p["type"]]) if p["type"] in ("int", "float")
                           else _KINDS[p["type"]])
               for p in _steps.options(kind)}
    return {**options, **own}


_IMAGE = {"border": ("", "border_", str), "border-value": ("", "border_value", "int")}
_COMMANDS: Dict[str, Tuple[Callable, Dict[str, _Option], str]] = {
    "blur": (_steps.blur, _table(_c.OP_BLUR, **_IMAGE), ""),
    "sobel": (_steps.sobel, _table(_c.OP_SOBEL, **_IMAGE), ""),
    "convolve": (_steps.convolve, {"kernel": ("k", "mask", str),
                                   **_table(_c.OP_CONVOLVE, **_IMAGE)}, ""),
    "transpose": (_steps.transpose, dict(_IMAGE), ""),
    "rotate": (_steps.rotate, dict(_IMAGE), "angle (90, 180 or 270)"),
    "flip": (_steps.flip, dict(_IMAGE), "axis (h or v)"),
    "resize": (_steps.resize, _table(_c.OP_RESIZE, size=("", "size", str)), ""),
    "crop": (_steps.crop, {"gravity": ("", "gravity", str)}, "X Y W H (or W H with --gravity)"),
    "hist": (_steps.hist, _table(_c.OP_HIST), ""),
}
_IGNORED = {"border_", "border_value"}  # taken, as alone, by commands that do not filter


def _split(text: str, separators: str, what: str) -> List[str]:
    """Splits at separators outside '...' and "..." quotes, quotes removed
    only when splitting words (separators ' \\t\\n')."""
    parts: List[str] = []
    cur: List[str] = []
    quote = ""
    words = separators != "|"
    for ch in text:
        if not quote and ch in "'\"":
            quote = ch
            if words:
                continue
        elif quote and ch == quote:
            quote = ""
            if words:
                continue
        elif not quote and ch in separators:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if quote:
        raise ValueError(f"{what}: an unclosed quote")
    parts.append("".join(cur))
    return [p for p in parts if p] if words else parts


class _Float(float):
    """A number that messages show as it was written."""

    text: str

    def __new__(cls, text: str) -> "_Float":
        v = super().__new__(cls, text)
        v.text = text
        return v

    def __str__(self) -> str:
        return self.text


class _Int(int):
    text: str

    def __new__(cls, text: str) -> "_Int":
        v = super().__new__(cls, text)
        v.text = text
        return v

    def __str__(self) -> str:
        return self.text


def _value(cli_name: str, kind: Any, text: str) -> Any:
    if isinstance(kind, tuple):  # a number of the table: its parse, its check
        try:
            _c.op_param(kind[0], cli_name, text, "")
        except ValueError as e:
            raise ValueError(f"--{e}") from None
        kind = kind[1]
    if kind == "float":
        try:
            return _Float(text)
        except ValueError:
            raise ValueError(f"--{cli_name} '{text}': not a number") from None
    if kind == "int":
        if not re.fullmatch(r"[+-]?\d+", text.strip()):
            raise ValueError(f"--{cli_name} '{text}': must be an integer")
        return _Int(text)
    return text


def _option(table: Dict[str, _Option], word: str) -> Tuple[str, _Option, Union[str, None]]:
    """The option a word names, and a value attached to it (--x=1, -x1)."""
    if word.startswith("--"):
        name, eq, attached = word[2:].partition("=")
        if name in table:
            return name, table[name], attached if eq else None
    elif len(word) > 1:
        for name, opt in table.items():
            if opt[0] and opt[0] == word[1]:
                return name, opt, word[2:] or None
    raise ValueError(f"unknown option '{word}'")


def _python_names(message: str, table: Dict[str, _Option]) -> str:
    """A builder's message with the option named as on the command line."""
    for name, opt in table.items():
        if message.startswith(opt[1].rstrip("_") + " "):
            return f"--{name}{message[len(opt[1].rstrip('_')):]}"
    return message


def parse_step(words: List[str], last: bool) -> Tuple:
    name = words[0]
    if name not in _COMMANDS:
        raise ValueError(f"no image command '{name}' (blur, sobel, convolve, transpose, rotate, "
                         f"flip, resize, crop; hist last)")
    if name == "hist" and not last:
        raise ValueError("hist can only be the last step")
    build, table, positional = _COMMANDS[name]
    kwargs: Dict[str, Any] = {}
    rest: List[str] = []
    i = 1
    while i < len(words):
        w = words[i]
        i += 1
        if not w.startswith("-") or w == "-" or re.fullmatch(r"-\d+", w):
            rest.append(w)
            continue
        cli_name, (_, arg, kind), attached = _option(table, w)
        if kind is None:
            kwargs[arg] = True
            continue
        if attached is None:
            if i == len(words):
                raise ValueError(f"option '--{cli_name}' needs a value")
            attached, i = words[i], i + 1
        kwargs[arg] = _value(cli_name, kind, attached)
    if name == "crop":
        for w in rest:
            if not re.fullmatch(r"\d+", w):
                raise ValueError(f"'{w}' is not a whole number >= 0")
        kwargs_pos, rest = [_Int(w) for w in rest], []
    elif positional:
        if not rest:
            raise ValueError(f"missing {positional}")
        kwargs_pos = [rest.pop(0)]
    else:
        kwargs_pos = []
    if rest:
        raise ValueError(f"unexpected '{rest[0]}': files go outside the steps")
    if name in ("transpose", "rotate", "flip"):
        kwargs = {k: v for k, v in kwargs.items() if k not in _IGNORED}
    try:
        return build(*kwargs_pos, **kwargs)
    except (TypeError, ValueError) as e:
        raise ValueError(_python_names(str(e), table)) from None


def parse(spec: Union[str, Sequence[str]]) -> list:
    """The steps of 'blur --sigma 2 | sobel' or ['blur --sigma 2', 'sobel']."""
    if isinstance(spec, str):
        texts = _split(spec, "|", "the steps")
    elif isinstance(spec, (list, tuple)) and all(isinstance(s, str) for s in spec):
        texts = list(spec)
    else:
        raise TypeError("steps must be a str like 'blur --sigma 2 | sobel' or a list of such "
                        "steps")
    if not texts:
        raise ValueError("missing the steps, e.g. 'blur | sobel'")
    steps = []
    for i, text in enumerate(texts):
        words = _split(text, " \t\n", f"step {i + 1}")
        if not words:
            raise ValueError(f"step {i + 1} is empty")
        try:
            steps.append(parse_step(words, i + 1 == len(texts)))
        except ValueError as e:
            raise ValueError(f"pipe: step {i + 1} ({words[0][:20]}): {e}") from None
    return _steps.chain(steps)
