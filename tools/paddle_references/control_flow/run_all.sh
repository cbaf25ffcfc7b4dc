#!/bin/sh
# Record Paddle 2.6.2's control flow into ./<script>/ (programs, logs, gradients), then pack
# what the tests use: ../pack_control_flow.py . ../../../tests/paddle_control_flow
# PYTHONHASHSEED=0 is required for identical files: Paddle orders conditional_block
# Input/Out, while X/Out and while_grad Out@GRAD by Python set / C++ unordered_set iteration.
#   PADDLE_PYTHON=/path/to/paddle26/bin/python sh run_all.sh
set -e
cd "$(dirname "$0")"
: "${PADDLE_PYTHON:?set PADDLE_PYTHON to a Python with paddlepaddle==2.6.2}"
for s in c01_cond c02_while c03_cond_backward c04_while_backward c06_executor_semantics c08_inference; do
  rm -rf "$s"
  echo "== $s"
  PYTHONHASHSEED=0 GLOG_minloglevel=2 timeout 600 "$PADDLE_PYTHON" -W ignore "$s.py" > /dev/null
done
