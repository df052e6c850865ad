"""parity.py writes the reference fixtures that the Go parity tests compare against.

Reference implementation: Hugging Face `tokenizers` (Rust) for token ids and Python
`onnxruntime` for the model run, pooled here with numpy. Fixtures only: nothing in the
product runs Python.

Usage (a throwaway venv; versions in requirements.txt):

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install -r requirements.txt
    /tmp/venv/bin/python parity.py --model-dir DIR --id e5-small-v2 \
        --onnx e5-small-v2.onnx --tokenizer e5-small-v2-tokenizer.json --prefix 'passage: '

It writes (paths relative to the repository's models/ directory):

    tokenizer/testdata/<id>.tokenizer.json.gz     the tokenizer itself (small, licence-compatible)
    tokenizer/testdata/parity_<id>_ids.json.gz    token ids for every corpus text
    runtime/testdata/parity_<id>_vectors.json.gz  pooled vectors for --vectors texts
"""

import argparse
import gzip
import hashlib
import json
import os
import shutil

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

import corpus

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(os.path.dirname(HERE))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_gz_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    with open(path, "wb") as raw:
        # mtime=0 keeps the file byte-identical across runs.
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
            f.write(data)
    print("wrote", path, os.path.getsize(path), "bytes")


def token_fixture(tok_path, model_id, max_length, texts, kinds):
    # The file's own truncation/padding settings (all-MiniLM-L6-v2 ships max 128 and fixed
    # padding to 128) are replaced: the runtime truncates at its configured max length
    # and pads per batch itself.
    full = Tokenizer.from_file(tok_path)
    full.no_truncation()
    full.no_padding()
    trunc = Tokenizer.from_file(tok_path)
    trunc.enable_truncation(max_length)
    trunc.no_padding()
    cases = []
    long_full = 0
    for text, kind in zip(texts, kinds):
        f = full.encode(text).ids
        t = trunc.encode(text).ids
        case = {"kind": kind, "text": text, "ids": t, "full_len": len(f)}
        if kind == "long" and long_full < 10:
            case["full_ids"] = f
            long_full += 1
        cases.append(case)
    write_gz_json(
        os.path.join(MODELS, "tokenizer", "testdata", f"parity_{model_id}_ids.json.gz"),
        {
            "model": model_id,
            "tokenizer_sha256": sha256(tok_path),
            "reference": "tokenizers " + __import__("tokenizers").__version__,
            "max_length": max_length,
            "cases": cases,
        },
    )


def vector_fixture(onnx_path, tok_path, model_id, max_length, prefix, texts, kinds, n):
    tok = Tokenizer.from_file(tok_path)
    tok.enable_truncation(max_length)
    tok.no_padding()
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    in_names = [i.name for i in sess.get_inputs()]
    # Every kind is represented: take texts round-robin by kind.
    by_kind = {}
    for text, kind in zip(texts, kinds):
        by_kind.setdefault(kind, []).append(text)
    picked = []
    while len(picked) < n:
        for kind in sorted(by_kind):
            if by_kind[kind] and len(picked) < n:
                picked.append((kind, by_kind[kind].pop(0)))
    cases = []
    for kind, text in picked:
        enc = tok.encode(prefix + text)
        ids = np.array([enc.ids], dtype=np.int64)
        feeds = {"input_ids": ids}
        if "attention_mask" in in_names:
            feeds["attention_mask"] = np.ones_like(ids)
        if "token_type_ids" in in_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = sess.run(None, feeds)[0][0]  # [T, H]
        mean = hidden.mean(axis=0)
        mean = mean / np.linalg.norm(mean)
        cls = hidden[0]
        cases.append(
            {
                "kind": kind,
                "text": text,
                "tokens": len(enc.ids),
                "mean": [round(float(x), 6) for x in mean],
                "cls": [round(float(x), 5) for x in cls],
            }
        )
    write_gz_json(
        os.path.join(MODELS, "runtime", "testdata", f"parity_{model_id}_vectors.json.gz"),
        {
            "model": model_id,
            "onnx_sha256": sha256(onnx_path),
            "reference": "onnxruntime " + ort.__version__,
            "prefix": prefix,
            "max_length": max_length,
            "mean_pooling": "attention-masked mean, L2-normalised",
            "cls_pooling": "first token, not normalised",
            "cases": cases,
        },
    )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--id", required=True)
    ap.add_argument("--onnx", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--prefix", default="")
    ap.add_argument("--max-length", type=int, default=512)
    ap.add_argument("--vectors", type=int, default=120)
    ap.add_argument("--no-ids", action="store_true", help="skip the token-id fixture (tokenizer identical to another model's)")
    args = ap.parse_args()

    tok_path = os.path.join(args.model_dir, args.tokenizer)
    onnx_path = os.path.join(args.model_dir, args.onnx)
    texts, kinds = corpus.build()
    assert len(texts) >= 500, len(texts)

    if not args.no_ids:
        write_ids(args, tok_path, texts, kinds)
    vector_fixture(onnx_path, tok_path, args.id, args.max_length, args.prefix, texts, kinds, args.vectors)


def write_ids(args, tok_path, texts, kinds):
    dst = os.path.join(MODELS, "tokenizer", "testdata", f"{args.id}.tokenizer.json.gz")
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(tok_path, "rb") as src, open(dst, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
            shutil.copyfileobj(src, f)
    print("wrote", dst, os.path.getsize(dst), "bytes")

    token_fixture(tok_path, args.id, args.max_length, texts, kinds)


if __name__ == "__main__":
    main()
