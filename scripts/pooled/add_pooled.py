"""add_pooled.py SRC DST POOLING: SRC's ONNX graph with one more output,
"pooled_mean" or "pooled_cls" [batch, hidden], the sentence vector the
runtime would pool on the CPU from "last_hidden_state": POOLING "mean" (the
attention mask's mean of the token states) or "cls" (the first token's
state). The name says which, so the runtime uses it only for a model whose
manifest pooling is the same. Nothing else changes:
the weights and every other node are SRC's, so "last_hidden_state" is bit
for bit what SRC gives.

Issue 33: on a GPU a batch's token states (~50 MB for 170 texts of 200
tokens) are copied to the host only for a slot to average them; a session
that asks for the pooled output alone copies 200x fewer bytes. Deterministic: the same
SRC and onnx version give the same bytes (no timestamps, no random names).
"""
import sys

import onnx
from onnx import TensorProto, helper


def add_pooled(src, dst, pooling):
    m = onnx.load(src)
    g = m.graph
    hidden = next(o for o in g.output if o.name == "last_hidden_state")
    dims = hidden.type.tensor_type.shape.dim
    width = dims[2].dim_value
    batch = dims[0].dim_param or "batch"
    nodes = []
    if pooling == "cls":
        nodes.append(helper.make_node("Constant", [], ["pooled_zero"], value=helper.make_tensor("pooled_zero_v", TensorProto.INT64, [], [0])))
        nodes.append(helper.make_node("Gather", ["last_hidden_state", "pooled_zero"], ["pooled_" + pooling], axis=1))
    elif pooling == "mean":
        # Unsqueeze and ReduceSum take their axes as an attribute before opset 13
        # and as an input from 13 on.
        opset = next(o.version for o in m.opset_import if o.domain in ("", "ai.onnx"))
        tiny = helper.make_tensor("pooled_tiny_v", TensorProto.FLOAT, [], [1e-9])
        nodes.append(helper.make_node("Constant", [], ["pooled_tiny"], value=tiny))
        if opset >= 13:
            nodes += [
                helper.make_node("Constant", [], ["pooled_axes"], value=helper.make_tensor("pooled_axes_v", TensorProto.INT64, [1], [1])),
                helper.make_node("Constant", [], ["pooled_last"], value=helper.make_tensor("pooled_last_v", TensorProto.INT64, [1], [-1])),
            ]
            unsq = dict(inputs=["pooled_maskf", "pooled_last"], attrs={})
            red = dict(extra=["pooled_axes"], attrs={})
        else:
            unsq = dict(inputs=["pooled_maskf"], attrs={"axes": [-1]})
            red = dict(extra=[], attrs={"axes": [1]})
        nodes += [
            helper.make_node("Cast", ["attention_mask"], ["pooled_maskf"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", unsq["inputs"], ["pooled_mask3"], **unsq["attrs"]),
            helper.make_node("Mul", ["last_hidden_state", "pooled_mask3"], ["pooled_masked"]),
            helper.make_node("ReduceSum", ["pooled_masked"] + red["extra"], ["pooled_sum"], keepdims=0, **red["attrs"]),
            helper.make_node("ReduceSum", ["pooled_mask3"] + red["extra"], ["pooled_count"], keepdims=0, **red["attrs"]),
            helper.make_node("Max", ["pooled_count", "pooled_tiny"], ["pooled_safe"]),
            helper.make_node("Div", ["pooled_sum", "pooled_safe"], ["pooled_" + pooling]),
        ]
    else:
        raise SystemExit(f"pooling {pooling!r}: want mean or cls")
    g.node.extend(nodes)
    g.output.append(helper.make_tensor_value_info("pooled_" + pooling, TensorProto.FLOAT, [batch, width]))
    onnx.checker.check_model(m)
    onnx.save(m, dst)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit("usage: add_pooled.py SRC DST mean|cls")
    add_pooled(*sys.argv[1:])
