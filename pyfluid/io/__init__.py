"""Saving and loading in Paddle's file formats: inference models (``.pdmodel`` +
``.pdiparams``), checkpoints (``.pdparams`` / ``.pdopt`` / ``.pdmodel``), tensor records.
Every write is atomic; every load checks everything before it touches a scope."""
from .checkpoint import load, load_program_state, save, set_program_state
from .errors import ModelFileError
from .inference import (deserialize_persistables, deserialize_program, load_inference_model,
                        normalize_program, save_inference_model, serialize_persistables,
                        serialize_program)

__all__ = [
    "ModelFileError", "deserialize_persistables", "deserialize_program", "load",
    "load_inference_model", "load_program_state", "normalize_program", "save",
    "save_inference_model", "serialize_persistables", "serialize_program",
    "set_program_state",
]
from .dataloader import (BatchSampler, DataLoader, Dataset, IterableDataset,  # noqa: E402
                         TensorDataset)
__all__ += ["BatchSampler", "DataLoader", "Dataset", "IterableDataset", "TensorDataset"]
from .distributed_batch_sampler import DistributedBatchSampler  # noqa: E402
__all__ += ["DistributedBatchSampler"]
