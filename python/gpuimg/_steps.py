"""Steps: each operation's arguments checked and turned into the tuple the
extension takes (see ../ext/steps.c), with the CLI's names, defaults and
messages. Shared by the functions, Context's methods, pipe() and batch().
The operations' ranges and choices are the library's table of parameters
(gpuimg.h, parameters): param() checks a value with it, so that Python and
the command line apply the same rule with the same message; Python adds only
the type checks (TypeError)."""

from __future__ import annotations

import math
import os
import re
import numbers
from typing import Any, Optional, Sequence, Tuple, Union

from . import _gpuimg as _c

Step = Tuple[Any, ...]
_borders: dict = {}
_MAX_MASK_FILE = 1 << 20


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} '{value}': not a finite number")
    return v


def _integer(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    v = int(value)
    if not low <= v <= high:
        raise ValueError(f"{name} '{value}': must be an integer from {low} to {high}")
    return v


def param(kind: int, name: str, value: Any) -> Any:
    """value, of a number or choice parameter of an operation, checked by
    the library's table: a float, an int, or a choice's index."""
    info = _params(kind)[name]
    if info["type"] == "choice":
        return _c.op_param(kind, name, value if isinstance(value, str) else str(value), "")
    if info["type"] == "int":
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
        v = max(min(int(value), 1 << 53), -(1 << 53))  # still out of range, as a double
        return _c.op_param(kind, name, v, str(value))
    v = _number(name, value)
    return _c.op_param(kind, name, v, str(value))


_tables: dict = {}


def _params(kind: int) -> dict:
    """The table's parameters of an operation, by name."""
    t = _tables.get(kind)
    if t is None:
        t = _tables[kind] = {p["name"]: p for p in _c.op_params(kind)}
    return t


def options(kind: int) -> list:
    """The operation's parameters that the command line takes as options."""
    return [p for p in _params(kind).values() if p["form"] == "option"]


def flag(name: str, value: Any) -> bool:
    if isinstance(value, numbers.Integral) or type(value).__name__ == "bool_":
        return bool(value)
    raise TypeError(f"{name} must be True or False, not {type(value).__name__}")


def border(mode: Any, value: Any) -> Tuple[int, int]:
    """The border mode's number (names and aliases as the CLI's --border)
    and the checked --border-value."""
    b = _borders.get(mode) if isinstance(mode, str) else None
    if b is None:
        b = _c.border_parse(mode)
        _borders[mode] = b
    return b, _integer("border_value", value, 0, 255)


def blur(sigma: float = 1.0, radius: Optional[int] = None, kernel: str = "gaussian",
         border_: str = "mirror", border_value: int = 0) -> Step:
    s = param(_c.OP_BLUR, "sigma", sigma)
    r = -1 if radius is None else param(_c.OP_BLUR, "radius", radius)
    k = param(_c.OP_BLUR, "kernel", kernel)
    if k == _c.BLUR_GAUSSIAN and _c.blur_radius(k, s, r) < 0:
        raise ValueError(f"sigma {s:g} needs a radius over {_c.BLUR_MAX_RADIUS}; give radius")
    if k == _c.BLUR_BOX and r < 0:
        r = _c.blur_radius(k, s, r)
    return (_c.OP_BLUR, k, s, r) + border(border_, border_value)


def sobel(scale: float = 1.0, threshold: Optional[float] = None, gray: bool = False,
          border_: str = "mirror", border_value: int = 0) -> Step:
    sc = param(_c.OP_SOBEL, "scale", scale)
    t = 0.0 if threshold is None else param(_c.OP_SOBEL, "threshold", threshold)
    return (_c.OP_SOBEL, sc, threshold is not None, t, flag("gray", gray)) + border(border_, border_value)


def transpose() -> Step:
    return (_c.OP_TRANSFORM, _c.TRANSPOSE)


_ANGLES = {90: _c.ROTATE_90, 180: _c.ROTATE_180, 270: _c.ROTATE_270}
_AXES = {"h": _c.FLIP_H, "v": _c.FLIP_V}


def rotate(angle: Union[int, str]) -> Step:
    key = angle
    if isinstance(angle, str) and angle in ("90", "180", "270"):
        key = int(angle)
    if isinstance(key, bool) or key not in _ANGLES:
        raise ValueError(f"'{angle}' is not one of the choices (90, 180 or 270)")
    return (_c.OP_TRANSFORM, _ANGLES[key])


def flip(axis: str) -> Step:
    if not isinstance(axis, str) or axis not in _AXES:
        raise ValueError(f"'{axis}' is not one of the choices (h or v)")
    return (_c.OP_TRANSFORM, _AXES[axis])


def _box(size: Any) -> Tuple[int, int]:
    """The CLI's --size: "WxH", "N", an integer N or a pair (W, H)."""
    if isinstance(size, str):
        m = re.fullmatch(r"(\d+)(?:x(\d+))?", size)
        if not m:
            raise ValueError(f"size '{size}': expected WxH or N")
        w = int(m.group(1))
        h = int(m.group(2)) if m.group(2) else w
    elif isinstance(size, (tuple, list)) and len(size) == 2:
        w, h = size
    else:
        w = h = size
    side = _c.RESIZE_MAX_SIDE
    return _integer("size", w, 1, side), _integer("size", h, 1, side)


def resize(width: Optional[int] = None, height: Optional[int] = None, size: Any = None,
           scale: Optional[float] = None, fit: Optional[str] = None,
           filter: str = "lanczos3") -> Step:
    w = 0 if width is None else param(_c.OP_RESIZE, "width", width)
    h = 0 if height is None else param(_c.OP_RESIZE, "height", height)
    if size is not None:
        if width is not None or height is not None:
            raise ValueError("give size or width/height, not both")
        w, h = _box(size)
    s = 0.0 if scale is None else param(_c.OP_RESIZE, "scale", scale)
    if s and (w or h):
        raise ValueError("give scale or a size (width, height, size), not both")
    if not s and not w and not h:
        raise ValueError("give width, height, size or scale")
    f = param(_c.OP_RESIZE, "fit", "inside" if fit is None else fit)
    # as the CLI's --fit: without both sides it would be ignored in silence
    if fit is not None and not (w and h):
        raise ValueError(f"fit '{fit}' needs both sides: width and height, or size")
    return (_c.OP_RESIZE, w, h, s, f, param(_c.OP_RESIZE, "filter", filter))


def crop(*box: Any, gravity: Optional[str] = None) -> Step:
    """crop(x, y, width, height), or crop(width, height, gravity="centre")."""
    if gravity is not None and gravity not in ("centre", "center"):
        raise ValueError(f"gravity '{gravity}': expected centre")
    need = 2 if gravity else 4
    if len(box) != need:
        raise ValueError("expected width, height with gravity" if gravity
                         else "expected x, y, width, height")
    names = ("width", "height") if gravity else ("x", "y", "width", "height")
    v = [param(_c.OP_CROP, n, b) for n, b in zip(names, box)]
    x, y, w, h = ([0, 0] + v) if gravity else v
    return (_c.OP_CROP, x, y, w, h, gravity is not None)


def hist(bins: int = 256) -> Step:
    return (_c.OP_HIST, param(_c.OP_HIST, "bins", bins))


def parse_mask(spec: str) -> list:
    """The CLI's --kernel: a file, or rows of numbers separated by ';' or
    newlines, values by blanks or commas, '#' starting a comment."""
    text = spec
    if os.path.isfile(spec):
        with open(spec, encoding="utf-8", errors="replace") as f:
            text = f.read(_MAX_MASK_FILE + 1)
        if len(text) > _MAX_MASK_FILE:
            raise ValueError(f"kernel: {spec}: larger than {_MAX_MASK_FILE} bytes")
    rows: list = []
    for line in text.split("\n"):
        for part in line.split("#")[0].split(";"):
            words = [w for w in re.split(r"[ \t,\r]+", part) if w]
            if not words:
                continue
            try:
                rows.append([float(w) for w in words])
            except ValueError:
                why = "not a number"
                if not re.search(r"[ \t;,\n]", spec) and re.search(r"[a-df-zA-DF-Z]", spec):
                    raise ValueError(f"kernel: {spec}: no such file, and not a mask") from None
                raise ValueError(f"kernel: {why} (row {len(rows) + 1})") from None
            if len(rows[-1]) != len(rows[0]):
                raise ValueError(f"kernel: rows have different lengths (row {len(rows)})")
    if not rows:
        raise ValueError("kernel: no values (row 0)")
    return rows


def convolve(mask: Any, normalize: bool = False, border_: str = "mirror",
             border_value: int = 0) -> Step:
    import numpy as np

    if isinstance(mask, str):
        mask = parse_mask(mask)
    try:
        m = np.asarray(mask)
        if m.dtype.kind not in "biuf":
            raise TypeError(f"not {m.dtype}")
        m = np.ascontiguousarray(m, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"mask must be a 2-D array of real numbers: {e}") from None
    if m.ndim != 2 or m.size == 0:
        raise ValueError(f"mask must be a 2-D array of numbers, not of shape {m.shape}")
    h, w = m.shape
    if not (w & 1 and h & 1):
        raise ValueError(f"kernel: the mask is {w}x{h}; width and height must be odd")
    if not np.isfinite(m).all():
        raise ValueError("kernel: the mask's values must be finite")
    if w > _c.CONVOLVE_MAX_SIZE or h > _c.CONVOLVE_MAX_SIZE:
        raise ValueError(f"kernel: the mask is {w}x{h}; at most "
                         f"{_c.CONVOLVE_MAX_SIZE}x{_c.CONVOLVE_MAX_SIZE}")
    return (_c.OP_CONVOLVE, m.tobytes(), w, h, flag("normalize", normalize)) + border(border_, border_value)


def chain(steps: Sequence[Step]) -> list:
    """Checks a chain's length and that hist comes last only."""
    steps = list(steps)
    if not 1 <= len(steps) <= _c.MAX_STEPS:
        raise ValueError(f"{len(steps)} steps: a chain has 1..{_c.MAX_STEPS}")
    for i, s in enumerate(steps[:-1]):
        if s[0] == _c.OP_HIST:
            raise ValueError(f"step {i + 1} (hist): hist can only be the last step")
    return steps
