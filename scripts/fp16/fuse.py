"""Fuse an fp32 BERT-family ONNX encoder with ONNX Runtime's transformer optimizer, optionally to fp16.

Usage: python fuse.py SRC.onnx DST.onnx [fp16] [mha|rawmask|packed]

Python-level fusions only (opt_level 0, no ONNX Runtime session): EmbedLayerNormalization,
Attention, SkipLayerNormalization and BiasGelu (com.microsoft operators that ONNX Runtime's CPU
and CUDA providers run); with fp16, then onnxruntime's own float16 conversion with int64
inputs and a float32 output kept. The three default models are 12-head, 384-wide encoders.
"packed" then removes the padding (ONNX Runtime's packing mode: RemovePadding after the
embeddings, PackedAttention fed each text's token count, RestorePadding before the output), so
every layer runs over the batch's real tokens only; those operators have CUDA kernels only.
Its packages are pinned in requirements.txt (onnxruntime, sympy). A helper for
issue 33's experiment (docs/CUDA.md run 7): the product's runtime stays Go.
"""
import os
import sys

import onnxruntime.transformers
from onnxruntime.transformers import optimizer
from onnxruntime.transformers.fusion_options import FusionOptions

src, dst = sys.argv[1], sys.argv[2]
fp16 = "fp16" in sys.argv[3:]
fo = FusionOptions("bert")
if "mha" in sys.argv[3:]:  # MultiHeadAttention with a key padding mask (run 8)
    fo.use_multi_head_attention = True
if "rawmask" in sys.argv[3:]:  # Attention fed the raw 0/1 mask instead of a mask index (run 8)
    fo.use_raw_attention_mask(True)
m = optimizer.optimize_model(src, model_type="bert", num_heads=12, hidden_size=384, opt_level=0,
                             use_gpu=False, optimization_options=fo)
if fp16:
    m.convert_float_to_float16(keep_io_types=True)
if "packed" in sys.argv[3:]:  # padding removed; needs the mask-index Attention (not rawmask)
    # convert_to_packing_mode imports its siblings as top-level modules.
    sys.path.insert(0, os.path.dirname(onnxruntime.transformers.__file__))
    from convert_to_packing_mode import PackingMode
    from onnx_model import OnnxModel

    p = PackingMode(OnnxModel(m.model))
    p.convert()
    if not p.model.get_nodes_by_op_type("PackedAttention"):
        raise SystemExit("fuse.py: packing mode converted nothing (is the mask a mask index?)")
    m = p.model
m.save_model_to_file(dst)
print(sorted({n.op_type for n in m.model.graph.node}))
