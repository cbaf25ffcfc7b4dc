"""Regenerate framework_pb2.py from framework.proto.

Uses protoc 25.1 from ``grpcio-tools==1.62.3`` on purpose: its generated code loads on every
protobuf runtime from 4.25 to 7.x, while code from a newer protoc refuses older runtimes.

    python -m venv /tmp/protoc && /tmp/protoc/bin/pip install grpcio-tools==1.62.3
    /tmp/protoc/bin/python proto/regenerate.py
"""
import pathlib
import sys

from grpc_tools import protoc

HERE = pathlib.Path(__file__).resolve().parent

if __name__ == "__main__":
    status = protoc.main(["protoc", f"-I{HERE}", f"--python_out={HERE}", str(HERE / "framework.proto")])
    sys.exit(status)
