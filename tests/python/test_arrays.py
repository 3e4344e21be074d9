"""Arrays from other libraries. CPU DLPack tensors (numpy's own
__dlpack__ here) are read in place and come back in their library where
it has from_dlpack. CuPy and PyTorch CUDA arrays stay on the GPU and give
the CPU's bytes (these skip without the library or a GPU); the pieces of
that path that need no GPU (the DLPack capsule reader, the pitch rules,
the refusals) run everywhere."""

import numpy as np
import pytest

import gpuimg
from gpuimg import _arrays
from gpuimg import _gpuimg as _c
from conftest import random_image

CHAINS = ["blur --sigma 2", "blur -k box --radius 4 --border zero --border-value 9",
          "sobel --gray", "convolve -k '1 2 1; 2 4 2; 1 2 1' -n --border wrap", "transpose",
          "rotate 90 | blur -s 1.5 --border reflect", "flip h", "blur -s 2 | hist --bins 64"]


class CpuTensor:
    """An array known only through DLPack, on the CPU."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_cpu_dlpack_tensor(rng):
    a = random_image(rng, 33, 17, 3)
    got = gpuimg.blur(CpuTensor(a), sigma=2)
    assert isinstance(got, np.ndarray)  # this class's module has no from_dlpack
    np.testing.assert_array_equal(got, gpuimg.blur(a, sigma=2))
    np.testing.assert_array_equal(gpuimg.hist(CpuTensor(a)), gpuimg.hist(a))


def test_results_from_the_pool_stay_apart(rng):
    """Results live in memory of the library's pool (gpuimg._arrays.alloc_host),
    which a freed result returns to: results alive at once never share it,
    and a result keeps its pixels while later ones reuse freed memory."""
    a = random_image(rng, 1100, 1000, 3)  # 3.3 MB: a mapping of the pool's own
    b = random_image(rng, 1100, 1000, 3)
    first = gpuimg.resize(a, size=(1500, 1600), fit="fill")
    kept = first.copy()
    for _ in range(3):  # freed results go back to the pool and come out again
        gpuimg.resize(b, size=(1500, 1600), fit="fill")
    second = gpuimg.resize(b, size=(1500, 1600), fit="fill")
    assert not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, kept)
    assert first.flags.writeable and first.flags.c_contiguous and first.dtype == np.uint8
    assert first.shape == (1600, 1500, 3)
    wide = gpuimg.blur(a.astype(np.uint16) * 257, sigma=1)
    assert wide.dtype == np.uint16 and wide.shape == a.shape and wide.flags.writeable
    del first, second, wide


def test_dlpack_capsule_reader(rng):
    a = random_image(rng, 7, 9, 4)[:, ::2]
    t = _c.dlpack_open(a.__dlpack__())
    info = t.info()
    assert info["device_type"] == 1 and info["dtype"] == (1, 8, 1)
    assert info["shape"] == a.shape
    assert info["strides"] in (None, tuple(s // a.itemsize for s in a.strides))
    assert info["address"] == a.__array_interface__["data"][0]
    capsule = a.__dlpack__()
    _c.dlpack_open(capsule)
    with pytest.raises(TypeError):  # a capsule is used once
        _c.dlpack_open(capsule)
    del t


def test_device_arrays_need_a_known_library():
    class Stranger:
        __cuda_array_interface__ = {"shape": (4, 4), "typestr": "|u1", "data": (256, False),
                                    "version": 3, "strides": None}

    with pytest.raises(TypeError, match="CuPy and PyTorch"):
        gpuimg.blur(Stranger())


def test_device_rows_are_aligned_or_copied():
    """The pitch rule the GPU path follows (no GPU needed to check it)."""

    class Fake(_arrays._DeviceLibrary):
        def __init__(self):
            self.copies = 0

        def pitched(self, like, shape, depth):
            self.copies += 1
            return None, None, 4096, _arrays._round_up(shape[1] * shape[2], 256)

        def copy_into(self, view, src, shape):
            pass

    d = _arrays.DeviceImage.__new__(_arrays.DeviceImage)
    d.obj, d.device_id, d.keep, d.lib, d.depth, d.itemsize = None, 0, None, Fake(), 8, 1
    for address, shape, strides, copied in [
            (512, (10, 256, 1), None, False), (512, (10, 100, 3), None, True),
            (768, (4, 512), (1024, 1), False), (520, (4, 512), None, True),
            (512, (4, 256, 3), (768, 3, 1), False), (512, (4, 256, 3), (768, 1, 256), True)]:
        d.address, d.shape = address, shape
        d.strides = strides or tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
        before = d.lib.copies
        src, _ = _arrays.device_source(d)
        assert (d.lib.copies > before) == copied, (address, shape, strides)
        assert src[0] % 256 == 0 and src[4] % 256 == 0


def _gpu_library(name):
    lib = pytest.importorskip(name)
    ok, why = gpuimg.cuda_available()
    if not ok:
        pytest.skip(f"no GPU: {why}")
    return lib


@pytest.mark.parametrize("steps", CHAINS)
@pytest.mark.parametrize("shape", [(1, 1, 3), (37, 61, 1), (480, 640, 3), (99, 257, 4),
                                   (128, 128)])
def test_cupy_arrays_stay_on_the_gpu(rng, steps, shape):
    cupy = _gpu_library("cupy")
    a = rng.integers(0, 256, size=shape, dtype=np.uint8)
    want = gpuimg.pipe(a, steps, device="cpu")
    for src in (cupy.asarray(a), cupy.asarray(np.ascontiguousarray(a[:, ::-1]))[:, ::-1]):
        got = gpuimg.pipe(src, steps)
        if steps.endswith("64"):
            np.testing.assert_array_equal(got, want)
            continue
        assert isinstance(got, cupy.ndarray) and got.device.id == src.device.id
        np.testing.assert_array_equal(cupy.asnumpy(got), want)


@pytest.mark.parametrize("steps", CHAINS)
def test_torch_cuda_tensors_stay_on_the_gpu(rng, steps):
    torch = _gpu_library("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    a = rng.integers(0, 256, size=(123, 77, 3), dtype=np.uint8)
    want = gpuimg.pipe(a, steps, device="cpu")
    got = gpuimg.pipe(torch.from_numpy(a).cuda(), steps)
    if steps.endswith("64"):
        np.testing.assert_array_equal(got, want)
        return
    assert isinstance(got, torch.Tensor) and got.is_cuda
    np.testing.assert_array_equal(got.cpu().numpy(), want)


def test_cuda_array_on_a_cpu_device_is_refused(rng):
    cupy = _gpu_library("cupy")
    with pytest.raises(ValueError, match="needs device"):
        gpuimg.blur(cupy.zeros((4, 4), cupy.uint8), device="cpu")


def test_device_names_a_gpu():
    """"cuda:N" names GPU N; "cuda" is GPU 0 unless an array lives elsewhere
    (no GPU needed to check the parsing and the refusal)."""
    assert gpuimg._device_choice("cuda") == (_c.DEVICE_CUDA, 0, False)
    assert gpuimg._device_choice("CUDA:3") == (_c.DEVICE_CUDA, 3, True)
    assert gpuimg._device_choice("cpu") == (_c.DEVICE_CPU, 0, False)
    for bad in ("cuda:", "cuda:x", "cuda:-1", "cuda:64", "cpu:1", "auto:0", "gpu:1", "cuda:1:2"):
        with pytest.raises(ValueError, match="cuda:N"):
            gpuimg.blur(np.zeros((4, 4), np.uint8), device=bad)
        with pytest.raises(ValueError, match="cuda:N"):
            gpuimg.Context(bad)
    d = _arrays.DeviceImage.__new__(_arrays.DeviceImage)
    d.device_id = 1
    assert gpuimg._array_gpu(d, 0, False, "cuda") == 1
    assert gpuimg._array_gpu(d, 1, True, "cuda:1") == 1
    with pytest.raises(ValueError, match="a CUDA array on GPU 1, and device 'cuda:0' names GPU 0"):
        gpuimg._array_gpu(d, 0, True, "cuda:0")
    with pytest.raises(ValueError, match="needs a context"):
        gpuimg.Context("cpu")._for_device_arrays(d)


def test_context_on_a_gpu_without_one():
    ok, _ = gpuimg.cuda_available()
    if ok:
        pytest.skip("a GPU is here")
    with pytest.raises(gpuimg.DeviceError):
        gpuimg.Context("cuda:1")


def _two_gpus(name):
    lib = _gpu_library(name)
    if _c.cuda_devices()[0] < 2:
        pytest.skip("one GPU")
    return lib


def test_cupy_arrays_run_on_their_gpu(rng):
    cupy = _two_gpus("cupy")
    a = rng.integers(0, 256, size=(480, 640, 3), dtype=np.uint8)
    want = gpuimg.blur(a, sigma=2, device="cpu")
    with cupy.cuda.Device(1):
        src = cupy.asarray(a)
    for device in ("auto", "cuda", "cuda:1", gpuimg.Context("cuda")):
        got = gpuimg.blur(src, sigma=2, device=device)
        assert got.device.id == 1
        np.testing.assert_array_equal(cupy.asnumpy(got), want)
    with pytest.raises(ValueError, match="on GPU 1, and device 'cuda:0'"):
        gpuimg.blur(src, sigma=2, device="cuda:0")
    with pytest.raises(ValueError, match="on GPU 1, and device 'cuda:0'"):
        gpuimg.Context("cuda:0").blur(src, sigma=2)


def test_torch_tensors_run_on_their_gpu(rng):
    torch = _two_gpus("torch")
    a = rng.integers(0, 256, size=(123, 77, 3), dtype=np.uint8)
    want = gpuimg.blur(a, sigma=2, device="cpu")
    got = gpuimg.blur(torch.from_numpy(a).to("cuda:1"), sigma=2, device=gpuimg.Context("cuda:1"))
    assert got.device.index == 1
    np.testing.assert_array_equal(got.cpu().numpy(), want)
