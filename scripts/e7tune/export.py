"""Write a LoRA .npz (train.py --out) as cgraph's low-rank update file (embedders/neural/lowrank.go)."""
import argparse, hashlib, json, os, struct

import jax.numpy as jnp
import numpy as np
import bert
ap = argparse.ArgumentParser()
ap.add_argument("npz"); ap.add_argument("out")
ap.add_argument("--qprefix", default="", help="the model's query prefix, as train.py --qprefix ('query: ' for e5)")
ap.add_argument("--ref", default="e7tune_ref.json", help="the parity file written to testdata/ beside out (e7tune_ref.json, e1tune_ref.json)")
ap.add_argument("--pool", default="mean", choices=["mean", "cls"], help="the model's pooling, as train.py uses it (cls: bge, E5)")
ap.add_argument("--head", default="", help="E5's direction head (e5head.json): the reference vectors are then the queries' side A (cause) views, as E5's forward probe embeds them")
ap.add_argument("--onnx", default=os.path.join(os.environ.get("CGRAPH_MODELS") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cgraph", "models"), "all-minilm-l6-v2", "model.onnx"))
a = ap.parse_args()
base = hashlib.sha256(open(a.onnx, "rb").read()).digest()
p, names, nl = bert.load(a.onnx)
z = np.load(a.npz)
keys = sorted({k[:-2] for k in z.files})
def layer_order(k):  # encoder.layer.L.<linear>: by layer, then the order of bert.LINS
    parts = k.split(".")
    lin = "/".join(parts[3:])
    return int(parts[2]), bert.LINS.index(lin)
keys.sort(key=layer_order)
out = bytearray(b"CGLORA\x01") + base + struct.pack("<I", len(keys))
for k in keys:
    A, B = z[k + ".A"], z[k + ".B"]
    name = names[k + ".weight"].encode()
    W = p[k + ".weight"]
    assert A.shape == (W.shape[0], B.shape[0]) and B.shape[1] == W.shape[1], (k, A.shape, B.shape, W.shape)
    out += struct.pack("<H", len(name)) + name + struct.pack("<III", A.shape[0], B.shape[1], A.shape[1])
    out += A.astype("<f2").tobytes() + B.astype("<f2").tobytes()
open(a.out, "wb").write(out)
print(f"{a.out}: {len(keys)} updates, {len(out)} bytes, sha256 {hashlib.sha256(out).hexdigest()}, base {base.hex()}")

# Reference vectors for the Go parity tests (TestTuneParity): the merged
# encoder, with the half-rounded update as shipped, on queries that
# cgraph's query view leaves as they are (no identifiers).
refq = ["Returns the number of bytes in the buffer.",
        "Close the connection and release its resources.",
        "parse a date string in the given layout",
        "Reports whether the list is empty."]
lo = {k: (jnp.asarray(z[k + ".A"].astype("<f2").astype(np.float32)), jnp.asarray(z[k + ".B"].astype("<f2").astype(np.float32))) for k in keys}
tok = bert.tokenizer(os.path.join(os.path.dirname(a.onnx), "tokenizer.json"), 256)
ids, mask = bert.batch_ids(tok, [a.qprefix + q for q in refq])
vs = np.asarray(bert.encode(p, jnp.asarray(ids), jnp.asarray(mask), nl, lora=lo, pool=a.pool))
if a.head:  # shiftHead.apply(v, −1): x − mu − beta/2·d, unit length
    h = json.load(open(a.head))
    vs = vs - np.asarray(h["mu"], np.float32) - float(h["beta"]) / 2 * np.asarray(h["d"], np.float32)
    vs = vs / np.linalg.norm(vs, axis=-1, keepdims=True)
ref = {"sha256": hashlib.sha256(out).hexdigest(), "qprefix": a.qprefix, "queries": [{"q": q, "v": [round(float(x), 6) for x in v]} for q, v in zip(refq, vs)]}
with open(os.path.join(os.path.dirname(os.path.abspath(a.out)), "testdata", a.ref), "w") as fh:
    json.dump(ref, fh, indent=0)
