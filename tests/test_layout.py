"""The layout is a contract: it holds from an installed wheel as from an editable checkout."""
import os
import subprocess
import sys

import numpy as np

import pyfluid as paddle
from shared_fixtures import REPO_ROOT


def test_built_at_names_the_users_file_through_the_public_api():
    x = paddle.static.data("x", [None, 4], "float32")
    paddle.nn.functional.relu(paddle.static.nn.fc(x, 3))   # this line is the site
    line = sys._getframe().f_lineno - 1
    sites = {op.site for op in paddle.static.default_main_program().global_block().ops}
    assert sites == {f"{__file__}:{line}"}


def test_error_of_a_failing_op_names_the_users_line():
    x = paddle.static.data("x", [None, 4], "float32")
    y = paddle.reshape(x, [3, -1])                                  # fails at run time
    line = sys._getframe().f_lineno - 1
    exe = paddle.static.Executor()
    try:
        exe.run(feed={"x": np.ones((2, 4), "float32")}, fetch_list=[y])
    except Exception as exc:  # noqa: BLE001 - the message is what is checked
        assert f"op built at: {__file__}:{line}" in str(exc)
    else:
        raise AssertionError("reshape of 8 values to [3, -1] must fail")


def test_importing_the_uninstalled_source_folder_says_to_install():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import sys; sys.path.insert(0, sys.argv[1]); import pyfluid"
    result = subprocess.run([sys.executable, "-S", "-c", code, str(REPO_ROOT)],
                            capture_output=True, text=True, env=env, cwd=os.sep)
    assert result.returncode != 0
    assert "without being installed" in result.stderr
    assert "pip install -e ." in result.stderr
