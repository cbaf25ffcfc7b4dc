"""``paddle.dataset.mnist``: the MNIST handwritten digits (LeCun, Cortes, Burges; CC BY-SA 3.0).

Files are looked up, in order, in the directory the caller names (``data_dir`` or the
``PYFLUID_MNIST_DIR`` environment variable), in the cache ``~/.cache/pyfluid/mnist``, and
otherwise fetched into the cache (see ``mnist_fetch``). A directory holds the standard IDX files
``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``, ``t10k-images-idx3-ubyte`` and
``t10k-labels-idx1-ubyte``, each gzipped (``.gz``) or not.
"""
from __future__ import annotations

import os
from typing import Callable, Iterator, Optional, Tuple

import numpy as np

from .idx import read_idx
from .mnist_fetch import ChecksumError, DownloadError, fetch_into

ENV_VAR = "PYFLUID_MNIST_DIR"
SPLIT_FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
               "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
Sample = Tuple[np.ndarray, int]
__all__ = ["ChecksumError", "DownloadError", "default_cache_dir", "fetch", "load", "locate",
           "scale_images", "test", "train"]


def default_cache_dir() -> str:
    """``~/.cache/pyfluid/mnist``."""
    return os.path.join(os.path.expanduser("~"), ".cache", "pyfluid", "mnist")


def _find_file(directory: str, stem: str) -> Optional[str]:
    for candidate in (stem + ".gz", stem):
        path = os.path.join(directory, candidate)
        if os.path.isfile(path):
            return path
    return None


def _split_paths(directory: str, split: str) -> Optional[Tuple[str, str]]:
    paths = tuple(_find_file(directory, stem) for stem in SPLIT_FILES[split])
    return paths if all(paths) else None  # type: ignore[return-value]


def locate(split: str = "train", data_dir: Optional[str] = None,
           download: bool = True) -> Tuple[str, str]:
    """Paths of the (images, labels) IDX files of ``split`` ("train" or "test")."""
    if split not in SPLIT_FILES:
        raise ValueError(f"MNIST split must be 'train' or 'test', received {split!r}")
    named = data_dir if data_dir is not None else os.environ.get(ENV_VAR) or None
    if named is not None:
        paths = _split_paths(named, split)
        if paths is None:
            origin = "data_dir" if data_dir is not None else f"${ENV_VAR}"
            raise FileNotFoundError(
                f"MNIST {split} files {list(SPLIT_FILES[split])} (optionally .gz) not found in "
                f"{named!r} (from {origin}); put them there or unset {origin} to use the cache "
                f"{default_cache_dir()!r}")
        return paths
    cache = default_cache_dir()
    paths = _split_paths(cache, split)
    if paths is None:
        if not download:
            raise FileNotFoundError(f"MNIST {split} files are not in the cache {cache!r} and "
                                    f"download=False")
        fetch_into(cache)
        paths = _split_paths(cache, split)
        assert paths is not None, "fetch_into wrote every MNIST file"
    return paths


def load(split: str = "train", data_dir: Optional[str] = None,
         download: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    """``split`` as (images uint8 [N, 28, 28], labels int64 [N])."""
    image_path, label_path = locate(split, data_dir, download)
    images, labels = read_idx(image_path), read_idx(label_path)
    if images.dtype != np.uint8 or images.ndim != 3 or images.shape[1:] != (28, 28):
        raise ValueError(f"{image_path!r}: expected uint8 images [N, 28, 28], received "
                         f"{images.dtype} {images.shape}")
    if labels.dtype != np.uint8 or labels.shape != images.shape[:1]:
        raise ValueError(f"{label_path!r}: expected {images.shape[0]} uint8 labels to match "
                         f"{image_path!r}, received {labels.dtype} {labels.shape}")
    return images, labels.astype(np.int64)


def scale_images(images: np.ndarray) -> np.ndarray:
    """uint8 pixels [N, 28, 28] -> float32 [N, 784] in [-1, 1], as Paddle's readers give them."""
    flat = images.reshape(len(images), 28 * 28).astype(np.float32)
    return flat / 255.0 * 2.0 - 1.0


def _reader_creator(split: str, data_dir: Optional[str]) -> Callable[[], Iterator[Sample]]:
    def reader() -> Iterator[Sample]:
        images, labels = load(split, data_dir)
        scaled = scale_images(images)
        for i in range(len(labels)):
            yield scaled[i, :], int(labels[i])
    return reader


def train(data_dir: Optional[str] = None) -> Callable[[], Iterator[Sample]]:
    """Reader creator of the 60,000 training samples: (float32 [784] in [-1, 1], int label)."""
    return _reader_creator("train", data_dir)


def test(data_dir: Optional[str] = None) -> Callable[[], Iterator[Sample]]:
    """Reader creator of the 10,000 test samples: (float32 [784] in [-1, 1], int label)."""
    return _reader_creator("test", data_dir)


def fetch() -> None:
    """Make sure the cache holds MNIST (fetching it when it does not)."""
    locate("train")
    locate("test")

