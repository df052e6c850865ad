"""pin_manifest.py OUT NOTE [QUANTIZATION]: write OUT/manifest.json, the
built-in manifest (models/manifest.json) with the model.onnx of every default
model found under OUT/<id>/ pinned to that file (sha256, size), its
description followed by NOTE and, when given, its quantization set. The ids
stay, so the slot plan is unchanged and the producers differ by sha256. For
scripts/gpucheck -models-dir OUT -manifest OUT/manifest.json (scripts/fp16
and scripts/pooled both write their files this way)."""
import hashlib
import json
import os
import sys

DEFAULTS = ("e5-small-v2", "bge-small-en-v1.5", "all-minilm-l6-v2")


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit("usage: pin_manifest.py OUT NOTE [QUANTIZATION]")
    out, note = sys.argv[1], sys.argv[2]
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "manifest.json")
    mf = json.load(open(src))
    for m in mf["models"]:
        path = os.path.join(out, m["id"], "model.onnx")
        if m["id"] not in DEFAULTS or not os.path.exists(path):
            continue
        data = open(path, "rb").read()
        for f in m["files"]:
            if f["name"] == "model.onnx":
                f["sha256"], f["size"] = hashlib.sha256(data).hexdigest(), len(data)
        if len(sys.argv) == 4:
            m["quantization"] = sys.argv[3]
        m["description"] += " — " + note
    json.dump(mf, open(os.path.join(out, "manifest.json"), "w"), indent=2)


if __name__ == "__main__":
    main()
