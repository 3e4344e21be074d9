"""gpuimg: image filters with a bit-identical CPU and CUDA backend.

The functions mirror the command line (names, defaults, messages) and give
the CLI's very bytes:

    import gpuimg
    img = gpuimg.load("in.png")                    # numpy uint8 (H, W[, C])
    out = gpuimg.blur(img, sigma=2, border="reflect")
    gpuimg.save(out, "out.png")
    edges = gpuimg.pipe(img, "blur --sigma 2 | sobel --gray")

Images are uint8 or uint16 arrays (H, W) or (H, W, C), C 1..4 (gray,
gray+alpha, RGB, RGBA); uint16 is a 16-bit image, and results keep the
dtype (operations that do not take 16 bits yet say so). numpy arrays of any strides are taken (in place when each row's
pixels are contiguous); results are new arrays. CuPy and PyTorch CUDA
arrays stay on the GPU: the result is an array of the same library on the
same device, with the same bytes as on the CPU.

device: "auto" (the device that finishes first; see gpuimg.h), "cpu",
"cuda", or a Context, which keeps its device warm across calls. The GIL is
released while the library works, so threads run calls at once.

Errors: ValueError or TypeError for arguments, OSError subclasses for files
(FileNotFoundError, PermissionError, DecodeError for a file that is no
image or of a kind gpuimg does not read), DeviceError for CUDA, each with gpuimg's message.
"""

from __future__ import annotations

# Modules and helpers under private names, and the typing names for type
# checkers only (annotations are strings here): dir(gpuimg) is the API.
import errno as _errno
import os as _os
import threading as _threading
import typing as _typing
import warnings as _warnings
from contextlib import contextmanager as _contextmanager
from dataclasses import dataclass as _dataclass

import numpy as _np

from . import _arrays, _pipe, _steps
from . import _gpuimg as _c
from ._gpuimg import DecodeError, DeviceError, Metadata

if _typing.TYPE_CHECKING:
    import os
    from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

    PathLike = Union[str, "os.PathLike[str]"]
    Image = Any  # numpy uint8 (H, W) or (H, W, C); or a CuPy / PyTorch CUDA array
    Device = Union[str, "Context"]
    Steps = Union[str, Sequence[str]]

del annotations  # the __future__ import's name, no part of the API

__version__ = _c.VERSION
__all__ = [
    "load", "load_with_metadata", "save", "Metadata", "blur", "sobel", "transpose", "rotate", "flip", "convolve", "resize", "crop", "thumbnail", "hist", "pipe",
    "compare", "CompareResult", "batch", "BatchItem", "Context", "cuda_available",
    "DecodeError", "DeviceError",
]

_DEVICES = {"auto": _c.DEVICE_AUTO, "cpu": _c.DEVICE_CPU, "cuda": _c.DEVICE_CUDA}


def _device_choice(device: Any) -> Tuple[int, int, bool]:
    """(code, GPU, named) of a device string: "auto", "cpu", "cuda" (GPU 0,
    or the GPU a CUDA array lives on) or "cuda:N" (GPU N, named: a CUDA
    array must live there). N counts the GPUs CUDA sees."""
    if isinstance(device, str):
        name, colon, index = device.lower().partition(":")
        code = _DEVICES.get(name)
        if code is not None and not colon:
            return code, 0, False
        if code == _c.DEVICE_CUDA and index.isdigit() and int(index) < 64:
            return code, int(index), True
    raise ValueError(f"device '{device}': expected auto, cpu, cuda or cuda:N (or a Context)")


def _array_gpu(d: Any, gpu: int, named: bool, device: Any) -> int:
    """The GPU that runs a CUDA array: the one it lives on, which must be
    the one named, if any."""
    if named and d.device_id != gpu:
        raise ValueError(f"a CUDA array on GPU {d.device_id}, and device {device!r} names GPU "
                         f"{gpu}: name the array's GPU, or move the array to GPU {gpu}")
    return d.device_id


# ---------------------------------------------------------------- pooled contexts

_pool: Dict[Tuple[int, int], List[Any]] = {}
_pool_lock = _threading.Lock()


@_contextmanager
def _borrow(code: int, gpu: int = 0) -> Iterator[Any]:
    """A warm context of the device (on that GPU) for one call: each thread
    takes one of its own from the pool, so calls from many threads run at
    once."""
    with _pool_lock:
        free = _pool.setdefault((code, gpu), [])
        ctx = free.pop() if free else None
    if ctx is None:
        ctx = _c.Context(code, 0, gpu)
    try:
        yield ctx
    finally:
        with _pool_lock:
            _pool[(code, gpu)].append(ctx)


def _hist_array(r: Tuple[int, int, bytes]) -> _np.ndarray:
    channels, bins, counts = r
    return _np.frombuffer(counts, dtype=_np.int64).reshape(channels, bins).copy()


def _apply(ctx: Any, img: Image, a: _np.ndarray, steps: list) -> Any:
    r = ctx.apply(a, steps, _arrays.alloc_host)
    if steps[-1][0] == _c.OP_HIST:
        return _hist_array(r)
    return _arrays.back_to(img, _arrays.shaped(r, a.ndim, _arrays.channels_of(a)))


def _apply_device(ctx: Any, d: Any, steps: list) -> Any:
    r = _arrays.run_device(ctx, d, steps)
    if steps[-1][0] == _c.OP_HIST:
        return _hist_array(r)
    return _arrays.shaped(r, len(d.shape), _arrays.channels_of(d))


def _run(img: Image, steps: list, device: Device) -> Any:
    """Runs a chain of step tuples on img on the device."""
    steps = _steps.chain(steps)
    d = _arrays.device_image(img)
    if isinstance(device, Context):
        if d is not None:
            return _apply_device(device._for_device_arrays(d), d, steps)
        return _apply(device._ctx, img, _arrays.host(img), steps)
    code, gpu, named = _device_choice(device)
    if d is not None:
        if code == _c.DEVICE_CPU:
            raise ValueError("a CUDA array needs device 'auto', 'cuda' or 'cuda:N'")
        with _borrow(_c.DEVICE_CUDA, _array_gpu(d, gpu, named, device)) as ctx:
            return _apply_device(ctx, d, steps)
    a = _arrays.host(img)
    with _borrow(code, gpu) as ctx:
        return _apply(ctx, img, a, steps)


# ---------------------------------------------------------------- operations

def blur(img: Image, sigma: float = 1.0, radius: Optional[int] = None, kernel: str = "gaussian",
         border: str = "mirror", border_value: int = 0, device: Device = "auto") -> Any:
    """gpuimg blur: a separable Gaussian (or box) blur; images with alpha are
    blurred premultiplied. sigma > 0; radius 0..1024 (None: ceil(3 sigma));
    kernel "gaussian" or "box" (the (2R+1)^2 mean); border one of zero
    (constant), replicate (clamp, nearest, edge), reflect (symmetric),
    mirror (reflect101, the default), wrap (periodic, tile); border_value
    0..255 is what zero reads outside."""
    return _run(img, [_steps.blur(sigma, radius, kernel, border, border_value)], device)


def sobel(img: Image, scale: float = 1.0, threshold: Optional[float] = None, gray: bool = False,
          border: str = "mirror", border_value: int = 0, device: Device = "auto") -> Any:
    """gpuimg sobel: min(255, round(scale * sqrt(gx^2 + gy^2))) per colour
    channel, alpha copied; with threshold, 255 where scale * magnitude >=
    threshold, else 0; gray filters luma (77R + 150G + 29B + 128) >> 8 and
    gives one channel."""
    return _run(img, [_steps.sobel(scale, threshold, gray, border, border_value)], device)


def transpose(img: Image, device: Device = "auto") -> Any:
    """gpuimg transpose: out(x, y) = in(y, x)."""
    return _run(img, [_steps.transpose()], device)


def rotate(img: Image, angle: Union[int, str], device: Device = "auto") -> Any:
    """gpuimg rotate: clockwise by 90, 180 or 270 degrees."""
    return _run(img, [_steps.rotate(angle)], device)


def flip(img: Image, axis: str, device: Device = "auto") -> Any:
    """gpuimg flip: "h" swaps left and right, "v" turns the image upside down."""
    return _run(img, [_steps.flip(axis)], device)


def convolve(img: Image, mask: Any, normalize: bool = False, border: str = "mirror",
             border_value: int = 0, device: Device = "auto") -> Any:
    """gpuimg convolve: an odd mask up to 31x31 applied unflipped and
    centred (a correlation, as OpenCV's filter2D), every channel alone,
    rounded and clamped. mask: a 2-D array of numbers, or the CLI's text
    ("1 2 1; 2 4 2; 1 2 1", or a file of such rows); normalize divides it
    by its sum."""
    return _run(img, [_steps.convolve(mask, normalize, border, border_value)], device)


def resize(img: Image, width: Optional[int] = None, height: Optional[int] = None,
           size: Any = None, scale: Optional[float] = None, fit: Optional[str] = None,
           filter: str = "lanczos3", device: Device = "auto") -> Any:
    """gpuimg resize: resampled to width and/or height, size ("WxH", N or
    (W, H)) or scale, with the pixel-centre convention and the filter
    widened when reducing (gpuimg.h gives the exact integer arithmetic, the
    same bytes on every device). fit, which needs both sides (width and
    height, or size): "inside" (the default: keep the aspect, within the
    box), "fill" (exactly the box) or "cover";
    filter: lanczos3, lanczos2, cubic, linear, area or nearest. Images with
    alpha are resampled premultiplied."""
    return _run(img, [_steps.resize(width, height, size, scale, fit, filter)], device)


def crop(img: Image, *box: int, gravity: Optional[str] = None, device: Device = "auto") -> Any:
    """gpuimg crop: crop(img, x, y, width, height), the rectangle whose
    top-left pixel is (x, y), cut at the right and bottom edges (width or
    height 0: to the edge); or crop(img, width, height, gravity="centre")."""
    return _run(img, [_steps.crop(*box, gravity=gravity)], device)


def thumbnail(source: Union[PathLike, Image], size: Any, crop: str = "none",
              device: Device = "auto") -> Any:
    """gpuimg thumbnail: a small copy into the box size ("WxH", N or (W, H)).
    From a file, a JPEG is decoded at 1/2, 1/4 or 1/8 of its size inside the
    IDCT (the largest shrink that keeps both sides at least the box's larger
    side) and turned as its Exif Orientation says; an array is taken as it
    is. Then resized with lanczos3 into the box; crop="centre" fills the box
    and cuts the overflow evenly. The CLI's very pixels for the same file."""
    w, h = _steps._box(size)
    if crop not in ("none", "centre", "center"):
        raise ValueError(f"crop '{crop}': expected none or centre")
    steps = [_steps.resize(width=w, height=h, fit="inside" if crop == "none" else "cover")]
    if crop != "none":
        steps.append(_steps.crop(w, h, gravity="centre"))
    if not isinstance(source, (str, _os.PathLike)):
        return _run(source, steps, device)
    try:
        pixels, meta = _c.load(source, max(w, h))
    except OSError as e:
        raise _file_error(e, source, writing=False) from None
    a = _np.asarray(pixels)
    if a.shape[2] == 1:
        a = a.reshape(a.shape[0], a.shape[1])
    turns = [(_c.OP_TRANSFORM, t) for t in _c.orientation_steps(meta.orientation)]
    return _run(a, turns + steps, device)


def hist(img: Image, bins: int = 256, device: Device = "auto") -> _np.ndarray:
    """gpuimg hist: counts[c, b] = the pixels whose channel c falls in bin
    b = v * bins // 256 (// 65536 for 16-bit images); an int64 array (channels, bins)."""
    return _run(img, [_steps.hist(bins)], device)


def pipe(img: Image, steps: Steps, device: Device = "auto") -> Any:
    """gpuimg pipe: several operations in one go, written as on the command
    line ("blur --sigma 2 | rotate 90 | sobel --gray", or a list of such
    steps); the pixels stay where the backend computes between them. hist
    may be the last step (then the counts come back)."""
    return _run(img, _pipe.parse(steps), device)


# ---------------------------------------------------------------- files

_FORMATS = {"png": _c.FORMAT_PNG, "jpeg": _c.FORMAT_JPEG, "jpg": _c.FORMAT_JPEG,
            "pnm": _c.FORMAT_PNM, "ppm": _c.FORMAT_PNM, "pgm": _c.FORMAT_PNM,
            "pam": _c.FORMAT_PAM, "tiff": _c.FORMAT_TIFF, "tif": _c.FORMAT_TIFF}
_TIFF_COMPRESSIONS = {"deflate": _c.TIFF_DEFLATE, "none": _c.TIFF_UNCOMPRESSED}
_PNG_FILTERS = {"auto": _c.PNG_FILTER_AUTO, "none": _c.PNG_FILTER_NONE,
                "sub": _c.PNG_FILTER_SUB, "up": _c.PNG_FILTER_UP,
                "average": _c.PNG_FILTER_AVERAGE, "paeth": _c.PNG_FILTER_PAETH}


def _file_error(e: OSError, path: PathLike, writing: bool) -> OSError:
    """An I/O failure as the OSError subclass for its cause, with gpuimg's
    message (the library reports them all as I/O errors)."""
    if type(e) is not OSError:
        return e
    p = _os.fspath(path)
    where = _os.path.dirname(_os.path.abspath(p)) if writing else p
    if not _os.path.exists(where):
        return FileNotFoundError(_errno.ENOENT, str(e), p)
    if _os.path.isdir(p):
        return IsADirectoryError(_errno.EISDIR, str(e), p)
    if not _os.access(where, _os.W_OK if writing else _os.R_OK):
        return PermissionError(_errno.EACCES, str(e), p)
    return e


def load_with_metadata(path: PathLike, auto_orient: bool = False,
                       device: Device = "auto") -> Tuple[_np.ndarray, Metadata]:
    """load(), and the metadata that travels with the pixels (Exif, ICC,
    XMP, PNG colour chunks) for save(..., metadata=) to write, as the CLI
    keeps it from input to output. With auto_orient the metadata says
    Orientation 1, as the CLI's --auto-orient writes. A TIFF of several
    pages gives its first, with a UserWarning saying so (as the CLI warns
    on stderr)."""
    try:
        pixels, meta = _c.load(path)
    except OSError as e:
        raise _file_error(e, path, writing=False) from None
    if meta.pages > 1:
        _warnings.warn(f"{_os.fsdecode(path)}: the TIFF has {meta.pages} pages; only the first was read",
                       stacklevel=2)
    a = _np.asarray(pixels)
    if a.shape[2] == 1:
        a = a.reshape(a.shape[0], a.shape[1])
    turns = _c.orientation_steps(meta.orientation) if _steps.flag("auto_orient", auto_orient) \
        else ()
    if turns:
        a = _run(a, [(_c.OP_TRANSFORM, t) for t in turns], device)
    if auto_orient:
        meta.set_orientation(1)
    return a, meta


def load(path: PathLike, auto_orient: bool = False, device: Device = "auto") -> _np.ndarray:
    """Decodes a PNG, JPEG, PNM/PAM or TIFF file to (H, W) for gray, else
    (H, W, C): uint8, or uint16 for a 16-bit PNG or TIFF or a PNM/PAM of maxval
    over 255 (scaled to 0..65535, see gpuimg.h), the pixels as stored (JPEGs decode to stb_image's pixels on
    every machine). auto_orient turns them as the Exif Orientation says a
    viewer shows them."""
    return load_with_metadata(path, auto_orient, device)[0]


def _save_settings(format: Optional[str], quality: int, png_level: Optional[int],
                   png_filter: Optional[str]) -> Tuple[int, int, int, int]:
    if format is None:
        f = _c.FORMAT_AUTO
    elif not isinstance(format, str) or format.lower() not in _FORMATS:
        raise ValueError(f"format '{format}': expected png, jpeg, pnm (ppm, pgm), pam or tiff")
    else:
        f = _FORMATS[format.lower()]
    q = _steps._integer("quality", quality, 1, 100)
    level = 0 if png_level is None else _steps._integer("png_level", png_level, 1, 12)
    if png_filter is None:
        flt = _c.PNG_FILTER_DEFAULT
    elif png_filter not in _PNG_FILTERS:
        raise ValueError(f"png_filter '{png_filter}': expected auto, none, sub, up, average or "
                         f"paeth")
    else:
        flt = _PNG_FILTERS[png_filter]
    return f, q, level, flt


def _tiff_compression(value: str) -> int:
    if value not in _TIFF_COMPRESSIONS:
        raise ValueError(f"tiff_compression {value!r}: expected deflate or none")
    return _TIFF_COMPRESSIONS[value]


def _check_format_name(path: PathLike, f: int, format: Optional[str]) -> None:
    """format= is for names that cannot tell, as the CLI's --format: a name
    whose extension says another format is refused, not written with bytes
    that its name belies (x.png holding a JPEG)."""
    if f != _c.FORMAT_AUTO and _c.format_from_path(path) not in (_c.FORMAT_AUTO, f):
        raise ValueError(f"{_os.fspath(path)}: format '{format}' contradicts the name: format= "
                         f"applies only where the name has no known extension")


def _check_jpeg_depth(path: PathLike, f: int, depth: Optional[int], sixteen_bits: bool) -> None:
    """JPEG holds 8 bits a sample: the library's rule, said in Python's
    words (depth=) before the library would name the CLI's --depth."""
    if f != _c.FORMAT_JPEG:
        return
    if depth == 16:
        raise ValueError(f"{_os.fspath(path)}: depth=16: JPEG holds 8 bits a sample; write a "
                         f"PNG, PNM, PAM or TIFF for 16 bits")
    if sixteen_bits and depth is None:
        raise ValueError(f"{_os.fspath(path)}: a 16-bit image cannot be written as JPEG (8 bits "
                         f"a sample): pass depth=8 to write it at 8 bits")


def save(img: Image, path: PathLike, quality: int = 90, png_level: Optional[int] = None,
         png_filter: Optional[str] = None, format: Optional[str] = None,
         metadata: Optional[Metadata] = None, depth: Optional[int] = None,
         tiff_compression: str = "deflate") -> None:
    """Encodes to a file, written atomically (nothing is left behind on
    failure). format: png | jpeg | pnm (ppm, pgm) | pam | tiff, or None for
    the path's extension (a path whose extension names another format is a
    ValueError); quality: JPEG 1..100; png_level 1..9 (12 with
    libdeflate; None: the default); png_filter: auto (None: a filter per
    row, as stb picks it), none, sub, up, average, paeth; metadata (from load_with_metadata): written into the
    output in its container's form (none by default); depth: 8 or 16 bits a
    sample written (None: the array's, uint8 or uint16; JPEG holds 8 only),
    converted as the CLI's --depth does; tiff_compression: deflate (with the
    horizontal predictor) or none, as the CLI's --tiff-compression. The bytes
    are the CLI's."""
    settings = _save_settings(format, quality, png_level, png_filter)
    compression = _tiff_compression(tiff_compression)
    if depth not in (None, 8, 16):
        raise ValueError(f"depth {depth!r}: expected 8, 16 or None (the image's)")
    _check_format_name(path, settings[0], format)
    if settings[0] == _c.FORMAT_AUTO and _c.format_from_path(path) == _c.FORMAT_AUTO:
        raise ValueError(f"{_os.fspath(path)}: cannot tell the format from the name: end it "
                         f"in .png, .jpg, .pnm, .pam or .tif, or pass format= (png, jpeg, pnm, "
                         f"pam, tiff)")
    a = _arrays.host(_arrays.to_host(img))
    f = settings[0] if settings[0] != _c.FORMAT_AUTO else _c.format_from_path(path)
    _check_jpeg_depth(path, f, depth, a.dtype == _np.uint16)
    try:
        _c.save(a, path, *settings, metadata, depth or 0, compression)
    except OSError as e:
        raise _file_error(e, path, writing=True) from None


# ---------------------------------------------------------------- compare

@_dataclass(frozen=True)
class CompareResult:
    """What gpuimg compare reports for a pair (see gpuimg.h, compare)."""
    equal: bool                 #: different_pixels within max_different
    different_pixels: int       #: pixels where a channel differs by more than tolerance
    different_percent: float
    max_diff: int               #: the largest difference over every channel
    max_abs_diff: Tuple[int, ...]  #: per channel
    mean_abs_diff: float
    mse: float
    psnr: float                 #: dB; inf when equal
    ssim: float                 #: mean SSIM over the channels
    ssim_channel: Tuple[float, ...]
    width: int
    height: int
    channels: int
    tolerance: int


def _max_different(value: Union[int, str], pixels: int) -> float:
    """K pixels, or "K%" of the pixels, as a pixel count."""
    if isinstance(value, str) and value.endswith("%"):
        try:
            p = float(value[:-1])
        except ValueError:
            p = -1.0
        if not p >= 0:
            raise ValueError(f"max_different '{value}': expected a pixel count K or a "
                             f"percentage K%")
        return p * pixels / 100.0
    return _steps._integer("max_different", value, 0, 1 << 62)


def compare(expected: Image, actual: Image, tolerance: int = 0,
            max_different: Union[int, str] = 0, ssim: bool = True,
            device: Device = "auto") -> CompareResult:
    """gpuimg compare on two images of the same shape (else ValueError):
    a pixel differs when a channel differs by more than tolerance (0..255
    for uint8 images, 0..65535 for uint16); equal when at most
    max_different pixels (or "K%" of them) differ."""
    # the library bounds it by the images' depth, as the CLI's --tolerance
    tol = _steps._integer("tolerance", tolerance, 0, 65535)
    e = _arrays.host(_arrays.to_host(expected))
    a = _arrays.host(_arrays.to_host(actual))
    if isinstance(device, Context):
        r = device._ctx.compare(e, a, tol, _steps.flag("ssim", ssim))
    else:
        with _borrow(*_device_choice(device)[:2]) as ctx:
            r = ctx.compare(e, a, tol, _steps.flag("ssim", ssim))
    limit = _max_different(max_different, r["pixels"])
    return CompareResult(
        equal=r["different_pixels"] <= limit, different_pixels=r["different_pixels"],
        different_percent=r["different_percent"], max_diff=max(r["max_abs_diff"]),
        max_abs_diff=r["max_abs_diff"], mean_abs_diff=r["mean_abs_diff"], mse=r["mse"],
        psnr=r["psnr"], ssim=r["ssim"], ssim_channel=r["ssim_channel"], width=r["width"],
        height=r["height"], channels=r["channels"], tolerance=tol)


# ---------------------------------------------------------------- batch

@_dataclass(frozen=True)
class BatchItem:
    """One file of a batch: status "ok", "failed", "skipped" or "not started"."""
    input: str
    output: str
    status: str
    reason: str   #: why it failed, naming the file; "" otherwise
    ms: float
    backend: str  #: "cpu" or "cuda": where the steps ran


_EXTENSIONS = {_c.FORMAT_PNG: "png", _c.FORMAT_JPEG: "jpg", _c.FORMAT_PNM: "pnm",
               _c.FORMAT_PAM: "pam", _c.FORMAT_TIFF: "tif"}


def _batch_name(path: str, f: int) -> str:
    """An output's name in batch's folder, as gpuimg -o DIR gives it: the
    input's, with format= and a name that says another format the
    format's extension (photo.png -> photo.jpg), so that the name tells
    what the file holds."""
    name = _os.path.basename(path)
    if f == _c.FORMAT_AUTO or _c.format_from_path(name) == f:
        return name
    stem, dot, _ = name.rpartition(".")
    return (stem if dot else name) + "." + _EXTENSIONS[f]


def batch(inputs: Sequence[PathLike], outputs: Union[PathLike, Sequence[PathLike]], steps: Steps,
          on_item: Optional[Callable[[BatchItem], Any]] = None, device: str = "auto",
          jobs: int = 0, skip_existing: bool = False, auto_orient: bool = False,
          strip: bool = False, format: Optional[str] = None, quality: int = 90,
          png_level: Optional[int] = None, png_filter: Optional[str] = None,
          depth: Optional[int] = None, tiff_compression: str = "deflate") -> List[BatchItem]:
    """Files to files with the library's batch engine (as gpuimg -o DIR):
    codec workers decode and encode, compute lanes run the steps (written
    as for pipe), memory stays flat. outputs: one path per input, or a
    directory that gets each input's file name. One bad input fails alone:
    look at each item's status; two inputs that would write one output
    file (one file by two names too: ./, .., a link to its folder) are a
    ValueError naming both and the file, before anything is written. With format= and a
    directory, the outputs take the format's extension (photo.png ->
    photo.jpg), as gpuimg -o DIR --format names them. on_item(item) is called as each ends (from
    the batch's threads, one call at a time); if it raises, no new file
    starts and the exception comes out of batch(). depth: 8 or 16 bits a
    sample written (None: each image's own) and tiff_compression, as save().
    On CUDA the images spread over every GPU, or run on GPU N alone with
    device "cuda:N"."""
    if depth not in (None, 8, 16):
        raise ValueError(f"depth {depth!r}: expected 8, 16 or None (the image's)")
    code, gpu, named = _device_choice(device)
    chain = _pipe.parse(steps)
    # a str is a sequence too: each of its characters would be an input
    if isinstance(inputs, (str, bytes, _os.PathLike)):
        raise TypeError(f"inputs is one path, {_os.fsdecode(inputs)!r}: pass a list of paths "
                        f"([path] for one file)")
    ins = [_os.fspath(p) for p in inputs]
    f, q, level, flt = _save_settings(format, quality, png_level, png_filter)
    if isinstance(outputs, (str, _os.PathLike)):
        folder = _os.fspath(outputs)
        _os.makedirs(folder, exist_ok=True)
        outs = [_os.path.join(folder, _batch_name(p, f)) for p in ins]
    else:
        outs = [_os.fspath(p) for p in outputs]
    for o in outs:
        _check_format_name(o, f, format)
        # each image's own depth is known once decoded: its item fails then
        _check_jpeg_depth(o, f if f != _c.FORMAT_AUTO else _c.format_from_path(o), depth, False)
    compression = _tiff_compression(tiff_compression)
    callback = None if on_item is None else (lambda d: on_item(BatchItem(
        d["input"], d["output"], d["status"], d["reason"], d["ms"], d["backend"])))
    items = _c.batch(ins, outs, chain, callback, code,
                     _steps._integer("jobs", jobs, 0, 256),
                     _steps.flag("skip_existing", skip_existing),
                     _steps.flag("auto_orient", auto_orient), _steps.flag("strip", strip), f, q,
                     level, flt, depth or 0, gpu if named else -1, compression)
    return [BatchItem(d["input"], d["output"], d["status"], d["reason"], d["ms"], d["backend"])
            for d in items]


def cuda_available() -> Tuple[bool, str]:
    """(True, "") when a GPU can be used, else (False, why)."""
    n, why = _c.cuda_devices()
    return n > 0, why


# ---------------------------------------------------------------- Context

def _context_method(f: Callable) -> Callable[..., Any]:
    """gpuimg.f as a method of Context: device=the context."""
    def method(self: "Context", *args: Any, **kwargs: Any) -> Any:
        return f(*args, device=self, **kwargs)

    method.__name__ = method.__qualname__ = f.__name__
    method.__doc__ = f"gpuimg.{f.__name__} on this context's device.\n\n{f.__doc__}"
    return method


class Context:
    """A device kept warm across calls (CUDA's start-up is paid once), with
    the functions of the module as methods: ctx.blur(img, sigma=2) is
    gpuimg.blur(img, sigma=2, device=ctx). One thread uses it at a time
    (others wait their turn); make one per thread for concurrent work.

    device: "auto", "cpu", "cuda" (GPU 0) or "cuda:N" (GPU N of those CUDA
    sees); threads: the most the CPU backend runs an operation on (0: one
    per core; a small image takes fewer). A CUDA array runs on the GPU it
    lives on, on a CUDA context the context starts for that GPU; a context
    that names its GPU ("cuda:1") refuses arrays on another."""

    def __init__(self, device: str = "auto", threads: int = 0) -> None:
        self._device = device
        self._code, self._gpu, self._named = _device_choice(device)
        self._threads = _steps._integer("threads", threads, 0, 4096)
        self._ctx = _c.Context(self._code, self._threads, self._gpu)
        self._cuda: Dict[int, Any] = {self._gpu: self._ctx} if self._code == _c.DEVICE_CUDA else {}
        self._lock = _threading.Lock()

    def _for_device_arrays(self, d: Any) -> Any:
        if self._code == _c.DEVICE_CPU:
            raise ValueError("a CUDA array needs a context of device 'auto', 'cuda' or 'cuda:N'")
        gpu = _array_gpu(d, self._gpu, self._named, self._device)
        with self._lock:
            if gpu not in self._cuda:
                self._cuda[gpu] = _c.Context(_c.DEVICE_CUDA, self._threads, gpu)
            return self._cuda[gpu]

    @property
    def backend(self) -> str:
        """'cpu' or 'cuda': the backend the context settles on (under auto,
        this may start CUDA and wait for it)."""
        return self._ctx.backend()

    @property
    def last_choice(self) -> str:
        """The device of the last operation and why, one line."""
        return self._ctx.last()[1]

    @property
    def last_backend(self) -> str:
        """'cpu' or 'cuda': where the last operation ran."""
        return self._ctx.last()[0]

    @property
    def last_times(self) -> Dict[str, float]:
        """Where the last operation's time went, in ms: startup (CUDA's, for
        the operation that paid it), upload, kernel (on the CPU the whole
        operation), download."""
        return dict(zip(("startup", "upload", "kernel", "download"), self._ctx.last_times()))

    def close(self) -> None:
        """Releases the device now (also when the context is collected)."""
        self._ctx.close()
        for ctx in self._cuda.values():
            if ctx is not self._ctx:
                ctx.close()

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    blur = _context_method(blur)
    sobel = _context_method(sobel)
    transpose = _context_method(transpose)
    rotate = _context_method(rotate)
    flip = _context_method(flip)
    convolve = _context_method(convolve)
    resize = _context_method(resize)
    crop = _context_method(crop)
    thumbnail = _context_method(thumbnail)
    hist = _context_method(hist)
    pipe = _context_method(pipe)
    compare = _context_method(compare)
    load = _context_method(load)
    load_with_metadata = _context_method(load_with_metadata)
