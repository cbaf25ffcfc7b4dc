"""Finding 4: small hostile pickles must be refused quickly, within little memory, with the
documented error (never a hang, a RecursionError, a TypeError or a gigabyte-long message).
Each load runs in a child process limited in time and memory."""
from __future__ import annotations

import textwrap

import pytest

from . import payloads
from .isolation import last_line, run_python

LOADERS = {
    "static.load": """
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [None, 3], "float32")
            paddle.static.nn.fc(x, 2)
        paddle.static.load(main, prefix)
    """,
    "load_program_state": "paddle.static.load_program_state(prefix)",
    "paddle.load": "paddle.load(prefix + '.pdparams')",
    "mnist": "load_arrays(io.BytesIO(open(prefix + '.pdparams', 'rb').read()))",
}
EXPECTED = {"static.load": "ModelFileError", "load_program_state": "ModelFileError",
            "paddle.load": "ModelFileError", "mnist": "UnpicklingError"}

HARNESS = """
import io, os, pickle, sys
import pyfluid as paddle
from pyfluid.io import ModelFileError
from pyfluid.io.safe_pickle import load_arrays
paddle.enable_static()
prefix = os.path.join(sys.argv[1], "ckpt")
message = ""
try:
{body}
except ModelFileError as exc:
    verdict, message = "ModelFileError", str(exc)
except pickle.UnpicklingError as exc:
    verdict, message = "UnpicklingError", str(exc)
except BaseException as exc:
    verdict = f"leaked {{type(exc).__name__}}"
else:
    verdict = "loaded"
print(len(message), "ckpt.pdparams" in message or verdict == "UnpicklingError")
print(verdict)
"""


def _load(loader: str, payload: bytes, folder) -> tuple[str, str]:
    body = "\n".join("    " + line for line in
                     textwrap.dedent(LOADERS[loader]).strip().splitlines())
    (folder / "ckpt.pdparams").write_bytes(payload)
    result = run_python(HARNESS.format(body=body), str(folder), timeout=30, memory_mb=1024)
    return last_line(result), result.stdout


BOMBS = {
    "tuple DAG as a dict key": payloads.tuple_dag_key(),
    "list DAG as an array shape": payloads.list_dag_as_array_shape(),
    "list DAG as a value": payloads.list_dag_value(),
    "self-referencing list": payloads.self_referencing_list(),
    "_reconstruct without arguments": payloads.reconstruct_without_arguments(),
    "2000 arrays sharing one megabyte": payloads.shared_raw_data(),
}


@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("bomb", sorted(BOMBS))
def test_hostile_pickle_is_refused_quickly_and_clearly(loader, bomb, tmp_path):
    verdict, output = _load(loader, BOMBS[bomb], tmp_path)
    assert verdict == EXPECTED[loader], output
    length, names_file = output.split("\n")[-3].split()
    assert int(length) < 2000, "the refusal message is not short"
    assert names_file == "True", "the refusal does not name the file"
