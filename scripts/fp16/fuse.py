"""Fuse an fp32 BERT-family ONNX encoder with ONNX Runtime's transformer optimizer, optionally to fp16.

Usage: python fuse.py SRC.onnx DST.onnx [fp16] [mha|rawmask]

Python-level fusions only (opt_level 0, no ONNX Runtime session): EmbedLayerNormalization,
Attention, SkipLayerNormalization and BiasGelu (com.microsoft operators that ONNX Runtime's CPU
and CUDA providers run); with fp16, then onnxruntime's own float16 conversion with int64
inputs and a float32 output kept. The three default models are 12-head, 384-wide encoders.
Its packages are pinned in requirements.txt (onnxruntime, sympy). A helper for
issue 33's experiment (docs/CUDA.md run 7): the product's runtime stays Go.
"""
import sys

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
m.save_model_to_file(dst)
print({k: v for k, v in m.get_fused_operator_statistics().items() if v})
