#!/usr/bin/env python3
"""A long-prose BEIR set from the Markdown files on this machine: each query is a
section heading, its one relevant document is that section's prose (code blocks,
tables, HTML and link targets dropped). It measures what E7 v2's head pooling
does to long prose notes, which the causal sets (one sentence a document) and
the agent session (short notes) do not.

Kept: sections of 60+ words whose heading is 3+ plain words (no digits or
code punctuation) and occurs once among all kept sections (a heading two sections share has no one answer). The walk
is sorted and the sample seeded, so the same trees give the same files.

    python3 docs/bench/e7head/prose_set.py OUT [--max 2000] ROOT...
"""
import argparse
import hashlib
import json
import os
import random
import re

FENCE = re.compile(r'^\s*(```|~~~)')
HEAD = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
LINK = re.compile(r'!?\[([^\]]*)\]\([^)]*\)')
TAG = re.compile(r'<[^>]+>')
REF = re.compile(r'^\s*\[[^\]]+\]:\s')
WORD = re.compile(r"^[A-Za-z][A-Za-z'-]*[,:?]?$")


def sections(path):
    try:
        with open(path, encoding='utf-8') as f:
            lines = f.read().splitlines()
    except (UnicodeDecodeError, OSError):
        return
    head, body, code = None, [], False
    for ln in lines:
        if FENCE.match(ln):
            code = not code
            continue
        if code:
            continue
        m = HEAD.match(ln)
        if m:
            if head is not None:
                yield head, body
            head, body = m.group(2), []
            continue
        if ln.lstrip().startswith('|') or REF.match(ln) or ln.startswith('    '):
            continue  # tables, link definitions, indented code
        body.append(ln)
    if head is not None:
        yield head, body


def topical(q):
    """A heading that names a topic in words: 3+ words, none with digits or
    code punctuation (this drops changelog versions and API signatures)."""
    ws = q.split()
    return len(ws) >= 3 and all(WORD.match(w) for w in ws)


def clean(s):
    s = LINK.sub(r'\1', s)
    s = TAG.sub(' ', s)
    s = s.replace('`', '').replace('**', '').replace('__', '')
    return re.sub(r'\s+', ' ', s).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('roots', nargs='+')
    ap.add_argument('--max', type=int, default=2000)
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    files = []
    for root in a.roots:
        for d, dirs, fs in os.walk(root):
            dirs.sort()
            files += [os.path.join(d, f) for f in sorted(fs) if f.lower().endswith('.md')]
    pairs, seen_text, heads = [], set(), {}
    for p in files:
        for h, body in sections(p):
            q, t = clean(h), clean(' '.join(body))
            if not topical(q) or len(t.split()) < 60:
                continue
            key = hashlib.sha256(t.encode()).hexdigest()
            if key in seen_text:
                continue  # the same section copied into another tree
            seen_text.add(key)
            heads[q.lower()] = heads.get(q.lower(), 0) + 1
            pairs.append((q, t, p))
    pairs = [x for x in pairs if heads[x[0].lower()] == 1]
    random.Random(a.seed).shuffle(pairs)
    pairs = pairs[:a.max]
    os.makedirs(os.path.join(a.out, 'qrels'), exist_ok=True)
    with open(os.path.join(a.out, 'corpus.jsonl'), 'w') as c, \
            open(os.path.join(a.out, 'queries.jsonl'), 'w') as qf, \
            open(os.path.join(a.out, 'qrels', 'test.tsv'), 'w') as r:
        r.write('query-id\tcorpus-id\tscore\n')
        for i, (q, t, _) in enumerate(pairs):
            c.write(json.dumps({'_id': 'd%d' % i, 'title': '', 'text': t}) + '\n')
            qf.write(json.dumps({'_id': 'q%d' % i, 'text': q}) + '\n')
            r.write('q%d\td%d\t1\n' % (i, i))
    words = sorted(len(t.split()) for _, t, _ in pairs)
    print('%d files, %d sections kept; words per document: median %d, p25 %d, p75 %d' % (
        len(files), len(pairs), words[len(words) // 2], words[len(words) // 4], words[3 * len(words) // 4]))


if __name__ == '__main__':
    main()
