"""floor.py CORPUS TOKENIZER OUT: what one GPU can do with the three default
models' shapes, outside ONNX Runtime — the floor that issue 33's ingest
figures are read against (docs/CUDA.md, run 18).

PyTorch's own BERT (transformers' BertModel, scaled-dot-product attention)
with the shapes of e5-small-v2 and bge-small-en-v1.5 (12 layers) and
all-MiniLM-L6-v2 (6 layers): 384 wide, 12 heads, 1,536 inner. The weights
are random: a forward pass costs the same whatever its weights, so this
measures time, never vectors. The corpus is tokenised with TOKENIZER
(the models' shared uncased vocabulary, truncated at 512 like the
runtime), sorted by length and cut into batches of 64 texts padded to
each batch's longest, as runtime.CUDABatchSize does. Each model's pass
over the corpus is timed three times after one warm-up (CUDA synchronised);
the median is reported, for fp16 and for fp32 (TF32 on, ONNX Runtime's
CUDA default). Only the last hidden state is computed; nothing is copied
to the host. A helper (python, on the GPU machine's own PyTorch): cgraph's
runtime never runs it.
"""
import json
import statistics
import sys
import time

import torch
from tokenizers import Tokenizer
from transformers import BertConfig, BertModel

corpus, tok_path, out = sys.argv[1:4]
texts = [json.loads(l) for l in open(corpus) if l.strip()]
tok = Tokenizer.from_file(tok_path)
tok.enable_truncation(512)
tok.no_padding()
lens = sorted(len(e.ids) for e in tok.encode_batch(["passage: " + t for t in texts]))
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True


def batches(size):
    out = []
    for i in range(0, len(lens), size):
        b = lens[i:i + size]
        T = b[-1]
        ids = torch.randint(1000, 30000, (len(b), T), device="cuda")
        mask = torch.zeros((len(b), T), dtype=torch.long, device="cuda")
        for r, n in enumerate(b):
            mask[r, :n] = 1
        out.append((ids, mask))
    return out


def timed(model, bs):
    def one():
        torch.cuda.synchronize()
        t = time.perf_counter()
        with torch.inference_mode():
            for ids, mask in bs:
                model(input_ids=ids, attention_mask=mask)
        torch.cuda.synchronize()
        return time.perf_counter() - t

    one()
    return statistics.median(one() for _ in range(3))


res = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "docs": len(lens),
       "mean_tokens": sum(lens) / len(lens), "batch": 64, "models": []}
for name, layers in (("e5-small-v2", 12), ("bge-small-en-v1.5", 12), ("all-minilm-l6-v2", 6)):
    cfg = BertConfig(hidden_size=384, num_hidden_layers=layers, num_attention_heads=12,
                     intermediate_size=1536, attn_implementation="sdpa")
    for dtype in (torch.float16, torch.float32):
        torch.manual_seed(0)
        m = BertModel(cfg, add_pooling_layer=False).to("cuda", dtype).eval()
        s = timed(m, batches(64))
        row = {"model": name, "dtype": str(dtype).removeprefix("torch."), "seconds": s,
               "docs_per_s": len(lens) / s, "attention": getattr(m.config, "_attn_implementation", "?")}
        res["models"].append(row)
        print(json.dumps(row), flush=True)
        del m
        torch.cuda.empty_cache()
for dtype in ("float16", "float32"):
    per = [r for r in res["models"] if r["dtype"] == dtype]
    res["three_models_" + dtype + "_docs_per_s"] = len(lens) / sum(r["seconds"] for r in per)
print(json.dumps({k: v for k, v in res.items() if k != "models"}))
json.dump(res, open(out, "w"), indent=1)
