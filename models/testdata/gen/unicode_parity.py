"""unicode_parity.py writes tokenizer/testdata/parity_e5-small-v2_unicode_ids.json.gz:
the Rust tokenizer's ids for short random texts that mix ASCII words and punctuation with
code points from many blocks — accented Latin, combining marks, Greek, Cyrillic, general
punctuation, CJK symbols and ideographs, Hangul, presentation forms, emoji, and the
characters BERT's clean_text treats specially (controls, format characters, private use,
unassigned code points, U+FFFD, NUL). TestParityUnicodeRandom holds the native BERT
pipeline (models/tokenizer/bert.go) to it.

Usage (the venv of parity.py; tokenizers pinned in requirements.txt):

    /tmp/venv/bin/python unicode_parity.py --tokenizer ~/.cache/cgraph/models/e5-small-v2/tokenizer.json
"""

import argparse
import os
import random

from tokenizers import Tokenizer

from parity import MODELS, write_gz_json

POOLS = [range(0x20, 0x7F), range(0xA0, 0x250), range(0x300, 0x370), range(0x370, 0x400),
         range(0x400, 0x500), range(0x2000, 0x2070), range(0x3000, 0x3100), range(0x4E00, 0x4F00),
         range(0xAC00, 0xAC80), range(0xFE00, 0xFF00), range(0x1F300, 0x1F700),
         [0x9, 0xA, 0xD, 0xB, 0xC, 0x85, 0x200B, 0x200D, 0xFEFF, 0x2028, 0x2029, 0xFFFD, 0x0, 0x7F,
          0xAD, 0x1E9E, 0x130, 0x131, 0x17F, 0x212A, 0xE000, 0xF316, 0x102287, 0x4ADBF, 0x378]]
ASCII = "abcdefghij klmnop ALLOW deny [MASK] [CLS] é, . ( ) : ; _ - 12 3.4"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=20261127)
    a = ap.parse_args()
    tok = Tokenizer.from_file(os.path.expanduser(a.tokenizer))
    tok.no_truncation()
    tok.no_padding()
    rng = random.Random(a.seed)
    cases = []
    while len(cases) < a.n:
        chars = []
        for _ in range(rng.randint(1, 60)):
            if rng.random() < 0.5:
                chars.append(rng.choice(ASCII))
            else:
                chars.append(chr(rng.choice(list(rng.choice(POOLS)))))
        text = "".join(chars)
        if not text.strip():
            continue
        ids = tok.encode(text).ids
        cases.append({"kind": "unicode-random", "text": text, "ids": ids, "full_len": len(ids) - 2})
    out = os.path.join(MODELS, "tokenizer", "testdata", "parity_e5-small-v2_unicode_ids.json.gz")
    write_gz_json(out, {"model": "e5-small-v2", "max_length": 0, "cases": cases})
    print(len(cases), "cases ->", out)


if __name__ == "__main__":
    main()
