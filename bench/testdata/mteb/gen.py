"""Write the MTEB / Hugging Face dataset-layout fixtures from testdata/tiny.

Run: pip install pyarrow==26.0.1; python3 gen.py
Not run in CI: the Go tests read the files it wrote. pyarrow is what the
Hugging Face `datasets` library writes parquet with, so the Go reader is
tested against the reference writer, not against itself.

parquet/  the layout of mteb/* retrieval sets on the hub: configs "corpus",
          "queries" and "default" (qrels) in corpus/, queries/ and data/,
          files named <split>-00000-of-00001.parquet, declared in README.md.
          Qrels have a test and a dev split; queries carry integer ids in a
          second file shard (MTEB casts ids to strings), the test qrels name
          a document the corpus lacks (as ArguAna's do).
bad/      one file per way a parquet part can be wrong: a corpus without
          "text", a null "_id", a fractional score, a list column.
jsonl/    the same set as JSON Lines: corpus/corpus-00000-of-00001.jsonl.gz
          (one split named "corpus", as CoIR sets name it),
          queries/queries.jsonl, qrels/test.jsonl with float scores (MTEB
          casts scores to float).
"""
import gzip
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
TINY = os.path.join(HERE, "..", "tiny")


def jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


corpus = jsonl(os.path.join(TINY, "corpus.jsonl"))
queries = jsonl(os.path.join(TINY, "queries.jsonl"))
qrels = []
with open(os.path.join(TINY, "qrels", "test.tsv")) as f:
    next(f)
    for line in f:
        q, d, s = line.rstrip("\n").split("\t")
        qrels.append({"query-id": q, "corpus-id": d, "score": int(s)})
dev = [{"query-id": "q1", "corpus-id": "d02", "score": 1}]


def write_parquet(rows, path, schema):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


P = os.path.join(HERE, "parquet")
write_parquet(corpus, os.path.join(P, "corpus", "test-00000-of-00001.parquet"),
              pa.schema([("_id", pa.string()), ("title", pa.string()), ("text", pa.string())]))
# Queries in two shards: string ids, then integer ids (q9 → 9 is unjudged).
qschema_s = pa.schema([("_id", pa.string()), ("text", pa.string())])
qschema_i = pa.schema([("_id", pa.int64()), ("text", pa.string())])
write_parquet(queries[:-1], os.path.join(P, "queries", "test-00000-of-00002.parquet"), qschema_s)
write_parquet([{"_id": 9, "text": queries[-1]["text"]}], os.path.join(P, "queries", "test-00001-of-00002.parquet"), qschema_i)
qrels_schema = pa.schema([("query-id", pa.string()), ("corpus-id", pa.string()), ("score", pa.int64())])
write_parquet(qrels + [{"query-id": "q2", "corpus-id": "d404", "score": 1}],
              os.path.join(P, "data", "test-00000-of-00001.parquet"), qrels_schema)
write_parquet(dev, os.path.join(P, "data", "dev-00000-of-00001.parquet"), qrels_schema)
with open(os.path.join(P, "README.md"), "w") as f:
    f.write("""---
configs:
- config_name: corpus
  data_files:
  - split: test
    path: corpus/test-*
- config_name: default
  data_files:
  - split: test
    path: data/test-*
  - split: dev
    path: data/dev-*
- config_name: queries
  data_files:
  - split: test
    path: queries/test-*
---
A fixture in the layout of the MTEB retrieval sets on the Hugging Face hub.
""")

J = os.path.join(HERE, "jsonl")
os.makedirs(os.path.join(J, "corpus"), exist_ok=True)
os.makedirs(os.path.join(J, "queries"), exist_ok=True)
os.makedirs(os.path.join(J, "qrels"), exist_ok=True)
with gzip.GzipFile(os.path.join(J, "corpus", "corpus-00000-of-00001.jsonl.gz"), "wb", mtime=0) as f:
    for d in corpus:
        f.write((json.dumps(d, sort_keys=True) + "\n").encode())
with open(os.path.join(J, "queries", "queries.jsonl"), "w") as f:
    for q in queries:
        f.write(json.dumps(q, sort_keys=True) + "\n")
with open(os.path.join(J, "qrels", "test.jsonl"), "w") as f:
    for r in qrels:
        f.write(json.dumps({**r, "score": float(r["score"])}, sort_keys=True) + "\n")

B = os.path.join(HERE, "bad")
write_parquet([{"_id": "d1", "title": "t"}], os.path.join(B, "no-text.parquet"),
              pa.schema([("_id", pa.string()), ("title", pa.string())]))
write_parquet([{"_id": None, "text": "x"}], os.path.join(B, "null-id.parquet"),
              pa.schema([("_id", pa.string()), ("text", pa.string())]))
write_parquet([{"query-id": "q1", "corpus-id": "d01", "score": 1.5}], os.path.join(B, "float-score.parquet"),
              pa.schema([("query-id", pa.string()), ("corpus-id", pa.string()), ("score", pa.float64())]))
write_parquet([{"_id": ["a", "b"], "text": "x"}], os.path.join(B, "list-id.parquet"),
              pa.schema([("_id", pa.list_(pa.string())), ("text", pa.string())]))
