"""corpus.py builds the deterministic set of varied texts used by the parity fixtures.

The texts are sampled (seeded) from real source trees and documents found on the
machine that runs the script (Go standard library, CPython library, C headers, npm's
JavaScript, Debian licence texts) plus hand-written Rust, Java, SQL, shell, unicode and
edge cases. The sampled texts are stored inside the fixtures, so the Go tests never
read these source trees; re-running the script on another machine may pick other texts.
"""

import glob
import os
import random

HANDWRITTEN_CODE = [
    # Rust
    'fn main() {\n    let v: Vec<u32> = (0..10).map(|x| x * x).collect();\n    println!("{:?}", v);\n}',
    "impl<T: Clone> Stack<T> {\n    pub fn push(&mut self, item: T) { self.items.push(item); }\n    pub fn pop(&mut self) -> Option<T> { self.items.pop() }\n}",
    "#[derive(Debug, Clone, PartialEq)]\nenum Token<'a> { Ident(&'a str), Num(f64), LParen, RParen }",
    "match result {\n    Ok(val) => val,\n    Err(e) => return Err(anyhow!(\"failed to parse {}: {e}\", path.display())),\n}",
    "async fn fetch(client: &reqwest::Client, url: &str) -> Result<String, reqwest::Error> {\n    client.get(url).send().await?.text().await\n}",
    # Java
    "public class HashMapExample {\n    public static void main(String[] args) {\n        Map<String, Integer> counts = new HashMap<>();\n        counts.merge(\"a\", 1, Integer::sum);\n    }\n}",
    "@Override\npublic boolean equals(Object o) {\n    if (this == o) return true;\n    if (!(o instanceof Point p)) return false;\n    return x == p.x && y == p.y;\n}",
    "try (BufferedReader br = Files.newBufferedReader(Paths.get(\"data.csv\"))) {\n    br.lines().skip(1).forEach(System.out::println);\n} catch (IOException e) { throw new UncheckedIOException(e); }",
    # SQL
    "SELECT u.id, u.email, COUNT(o.id) AS orders\nFROM users u LEFT JOIN orders o ON o.user_id = u.id\nWHERE u.created_at >= '2024-01-01'\nGROUP BY u.id, u.email HAVING COUNT(o.id) > 3 ORDER BY orders DESC;",
    "CREATE TABLE memories (\n  id UUID PRIMARY KEY,\n  content TEXT NOT NULL,\n  importance REAL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1)\n);",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM t WHERE n < 100) SELECT sum(n) FROM t;",
    # shell
    "#!/usr/bin/env bash\nset -euo pipefail\nfor f in \"$@\"; do\n  sha256sum \"$f\" | awk '{print $1}'\ndone",
    "find . -name '*.go' -not -path './vendor/*' -print0 | xargs -0 gofmt -l",
    "docker run --rm -it -v \"$PWD\":/src -w /src golang:1.26 go test -race ./...",
    "curl -sSfL https://example.com/install.sh | sh -s -- -b /usr/local/bin v1.2.3",
    # TypeScript / JSON / YAML / misc
    "export async function handler(req: Request): Promise<Response> {\n  const { id } = await req.json() as { id: string };\n  return new Response(JSON.stringify({ ok: true, id }), { status: 200 });\n}",
    '{"name": "cgraph", "version": "0.1.0", "dependencies": {"roaring": "^2.30.0"}, "private": true}',
    "services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: example\n    ports: [\"5432:5432\"]",
    "error[E0502]: cannot borrow `v` as mutable because it is also borrowed as immutable",
    "panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n\t/tmp/x.go:8 +0x1d\nexit status 2",
    "Traceback (most recent call last):\n  File \"app.py\", line 12, in <module>\n    main()\nKeyError: 'user_id'",
    "fix: retry RocksDB open when LOCK is held by a stale process (ENOLCK) — closes #412",
    "getUserByIdAndTenant parseHTTPResponse XMLHttpRequest snake_case_identifier __dunder__ kebab-case-name",
    "0x7fffffff 3.14159e-10 1_000_000 0b1010 0o755 -42 +7 1e308 NaN Inf",
    "https://github.com/cgraph/cgraph/blob/main/engine/FORMAT.md#column-families?x=1&y=2",
    "user.name+tag@example.co.uk <mailto:someone@example.org>",
    "a = b ?? c; d ||= e; f &&= g; h ??= i; j >>>= 2; k **= 3;",
    "SGVsbG8gd29ybGQhIFRoaXMgaXMgYSBsb25nIGJhc2U2NCBlbmNvZGVkIHN0cmluZyB0aGF0IGhhcyBubyBzcGFjZXMgYXQgYWxsIGFuZCBpcyBsb25nZXIgdGhhbiBvbmUgaHVuZHJlZCBjaGFyYWN0ZXJz",
    "sha256:ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23",
    "[CLS] this text contains literal special tokens [SEP] and [MASK] and [PAD] and [UNK]",
]

UNICODE = [
    "Café naïve résumé — “quoted” ‘single’ … ellipsis",
    "Ünïcödé ĀČĘ ŁÓŚŹŻ ÆØÅ æøå ß ẞ",
    "Москва — столица России. Привет, мир!",
    "東京は日本の首都です。机器学习和自然语言处理。",
    "한국어 텍스트와 English mixed 텍스트",
    "مرحبا بالعالم — النص العربي من اليمين إلى اليسار",
    "שלום עולם",
    "नमस्ते दुनिया, यह हिंदी पाठ है",
    "ภาษาไทยไม่มีช่องว่างระหว่างคำ",
    "Ελληνικά: αβγδε ΑΒΓΔΕ",
    "emoji 😀🚀🔥 👩‍💻 👍🏽 🇩🇪 ❤️",
    "combining: e\u0301 a\u0308 n\u0303 (decomposed) vs é ä ñ (composed)",
    "zero\u200bwidth\u200cjoiner\u200dtest\ufeffbom",
    "tabs\tand\nnewlines\r\nand\u00a0nbsp\u2003emspace",
    "control \u0001\u0002\u0007 chars \u007f del",
    "math ∀x∈ℝ: x²≥0, ∑ᵢ aᵢ, √2 ≈ 1.414, ∞, ≠, ≤",
    "full-width ＡＢＣ１２３ and half-width ｶﾀｶﾅ",
    "ligatures ﬁ ﬂ ﬀ and roman numerals Ⅻ",
    "Türkçe İstanbul ıiİI",
    "Tiếng Việt có dấu: Đây là một câu.",
    "ፊደል አማርኛ",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙 𝓈𝒸𝓇𝒾𝓅𝓉",
    "private use \ue000\ue001 and replacement \ufffd",
    "a\u0000b nul inside",
    "¿Dónde está la biblioteca? ¡Ahí!",
    "«guillemets» „Anführungszeichen“",
    "中文English混合text123数字",
    "日本語のコード: const 名前 = '値'; // コメント",
]

EDGE = [
    "a",
    "I",
    ".",
    "!!!???...",
    "12345",
    " leading and trailing spaces ",
    "UPPER CASE TEXT SHOUTING",
    "x" * 150,
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "don't won't can't shouldn't it's",
    "e.g. i.e. etc. U.S.A. Ph.D.",
    "C++ C# F# .NET Node.js",
    "$HOME ~/.cache/cgraph/models/e5-small-v2/model.onnx",
    "<div class=\"x\">Hello &amp; <b>world</b></div>",
    "\\n \\t \\\\ escaped backslashes",
    "a-b_c.d/e:f;g,h(i)j[k]l{m}n",
]

PROSE_SEEDS = [
    "The quick brown fox jumps over the lazy dog.",
    "We decided to keep RocksDB as the embedded store because it gives us atomic write batches across column families.",
    "The error went away after we pinned the library to version 1.7.15, which matches the Debian package.",
    "Remember that the user prefers tabs over spaces and wants short commit messages.",
    "Retrieval quality depends on both recall in the first stage and precision in the rerank.",
    "A memory is a piece of text with metadata: a code snippet, a decision and its reason, an error and its fix.",
]


def _read(path, limit=200_000):
    try:
        with open(path, "r", encoding="utf-8") as f:
            return f.read(limit)
    except (UnicodeDecodeError, OSError):
        return None


def _sample_files(pattern, n, rng, min_len=100, max_len=1500):
    files = sorted(glob.glob(pattern, recursive=True))
    out = []
    tries = 0
    while files and len(out) < n and tries < n * 20:
        tries += 1
        text = _read(rng.choice(files))
        if not text or len(text) < min_len:
            continue
        lines = text.splitlines(keepends=True)
        start = rng.randrange(len(lines))
        size = rng.randint(min_len, max_len)
        chunk = ""
        for line in lines[start:]:
            if len(chunk) + len(line) > size:
                break
            chunk += line
        chunk = chunk.strip()
        if len(chunk) >= 20:
            out.append(chunk)
    return out


def _long_texts(rng, pool, n):
    out = []
    for _ in range(n):
        target = rng.randint(4_000, 16_000)
        parts = []
        total = 0
        while total < target:
            p = rng.choice(pool)
            parts.append(p)
            total += len(p) + 1
        out.append("\n".join(parts))
    return out


def build(seed=20261122):
    """Returns (texts, kinds): at least 500 texts and a parallel list of kind labels."""
    rng = random.Random(seed)
    texts, kinds = [], []

    def add(items, kind):
        for t in items:
            texts.append(t)
            kinds.append(kind)

    add(_sample_files("/usr/local/go/src/**/*.go", 90, rng), "go")
    add(_sample_files("/usr/lib/python3.11/**/*.py", 70, rng), "python")
    add(_sample_files("/usr/include/**/*.h", 50, rng), "c")
    add(_sample_files("/usr/lib/node_modules/npm/lib/**/*.js", 45, rng), "javascript")
    add(HANDWRITTEN_CODE, "code-misc")
    prose = _sample_files("/usr/share/common-licenses/*", 40, rng, 80, 1200)
    prose += _sample_files("/usr/share/doc/*/copyright", 30, rng, 80, 1200)
    add(prose, "prose")
    add(PROSE_SEEDS, "prose")
    add(UNICODE, "unicode")
    mixed = []
    for _ in range(80):
        k = rng.randint(2, 4)
        mixed.append(" ".join(rng.choice(UNICODE + PROSE_SEEDS + EDGE) for _ in range(k)))
    add(mixed, "mixed")
    add(EDGE, "edge")
    add(_long_texts(rng, texts[:], 30), "long")
    return texts, kinds


if __name__ == "__main__":
    t, k = build()
    print(len(t), "texts", sum(len(x) for x in t), "bytes")
    for kind in sorted(set(k)):
        print(kind, k.count(kind))
