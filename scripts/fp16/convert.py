"""Convert an fp32 ONNX encoder to fp16 weights and arithmetic for --device cuda.

Usage: python convert.py SRC.onnx DST.onnx

onnxconverter-common's float16 conversion with keep_io_types (int64 inputs,
float32 output), then one fix: a Cast to float32 whose output the converter
typed float16 (the attention mask's cast in these exports) is made a Cast to
float16, or ONNX Runtime refuses the graph. Deterministic for the versions in
requirements.txt; scripts/fp16/make.sh checks the results' sha256. A helper for
an experiment (issue 33): the product's runtime stays Go.
"""
import sys

import onnx
from onnx import TensorProto
from onnxconverter_common import float16

src, dst = sys.argv[1], sys.argv[2]
m16 = float16.convert_float_to_float16(onnx.load(src), keep_io_types=True)
types = {v.name: v.type.tensor_type.elem_type for v in list(m16.graph.value_info) + list(m16.graph.output)}
for n in m16.graph.node:
    if n.op_type != "Cast":
        continue
    for a in n.attribute:
        if a.name == "to" and a.i == TensorProto.FLOAT and types.get(n.output[0]) == TensorProto.FLOAT16:
            a.i = TensorProto.FLOAT16
onnx.save(m16, dst)
