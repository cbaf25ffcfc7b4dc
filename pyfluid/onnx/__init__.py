"""``paddle.onnx``: export models to ONNX, so that a model trained here runs in onnxruntime
and every other ONNX runtime. Needs the optional ``onnx`` package (``pip install
'pyfluid[onnx]'``), imported only when exporting. See docs/onnx.md."""
from .export import export, export_onnx, program_to_onnx
from .registry import OnnxExportError, supported_op_types

__all__ = ["OnnxExportError", "export", "export_onnx", "program_to_onnx", "supported_op_types"]
