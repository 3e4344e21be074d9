"""Arrays in and out. Host arrays (numpy, anything numpy.asarray takes,
CPU DLPack tensors) reach the library in place when their pixels are
contiguous within each row, else as a contiguous copy. CUDA arrays
(__cuda_array_interface__, or __dlpack__ on a CUDA device) stay on the GPU:
CuPy and PyTorch arrays are read where they are and the result is an array
of the same library on the same device. Samples are uint8 (8-bit images)
or uint16 (16-bit images, in the machine's byte order); results keep the
dtype, as the library's operations keep the depth."""

from __future__ import annotations

import os
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import _gpuimg as _c

_DL_CPU, _DL_CUDA = 1, 2


def _rows_contiguous(a: np.ndarray) -> bool:
    """Pixels contiguous within each row, rows at a non-negative stride, and
    uint16 samples at even addresses: what the library takes in place
    (images.c checks the layout, the library the address, which it refuses
    odd: np.frombuffer at an odd offset makes such an array)."""
    h, w = a.shape[0], a.shape[1]
    c = a.shape[2] if a.ndim == 3 else 1
    item = a.itemsize
    if a.ctypes.data % item != 0:
        return False
    if a.ndim == 3 and c > 1 and a.strides[2] != item:
        return False
    if w > 1 and a.strides[1] != c * item:
        return False
    return h == 1 or (a.strides[0] >= w * c * item and a.strides[0] % item == 0)


_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16))


def _check_dtype(dtype: Any) -> None:
    if np.dtype(dtype) not in _DTYPES:
        raise TypeError(f"expected a uint8 or uint16 image, not {dtype}")


def host(img: Any) -> np.ndarray:
    """img as a uint8 or uint16 (H, W) or (H, W, C) numpy array the library
    reads."""
    if isinstance(img, (str, bytes, os.PathLike)):
        raise TypeError(f"{os.fsdecode(img)!r} is a file name, not an image: pass an array; "
                        f"load a file with gpuimg.load(path)")
    if isinstance(img, np.ndarray):
        a = img
    elif hasattr(img, "__dlpack_device__") and not hasattr(img, "__array_interface__"):
        a = np.from_dlpack(img)
    else:
        a = np.asarray(img)
    _check_dtype(a.dtype)
    if a.ndim not in (2, 3):
        raise ValueError(f"expected a (height, width) or (height, width, channels) image, "
                         f"not of shape {a.shape}")
    if a.ndim == 3 and not 1 <= a.shape[2] <= 4:
        raise ValueError(f"expected 1 to 4 channels, not {a.shape[2]}")
    if a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(f"an image of shape {a.shape} has no pixels")
    # a copy, not np.ascontiguousarray: that keeps a C-contiguous array's address
    return a if _rows_contiguous(a) else a.copy(order="C")


def shaped(out: np.ndarray, src_ndim: int, src_channels: int) -> np.ndarray:
    """One channel comes back 2-D when the input was 2-D or the chain made
    the one channel (sobel gray), else as it went in."""
    if out.shape[2] == 1 and (src_ndim == 2 or src_channels != 1):
        return out.reshape(out.shape[0], out.shape[1])
    return out


def channels_of(a: Any) -> int:
    return a.shape[2] if len(a.shape) == 3 else 1


def dtype_of(depth: int) -> Any:
    return np.uint16 if depth == 16 else np.uint8


def alloc_host(shape: Tuple[int, int, int], depth: int = 8) -> np.ndarray:
    """A result's array, over memory of the library's pool (_gpuimg.c,
    pixels): freed with the array, kept for the next result."""
    return np.asarray(_c.pixels(shape[0], shape[1], shape[2], depth))


# ---------------------------------------------------------------- CUDA arrays

class DeviceImage:
    """A CUDA array as the library reads it: its address, shape, strides in
    bytes, and the library (CuPy or PyTorch) that makes its results."""

    def __init__(self, obj: Any, address: int, shape: tuple, strides: Optional[tuple],
                 device_id: int, depth: int, keep: Any = None):
        self.obj, self.address, self.shape, self.device_id = obj, address, shape, device_id
        self.depth, self.itemsize = depth, depth // 8
        self.keep = keep  # an opened DLPack tensor, alive while the pixels are used
        if strides is None:  # C-contiguous, in bytes
            strides = tuple(int(np.prod(shape[i + 1:])) * self.itemsize
                            for i in range(len(shape)))
        self.strides = strides
        self.lib = _library_of(obj)


def _library_of(obj: Any) -> "_DeviceLibrary":
    root = type(obj).__module__.split(".")[0]
    lib = _LIBRARIES.get(root)
    if lib is None:
        raise TypeError(f"a CUDA array of {type(obj).__module__}.{type(obj).__name__}: gpuimg "
                        f"makes results of CuPy and PyTorch arrays only")
    return lib()


def device_image(img: Any) -> Optional[DeviceImage]:
    """The CUDA array img, or None for host arrays."""
    if isinstance(img, np.ndarray):
        return None
    cai = getattr(img, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        typestr = cai.get("typestr")
        native_u2 = "<u2" if np.little_endian else ">u2"
        if typestr not in ("|u1", "<u1", ">u1", native_u2):
            raise TypeError(f"expected a uint8 or uint16 image, not {typestr}")
        if cai.get("mask") is not None:
            raise ValueError("masked CUDA arrays are not images")
        lib = _library_of(img)
        return DeviceImage(img, int(cai["data"][0]), tuple(cai["shape"]), cai.get("strides"),
                           lib.device_id(img), 16 if typestr == native_u2 else 8)
    device = getattr(img, "__dlpack_device__", None)
    if device is None:
        return None
    kind, index = device()
    if kind != _DL_CUDA:
        return None
    t = _c.dlpack_open(img.__dlpack__())
    info = t.info()
    if info["dtype"] not in ((1, 8, 1), (1, 16, 1)):
        raise TypeError(f"expected a uint8 or uint16 image, not DLPack dtype {info['dtype']}")
    depth = info["dtype"][1]
    strides = info["strides"]  # in elements: the library counts bytes
    if strides is not None:
        strides = tuple(s * (depth // 8) for s in strides)
    return DeviceImage(img, info["address"], info["shape"], strides, index, depth, keep=t)


def to_host(img: Any) -> Any:
    """A CUDA array downloaded into numpy; anything else as it is."""
    d = device_image(img)
    return img if d is None else d.lib.to_numpy(d.obj)


def _round_up(n: int, to: int) -> int:
    return (n + to - 1) // to * to


def device_source(d: DeviceImage) -> Tuple[tuple, Any]:
    """(address, height, width, channels, stride, depth) for the library, and what
    must stay alive meanwhile: the array itself when its rows are aligned
    and contiguous, else an aligned copy made on the device."""
    shape = d.shape
    if len(shape) not in (2, 3) or (len(shape) == 3 and not 1 <= shape[2] <= 4):
        raise ValueError(f"expected a (height, width) or (height, width, channels) image, "
                         f"not of shape {tuple(shape)}")
    h, w = shape[0], shape[1]
    c = shape[2] if len(shape) == 3 else 1
    if h < 1 or w < 1:
        raise ValueError(f"an image of shape {tuple(shape)} has no pixels")
    s, item = d.strides, d.itemsize
    rows_ok = (c == 1 or len(shape) == 2 or s[2] == item) and (w == 1 or s[1] == c * item) and \
        (h == 1 or s[0] >= w * c * item)
    stride = w * c * item if h == 1 else s[0]
    align = _c.DEVICE_ALIGN
    if rows_ok and d.address % align == 0 and stride % align == 0:
        return (d.address, h, w, c, stride, d.depth), d
    buf, view, address, pitch = d.lib.pitched(d.obj, (h, w, c), d.depth)
    d.lib.copy_into(view, d.obj, (h, w, c))
    return (address, h, w, c, pitch, d.depth), buf


class _DeviceLibrary:
    """What gpuimg needs of a GPU array library."""

    def device_id(self, a: Any) -> int:
        raise NotImplementedError

    def empty(self, like: Any, shape: tuple, depth: int) -> Any:
        raise NotImplementedError

    def address(self, a: Any) -> int:
        raise NotImplementedError

    def synchronize(self, a: Any) -> None:
        raise NotImplementedError

    def to_numpy(self, a: Any) -> np.ndarray:
        raise NotImplementedError

    def pitched(self, like: Any, shape: Tuple[int, int, int],
                depth: int) -> Tuple[Any, Any, int, int]:
        """A (h, w, c) view on rows of DEVICE_ALIGN-multiple pitch (bytes)."""
        h, w, c = shape
        item = depth // 8
        pitch = _round_up(w * c * item, _c.DEVICE_ALIGN)
        buf = self.empty(like, (h, pitch // item), depth)
        view = buf[:, : w * c].reshape(h, w, c)
        return buf, view, self.address(buf), pitch

    def copy_into(self, view: Any, src: Any, shape: Tuple[int, int, int]) -> None:
        view[...] = src.reshape(shape)


class _CuPy(_DeviceLibrary):
    def device_id(self, a: Any) -> int:
        return a.device.id

    def empty(self, like: Any, shape: tuple, depth: int) -> Any:
        import cupy

        with like.device:
            return cupy.empty(shape, dtype=cupy.uint16 if depth == 16 else cupy.uint8)

    def address(self, a: Any) -> int:
        return a.data.ptr

    def synchronize(self, a: Any) -> None:
        import cupy

        with a.device:
            cupy.cuda.get_current_stream().synchronize()

    def to_numpy(self, a: Any) -> np.ndarray:
        return a.get()


class _Torch(_DeviceLibrary):
    def device_id(self, a: Any) -> int:
        return a.device.index or 0

    def empty(self, like: Any, shape: tuple, depth: int) -> Any:
        import torch

        return torch.empty(shape, dtype=torch.uint16 if depth == 16 else torch.uint8,
                           device=like.device)

    def address(self, a: Any) -> int:
        return a.data_ptr()

    def synchronize(self, a: Any) -> None:
        import torch

        torch.cuda.current_stream(a.device).synchronize()

    def to_numpy(self, a: Any) -> np.ndarray:
        return a.cpu().numpy()

    def copy_into(self, view: Any, src: Any, shape: Tuple[int, int, int]) -> None:
        view.copy_(src.reshape(shape))


_LIBRARIES = {"cupy": _CuPy, "torch": _Torch}


def run_device(ctx: Any, d: DeviceImage, steps: list) -> Any:
    """The chain on the GPU: the result is an array of d's library on its
    device (a view on rows of aligned pitch), or a hist tuple."""
    d.lib.synchronize(d.obj)  # the array's writes land before the library reads it
    src, keep = device_source(d)
    if keep is not d:
        d.lib.synchronize(d.obj)  # and the aligned copy's

    def alloc(shape: Tuple[int, int, int], depth: int) -> Tuple[Any, int, int]:
        _, view, address, pitch = d.lib.pitched(d.obj, shape, depth)  # the view keeps its buffer
        return view, address, pitch

    result = ctx.apply_device(src, steps, alloc)
    del keep
    return result


def back_to(original: Any, result: np.ndarray) -> Any:
    """A host result in the library of a CPU DLPack tensor that came in
    (torch.from_dlpack, ...), or the numpy array."""
    if isinstance(original, np.ndarray) or not hasattr(original, "__dlpack_device__"):
        return result
    import sys

    module = sys.modules.get(type(original).__module__.split(".")[0])
    convert: Optional[Callable] = getattr(module, "from_dlpack", None) if module else None
    return convert(result) if convert and module is not np else result
