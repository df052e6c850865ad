# Held-out set 3 of the capture fixture (read by gen.py: python3 gen.py heldout3).
#
# Written blind on 2026-11-28 by a helper session that read neither the
# extraction rules (capture/extract/*.go) nor the other held-out sets
# (sessions_heldout*.py, heldout/, heldout2/); it saw only gen.py and
# sessions.py for the API and the labelling conventions. These sessions measure
# how well the rules generalise: do NOT tune the rules to them, and do not
# edit the labels to match what the rules happen to produce.


@session
def pnpm_price_format():
    s = Session("pnpm-price-format", "/Users/tomasz/code/checkout-ui", branch="fix/price-format",
                start="2025-09-02T08:41:00Z", version="2.0.21")
    s.user("The cart summary shows NaN or crashes for gift-card lines, which have no currency set. Jonas added a vitest case for it that's red — can you get it green?")
    s.bash("pnpm --version", "9.12.3")
    s.bash("pnpm vitest run src/lib/price.test.ts", "\n RUN  v2.1.3 /Users/tomasz/code/checkout-ui\n\n \u276f src/lib/price.test.ts (5 tests | 1 failed) 9ms\n   \u00d7 formatPrice > falls back to the store currency when the line has none 4ms\n     \u2192 Cannot read properties of undefined (reading 'toUpperCase')\n\n\u23af\u23af\u23af\u23af\u23af\u23af\u23af Failed Tests 1 \u23af\u23af\u23af\u23af\u23af\u23af\u23af\n\n FAIL  src/lib/price.test.ts > formatPrice > falls back to the store currency when the line has none\nTypeError: Cannot read properties of undefined (reading 'toUpperCase')\n \u276f formatPrice src/lib/price.ts:14:31\n     12|   const cents = Math.round(line.amount * 100);\n     13|   const major = Math.trunc(cents / 100);\n     14|   const code = line.currency.toUpperCase();\n       |                               ^\n     15|   const symbol = SYMBOLS[code] ?? code;\n \u276f src/lib/price.test.ts:38:12\n\n Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)\n   Start at  10:41:52\n   Duration  412ms", 1)
    s.read("src/lib/price.ts", "import type { CartLine } from '../types';\n\nconst SYMBOLS: Record<string, string> = { EUR: '\u20ac', PLN: 'z\u0142', USD: '$' };\n\nexport function formatPrice(line: CartLine, storeCurrency: string): string {\n  if (line.amount == null) return '';\n  // cents first so 0.1 + 0.2 style drift never shows up\n  const cents = Math.round(line.amount * 100);\n  const major = Math.trunc(cents / 100);\n  const minor = String(Math.abs(cents % 100)).padStart(2, '0');\n  const code = line.currency.toUpperCase();\n  const symbol = SYMBOLS[code] ?? code;\n  return code === 'PLN' ? `${major},${minor} ${symbol}` : `${symbol}${major}.${minor}`;\n}")
    s.say("The crash is on line 14: `line.currency` is `undefined` for lines the gift-card flow creates, and `storeCurrency` is never used. Two ways forward:\n\n**Option A** \u2014 keep the hand-rolled formatter and fall back to `storeCurrency` before calling `toUpperCase()`. Smallest diff.\n\n**Option B** \u2014 same fallback, but replace the manual cents/symbol logic with `Intl.NumberFormat`. That also fixes the missing thousands separator for PLN and the symbol placement for EUR in the `de-DE` locale.\n\nB is a bigger diff but deletes the `SYMBOLS` table entirely.")
    s.user("ok let's do option B. use the locale from the store config, it's on `store.locale`.")
    s.edit("src/lib/price.ts", "export function formatPrice(line: CartLine, storeCurrency: string): string {\n  if (line.amount == null) return '';\n  // cents first so 0.1 + 0.2 style drift never shows up\n  const cents = Math.round(line.amount * 100);\n  const major = Math.trunc(cents / 100);\n  const minor = String(Math.abs(cents % 100)).padStart(2, '0');\n  const code = line.currency.toUpperCase();\n  const symbol = SYMBOLS[code] ?? code;\n  return code === 'PLN' ? `${major},${minor} ${symbol}` : `${symbol}${major}.${minor}`;\n}", "export function formatPrice(line: CartLine, store: StoreConfig): string {\n  if (line.amount == null) return '';\n  const currency = (line.currency ?? store.currency).toUpperCase();\n  return new Intl.NumberFormat(store.locale, { style: 'currency', currency }).format(line.amount);\n}")
    s.edit("src/lib/price.ts", "import type { CartLine } from '../types';\n\nconst SYMBOLS: Record<string, string> = { EUR: '\u20ac', PLN: 'z\u0142', USD: '$' };\n", "import type { CartLine, StoreConfig } from '../types';\n")
    s.bash("pnpm vitest run src/lib/price.test.ts", "\n RUN  v2.1.3 /Users/tomasz/code/checkout-ui\n\n \u2713 src/lib/price.test.ts (5 tests) 6ms\n\n Test Files  1 passed (1)\n      Tests  5 passed (5)\n   Start at  10:44:09\n   Duration  388ms")
    s.bash("pnpm eslint src/lib && pnpm tsc --noEmit", "")
    s.user("Nice. Commit it. Commit messages in imperative mood here, e.g. \"Format prices with Intl\", not \"Formatted prices\".")
    s.bash("git add src/lib/price.ts && git commit -m 'Format cart prices with Intl.NumberFormat'", "[fix/price-format 3c81e0a] Format cart prices with Intl.NumberFormat\n 1 file changed, 4 insertions(+), 11 deletions(-)")
    s.say("Committed as `Format cart prices with Intl.NumberFormat`. Gift-card lines now fall back to the store currency.")
    s.keep("fact", "9.12.3")
    s.keep("error", "reading 'toUpperCase'", id="e1")
    s.keep("fix", "price.ts", fixes="e1")
    s.keep("decision", "Intl.NumberFormat")
    s.keep("preference", "imperative mood")
    return s


@session
def uv_mypy_feedsync():
    s = Session("uv-mypy-feedsync", "/home/noor/src/feedsync", start="2025-09-03T13:05:00Z")
    s.user("I added a --since flag to the ingest CLI and mypy is red in CI now. We also need httpx for the new fetcher, pin it to 0.27.2.")
    s.bash("uv --version", "uv 0.4.18 (7b55e9790 2024-10-01)")
    s.bash("uv add 'httpx==0.27.2'", "Resolved 24 packages in 312ms\nPrepared 4 packages in 188ms\nInstalled 4 packages in 9ms\n + anyio==4.6.0\n + h11==0.14.0\n + httpcore==1.0.6\n + httpx==0.27.2")
    s.bash("uv run mypy src/", "src/feedsync/cli.py:48: error: Argument 1 to \"parse_since\" has incompatible type \"str | None\"; expected \"str\"  [arg-type]\nsrc/feedsync/fetch.py:12: error: Library stubs not installed for \"dateutil\"  [import-untyped]\nsrc/feedsync/fetch.py:12: note: Hint: \"python3 -m pip install types-python-dateutil\"\nsrc/feedsync/fetch.py:12: note: (or run \"mypy --install-types\" to install all missing library stubs)\nsrc/feedsync/fetch.py:12: note: See https://mypy.readthedocs.io/en/stable/running_mypy.html#missing-imports\nFound 2 errors in 2 files (checked 9 source files)", 1)
    s.read("src/feedsync/cli.py", "def main(argv: list[str] | None = None) -> int:\n    args = build_parser().parse_args(argv)\n    cfg = load_config(args.config)\n    since = parse_since(args.since)\n    return run_ingest(cfg, since=since)")
    s.grep("types-python-dateutil", "pyproject.toml", "pyproject.toml:31:    \"types-python-dateutil>=2.9.0\",")
    s.say("Two separate problems:\n\n- `args.since` is `str | None` (the flag is optional), but `parse_since` takes `str`. I'll only parse it when it's set.\n- The dateutil stubs are already in the `dev` dependency group in pyproject.toml \u2014 your local venv just hasn't been synced since they were added.")
    s.edit("src/feedsync/cli.py", "    since = parse_since(args.since)", "    since = parse_since(args.since) if args.since else None")
    s.bash("uv sync", "Resolved 25 packages in 4ms\nPrepared 1 package in 61ms\nInstalled 1 package in 2ms\n + types-python-dateutil==2.9.0.20241003")
    s.bash("uv run mypy src/ && uv run ruff check src/", "Success: no issues found in 9 source files\nAll checks passed!")
    s.user("Thanks. Separate thing: quit putting emojis in the log messages, our Loki pipeline mangles them. The fetcher has a few.")
    s.grep("log\\.(info|warning|error)\\(\"[^a-zA-Z]", "src/feedsync", "src/feedsync/fetch.py:40:        log.info(\"\U0001f680 fetching %s\", url)\nsrc/feedsync/fetch.py:57:        log.warning(\"\u26a0\ufe0f retrying %s (%d)\", url, attempt)\nsrc/feedsync/fetch.py:63:    log.info(\"\u2705 fetched %d items\", len(items))")
    s.edit("src/feedsync/fetch.py", "        log.info(\"\U0001f680 fetching %s\", url)", "        log.info(\"fetching %s\", url)")
    s.edit("src/feedsync/fetch.py", "        log.warning(\"\u26a0\ufe0f retrying %s (%d)\", url, attempt)", "        log.warning(\"retrying %s (%d)\", url, attempt)")
    s.edit("src/feedsync/fetch.py", "    log.info(\"\u2705 fetched %d items\", len(items))", "    log.info(\"fetched %d items\", len(items))")
    s.bash("uv run pytest -q", "..............\n14 passed in 0.63s")
    s.say("Removed the three emoji prefixes in fetch.py; tests pass. We could maybe move to structlog later for key/value logs, but that's a separate change.")
    s.keep("fact", "uv 0.4.18")
    s.keep("fact", "httpx==0.27.2")
    s.keep("error", "incompatible type", id="e1")
    s.keep("fix", "cli.py", fixes="e1")
    s.keep("error", "Library stubs not installed", id="e2")
    s.keep("fix", "uv sync", fixes="e2")
    s.keep("preference", "emojis in the log messages")
    return s


@session
def gradle_priority_orders():
    s = Session("gradle-priority-orders", "/home/marta/dev/fulfilment-svc", branch="feature/priority-orders",
                start="2025-09-04T10:00:00Z")
    s.user("Add a PriorityOrderService that puts express orders at the front of the pick queue. My first attempt doesn't compile.")
    s.bash("./gradlew --version", "\n------------------------------------------------------------\nGradle 8.10.2\n------------------------------------------------------------\n\nBuild time:    2024-09-23 21:28:39 UTC\nRevision:      415adb9e06a516c44b391edff552fd42139443f7\n\nKotlin:        1.9.24\nGroovy:        3.0.22\nAnt:           Apache Ant(TM) version 1.10.14 compiled on August 16 2023\nLauncher JVM:  21.0.4 (Eclipse Adoptium 21.0.4+7-LTS)\nDaemon JVM:    /usr/lib/jvm/temurin-21-jdk-amd64 (no JDK specified, using current Java home)\nOS:            Linux 6.8.0-45-generic amd64")
    s.bash("./gradlew compileJava", "> Task :compileJava FAILED\n/home/marta/dev/fulfilment-svc/src/main/java/com/northwind/fulfilment/PriorityOrderService.java:18: error: enqueue(Order) in PriorityOrderService cannot override enqueue(Order) in OrderService\n    public void enqueue(Order order) {\n                ^\n  overridden method is final\n1 error\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':compileJava'.\n> Compilation failed; see the compiler error output for details.\n\n* Try:\n> Check your code and dependencies to fix the compilation error(s)\n> Run with --scan to get full insights.\n\nBUILD FAILED in 2s\n1 actionable task: 1 executed", 1)
    s.read("src/main/java/com/northwind/fulfilment/PriorityOrderService.java", "package com.northwind.fulfilment;\n\npublic class PriorityOrderService extends OrderService {\n\n    public PriorityOrderService(PickQueue queue, OrderRepository repo) {\n        super(queue, repo);\n    }\n\n    @Override\n    public void enqueue(Order order) {\n        if (order.shipping() == Shipping.EXPRESS) {\n            queue.pushFront(order);\n        } else {\n            super.enqueue(order);\n        }\n    }\n}")
    s.say("`OrderService.enqueue` is declared `final`, so a subclass can't override it. The quickest way through would be to drop the `final` modifier on the base method.")
    s.user("Don't touch OrderService, other teams extend it. Prefer composition over inheritance here: wrap an OrderService and delegate.")
    s.edit("src/main/java/com/northwind/fulfilment/PriorityOrderService.java", "public class PriorityOrderService extends OrderService {\n\n    public PriorityOrderService(PickQueue queue, OrderRepository repo) {\n        super(queue, repo);\n    }\n\n    @Override\n    public void enqueue(Order order) {\n        if (order.shipping() == Shipping.EXPRESS) {\n            queue.pushFront(order);\n        } else {\n            super.enqueue(order);\n        }\n    }", "public class PriorityOrderService {\n\n    private final OrderService delegate;\n    private final PickQueue queue;\n\n    public PriorityOrderService(OrderService delegate, PickQueue queue) {\n        this.delegate = delegate;\n        this.queue = queue;\n    }\n\n    public void enqueue(Order order) {\n        if (order.shipping() == Shipping.EXPRESS) {\n            queue.pushFront(order);\n        } else {\n            delegate.enqueue(order);\n        }\n    }")
    s.bash("./gradlew compileJava", "\nBUILD SUCCESSFUL in 3s\n1 actionable task: 1 executed")
    s.bash("./gradlew test", "> Task :test\n\nPickQueueConsumerTest > drainsInArrivalOrder() FAILED\n    org.awaitility.core.ConditionTimeoutException: Condition with com.northwind.fulfilment.PickQueueConsumerTest was not fulfilled within 5 seconds.\n        at app//org.awaitility.core.ConditionAwaiter.await(ConditionAwaiter.java:167)\n        at app//org.awaitility.core.CallableCondition.await(CallableCondition.java:78)\n        at app//com.northwind.fulfilment.PickQueueConsumerTest.drainsInArrivalOrder(PickQueueConsumerTest.java:61)\n\n42 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':test'.\n> There were failing tests. See the report at: file:///home/marta/dev/fulfilment-svc/build/reports/tests/test/index.html\n\nBUILD FAILED in 38s\n4 actionable tasks: 2 executed, 2 up-to-date", 1)
    s.say("The failure is in `PickQueueConsumerTest`, which this change doesn't touch \u2014 it waits up to 5 s for the embedded broker. I'll re-run the suite unchanged to see whether it's timing.")
    s.bash("./gradlew test", "> Task :test\n\nBUILD SUCCESSFUL in 41s\n4 actionable tasks: 1 executed, 3 up-to-date")
    s.say("It passed on the second run with no changes, so `drainsInArrivalOrder` is flaky (awaitility timeout against the embedded broker), not broken by the new service. All 42 tests pass.")
    s.user("Yeah, that one has been flaky since we moved the broker into Testcontainers. Leave it for now.")
    s.keep("fact", "Gradle 8.10.2")
    s.keep("error", "cannot override", id="e1")
    s.keep("fix", "PriorityOrderService.java", fixes="e1")
    s.keep("preference", "composition over inheritance")
    s.keep("error", "drainsInArrivalOrder")
    return s


@session
def rust_clippy_tilecache():
    s = Session("rust-clippy-tilecache", "/home/ilya/code/tilecache", start="2025-09-05T16:20:00Z")
    s.user("CI runs `cargo clippy --all-targets -- -D warnings` and it fails on my branch. Can you clean it up?")
    s.bash("rustc --version && cargo clippy --version", "rustc 1.82.0 (f6e511eec 2024-10-15)\nclippy 0.1.82 (f6e511ee 2024-10-15)")
    s.bash("cargo clippy --all-targets -- -D warnings", "    Checking tilecache v0.6.1 (/home/ilya/code/tilecache)\nerror: length comparison to zero\n  --> src/store.rs:88:12\n   |\n88 |         if pending.len() == 0 {\n   |            ^^^^^^^^^^^^^^^^^^ help: using `is_empty` is clearer and more explicit: `pending.is_empty()`\n   |\n   = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#len_zero\n   = note: `-D clippy::len-zero` implied by `-D warnings`\n   = help: to override `-D warnings` add `#[allow(clippy::len_zero)]`\n\nerror: could not compile `tilecache` (lib) due to 1 previous error", 101)
    s.edit("src/store.rs", "        if pending.len() == 0 {", "        if pending.is_empty() {")
    s.bash("cargo clippy --all-targets -- -D warnings", "    Checking tilecache v0.6.1 (/home/ilya/code/tilecache)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1.12s")
    s.user("Cool. While you're there, src/error.rs is a pile of hand-written Display impls. Tidy it up however you think is best.")
    s.read("src/error.rs", "#[derive(Debug)]\npub enum StoreError {\n    Io(std::io::Error),\n    Corrupt { offset: u64 },\n    TooLarge(usize),\n}\n\nimpl std::fmt::Display for StoreError {\n    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {\n        match self {\n            StoreError::Io(e) => write!(f, \"io: {}\", e),\n            StoreError::Corrupt { offset } => write!(f, \"corrupt tile at offset {}\", offset),\n            StoreError::TooLarge(n) => write!(f, \"tile too large: {} bytes\", n),\n        }\n    }\n}\n\nimpl std::error::Error for StoreError {}\n\nimpl From<std::io::Error> for StoreError {\n    fn from(e: std::io::Error) -> Self {\n        StoreError::Io(e)\n    }\n}")
    s.say("I'll use `thiserror` for `StoreError` instead of the hand-written impls, because it derives the same messages from `#[error(...)]` attributes and gets `source()` right for the wrapped `io::Error` (the current impl returns `None`). `anyhow` would be the other option, but this is a library and callers match on the variants, so a concrete enum is the right shape.")
    s.bash("cargo add thiserror@1.0.64", "    Updating crates.io index\n      Adding thiserror v1.0.64 to dependencies\n    Updating crates.io index\n     Locking 2 packages to latest compatible versions\n      Adding thiserror v1.0.64\n      Adding thiserror-impl v1.0.64")
    s.write("src/error.rs", "use thiserror::Error;\n\n#[derive(Debug, Error)]\npub enum StoreError {\n    #[error(\"io: {0}\")]\n    Io(#[from] std::io::Error),\n    #[error(\"corrupt tile at offset {offset}\")]\n    Corrupt { offset: u64 },\n    #[error(\"tile too large: {0} bytes\")]\n    TooLarge(usize),\n}\n")
    s.bash("cargo clippy --all-targets -- -D warnings && cargo test", "    Checking tilecache v0.6.1 (/home/ilya/code/tilecache)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 2.40s\n   Compiling tilecache v0.6.1 (/home/ilya/code/tilecache)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 3.02s\n     Running unittests src/lib.rs (target/debug/deps/tilecache-4b1f0e2a9c7d3e61)\n\nrunning 14 tests\n..............\ntest result: ok. 14 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s")
    s.say("Clippy is clean and all 14 tests pass. error.rs went from 27 lines to 11 and the error messages are unchanged.")
    s.keep("fact", "rustc 1.82.0")
    s.keep("error", "len_zero", id="e1")
    s.keep("fix", "store.rs", fixes="e1")
    s.keep("decision", "thiserror")
    s.keep("fact", "1.0.64")
    return s


@session
def flyway_timesheets():
    s = Session("flyway-timesheets", "/home/kwame/work/payroll-db", branch="feat/timesheets", start="2025-09-08T09:30:00Z")
    s.user("Add a migration for a timesheets table (employee, pay period, hours, created timestamp) and run it against the local db.")
    s.bash("flyway --version", "Flyway Community Edition 10.17.3 by Redgate\n\nSee release notes here: https://rd.gt/416ObMi")
    s.bash("cat conf/flyway.conf && ls sql/", "flyway.url=jdbc:postgresql://localhost:5432/payroll\nflyway.user=payroll_admin\nflyway.password=q7Vn!reX42-payroll\nflyway.locations=filesystem:sql\nflyway.schemas=public\nV1__init.sql\nV2__employees.sql\nV3__departments.sql\nV4__salary_bands.sql\nV5__employee_bands.sql\nV6__audit_log.sql\nV7__pay_periods.sql\nV8__pay_period_index.sql")
    s.write("sql/V9__timesheets.sql", "CREATE TABLE timesheets (\n    id          BIGSERIAL PRIMARY KEY,\n    employeeId  BIGINT NOT NULL REFERENCES employees (id),\n    periodId    BIGINT NOT NULL REFERENCES pay_periods (id),\n    hours       NUMERIC(5, 2) NOT NULL CHECK (hours >= 0),\n    createdAt   TIMESTAMPTZ NOT NULL DEFAULT now()\n);\n\nCREATE INDEX timesheets_employee_period_idx ON timesheets (\"employeeId\", \"periodId\");\n")
    s.bash("flyway -configFiles=conf/flyway.conf migrate", "Flyway Community Edition 10.17.3 by Redgate\n\nSee release notes here: https://rd.gt/416ObMi\nDatabase: jdbc:postgresql://localhost:5432/payroll (PostgreSQL 16.4)\nSuccessfully validated 9 migrations (execution time 00:00.031s)\nCurrent version of schema \"public\": 8\nMigrating schema \"public\" to version \"9 - timesheets\"\nERROR: Migration V9__timesheets.sql failed\n-------------------------------------------\nSQL State  : 42703\nError Code : 0\nMessage    : ERROR: column \"employeeId\" does not exist\nLocation   : sql/V9__timesheets.sql (/home/kwame/work/payroll-db/sql/V9__timesheets.sql)\nLine       : 9\nStatement  : CREATE INDEX timesheets_employee_period_idx ON timesheets (\"employeeId\", \"periodId\")\n\nCaused by: Migration V9__timesheets.sql failed", 1)
    s.say("Postgres folds unquoted identifiers to lower case, so the table got a column `employeeid`, while the index quotes `\"employeeId\"`. Nothing was applied (the migration ran in a transaction). I could quote the identifiers in the CREATE TABLE as well so the camelCase sticks.")
    s.user("No. Use snake_case for column names in this schema, like every other table: employee_id, period_id, created_at.")
    s.edit("sql/V9__timesheets.sql", "    employeeId  BIGINT NOT NULL REFERENCES employees (id),\n    periodId    BIGINT NOT NULL REFERENCES pay_periods (id),\n    hours       NUMERIC(5, 2) NOT NULL CHECK (hours >= 0),\n    createdAt   TIMESTAMPTZ NOT NULL DEFAULT now()\n);\n\nCREATE INDEX timesheets_employee_period_idx ON timesheets (\"employeeId\", \"periodId\");", "    employee_id BIGINT NOT NULL REFERENCES employees (id),\n    period_id   BIGINT NOT NULL REFERENCES pay_periods (id),\n    hours       NUMERIC(5, 2) NOT NULL CHECK (hours >= 0),\n    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()\n);\n\nCREATE INDEX timesheets_employee_period_idx ON timesheets (employee_id, period_id);")
    s.bash("flyway -configFiles=conf/flyway.conf migrate", "Flyway Community Edition 10.17.3 by Redgate\n\nSee release notes here: https://rd.gt/416ObMi\nDatabase: jdbc:postgresql://localhost:5432/payroll (PostgreSQL 16.4)\nSuccessfully validated 9 migrations (execution time 00:00.029s)\nCurrent version of schema \"public\": 8\nMigrating schema \"public\" to version \"9 - timesheets\"\nSuccessfully applied 1 migration to schema \"public\", now at version v9 (execution time 00:00.047s)")
    s.bash("flyway -configFiles=conf/flyway.conf info | tail -4", "| Versioned | 8       | pay period index | SQL  | 2025-08-21 14:02:11 | Success |\n| Versioned | 9       | timesheets       | SQL  | 2025-09-08 09:34:40 | Success |\n+-----------+---------+------------------+------+---------------------+---------+\n")
    s.say("V9 is applied. The table uses `employee_id`, `period_id` and `created_at`, with a composite index on (employee_id, period_id).")
    s.keep("fact", "10.17.3")
    s.keep("error", "\"employeeId\" does not exist", id="e1")
    s.keep("fix", "V9__timesheets.sql", fixes="e1")
    s.keep("preference", "snake_case for column names")
    s.never("q7Vn!reX42-payroll")
    return s


@session
def buf_cancel_reason():
    s = Session("buf-cancel-reason", "/home/sven/src/orderhub", branch="feat/cancel-reason", start="2025-09-09T11:15:00Z")
    s.user("I added cancel_reason to CancelOrderRequest in the proto and used it in the server, but the build is broken.")
    s.bash("buf --version", "1.45.0")
    s.bash("go build ./...", "# github.com/northwind/orderhub/internal/server\ninternal/server/orders.go:57:25: req.GetCancelReason undefined (type *ordersv1.CancelOrderRequest has no field or method GetCancelReason)", 1)
    s.bash("git status --short", " M internal/server/orders.go\n M proto/orderhub/orders/v1/orders.proto")
    s.say("The proto changed but the generated code under `gen/` wasn't regenerated, so the Go type still has no `CancelReason` field. This repo generates with buf (see `buf.gen.yaml`); I'll lint and regenerate.")
    s.bash("buf lint", "")
    s.bash("buf generate", "")
    s.bash("go build ./... && go test ./internal/server/...", "ok  \tgithub.com/northwind/orderhub/internal/server\t0.044s")
    s.user("Should cancel_reason be an enum instead of a free string?")
    s.say("### Trade-off\n\n- **string** \u2014 flexible, no client release needed for new reasons, but analytics gets free text (\"customer changed mind\", \"changed mind\", ...).\n- **enum** \u2014 groupable and validated; adding a value later is wire-compatible, but old clients see unknown values as the number.\n\nIf support wants to chart reasons, an enum is probably nicer; the mobile app would need to ship the new field either way.")
    s.user("We'll go ahead with the enum: CancelReason, with CANCEL_REASON_UNSPECIFIED = 0. Support wants to chart reasons and the mobile release is next week anyway.")
    s.edit("proto/orderhub/orders/v1/orders.proto", "  string cancel_reason = 4;\n}", "  CancelReason cancel_reason = 4;\n}\n\nenum CancelReason {\n  CANCEL_REASON_UNSPECIFIED = 0;\n  CANCEL_REASON_CUSTOMER_REQUEST = 1;\n  CANCEL_REASON_OUT_OF_STOCK = 2;\n  CANCEL_REASON_PAYMENT_FAILED = 3;\n  CANCEL_REASON_FRAUD_SUSPECTED = 4;\n}")
    s.bash("buf lint && buf generate && go build ./...", "# github.com/northwind/orderhub/internal/server\ninternal/server/orders.go:57:35: cannot use req.GetCancelReason() (value of int32 type ordersv1.CancelReason) as string value in argument to s.store.Cancel", 1)
    s.edit("internal/server/orders.go", "\tif err := s.store.Cancel(ctx, req.GetOrderId(), req.GetCancelReason()); err != nil {", "\tif err := s.store.Cancel(ctx, req.GetOrderId(), req.GetCancelReason().String()); err != nil {")
    s.bash("go build ./... && go test ./...", "ok  \tgithub.com/northwind/orderhub/internal/server\t0.047s\nok  \tgithub.com/northwind/orderhub/internal/store\t0.112s\n?   \tgithub.com/northwind/orderhub/gen/orderhub/orders/v1\t[no test files]")
    s.say("`cancel_reason` is now the `CancelReason` enum; the store keeps the enum name as text, so existing rows still read fine.")
    s.keep("fact", "1.45.0")
    s.keep("error", "GetCancelReason undefined", id="e1")
    s.keep("fix", "buf generate", fixes="e1")
    s.keep("decision", "CancelReason")
    s.keep("error", "cannot use req.GetCancelReason()", id="e2")
    s.keep("fix", "orders.go", fixes="e2")
    return s


@session
def ansible_grafana_staging():
    s = Session("ansible-grafana-staging", "/home/ops/infra-ansible", start="2025-09-10T14:00:00Z")
    s.user("Run the monitoring playbook against staging in check mode first. It's the new Grafana role.")
    s.bash("ansible --version", "ansible [core 2.17.4]\n  config file = /home/ops/infra-ansible/ansible.cfg\n  configured module search path = ['/home/ops/.ansible/plugins/modules', '/usr/share/ansible/plugins/modules']\n  ansible python module location = /home/ops/.venvs/ansible/lib/python3.12/site-packages/ansible\n  ansible collection location = /home/ops/.ansible/collections:/usr/share/ansible/collections\n  executable location = /home/ops/.venvs/ansible/bin/ansible\n  python version = 3.12.5 (main, Aug  7 2024, 18:07:52) [GCC 13.2.0] (/home/ops/.venvs/ansible/bin/python)\n  jinja version = 3.1.4\n  libyaml = True")
    s.bash("ansible-playbook -i inventories/staging monitoring.yml --check --diff", "ERROR! the role 'grafana.grafana.grafana' was not found in /home/ops/infra-ansible/roles:/home/ops/.ansible/roles:/usr/share/ansible/roles:/etc/ansible/roles:/home/ops/infra-ansible\n\nThe error appears to be in '/home/ops/infra-ansible/monitoring.yml': line 9, column 7, but may\nbe elsewhere in the file depending on the exact syntax problem.\n\nThe offending line appears to be:\n\n  roles:\n    - role: grafana.grafana.grafana\n      ^ here", 1)
    s.read("requirements.yml", "---\ncollections:\n  - name: community.general\n    version: 9.4.0\n  - name: grafana.grafana\n    version: 5.5.1")
    s.say("The collection is declared in requirements.yml but isn't installed on this machine yet.")
    s.bash("ansible-galaxy collection install -r requirements.yml", "Starting galaxy collection install process\nProcess install dependency map\nStarting collection install process\nDownloading https://galaxy.ansible.com/api/v3/plugin/ansible/content/published/collections/artifacts/grafana-grafana-5.5.1.tar.gz to /home/ops/.ansible/tmp/ansible-local-48213k2_f/tmp9vq1x0/grafana-grafana-5.5.1-3x8k\nInstalling 'grafana.grafana:5.5.1' to '/home/ops/.ansible/collections/ansible_collections/grafana/grafana'\ngrafana.grafana:5.5.1 was installed successfully\n'community.general:9.4.0' is already installed, skipping.")
    s.bash("ansible-playbook -i inventories/staging monitoring.yml --check --diff", "\nPLAY [monitoring] **************************************************************\n\nTASK [Gathering Facts] *********************************************************\nok: [stg-mon-01]\nfatal: [stg-mon-02]: UNREACHABLE! => {\"changed\": false, \"msg\": \"Failed to connect to the host via ssh: ssh: connect to host 10.20.4.32 port 22: No route to host\", \"unreachable\": true}\n\nTASK [grafana.grafana.grafana : Install Grafana] *******************************\nchanged: [stg-mon-01]\n\nTASK [grafana.grafana.grafana : Configure Grafana] *****************************\n--- before: /etc/grafana/grafana.ini\n+++ after: /etc/grafana/grafana.ini\n@@ -32,1 +32,1 @@\n-;http_port = 3000\n+http_port = 3000\n\nchanged: [stg-mon-01]\n\nPLAY RECAP *********************************************************************\nstg-mon-01                 : ok=5    changed=2    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0\nstg-mon-02                 : ok=0    changed=0    unreachable=1    failed=0    skipped=0    rescued=0    ignored=0", 4)
    s.user("Careful, Grafana listens on port 3001 on the staging boxes \u2014 3000 is the status-page app there. mon-02 is being decommissioned, ignore it.")
    s.edit("inventories/staging/group_vars/monitoring.yml", "grafana_ini:\n  server:\n    domain: grafana.stg.internal", "grafana_ini:\n  server:\n    domain: grafana.stg.internal\n    http_port: 3001")
    s.bash("ansible-playbook -i inventories/staging monitoring.yml --check --diff --limit stg-mon-01", "\nPLAY [monitoring] **************************************************************\n\nTASK [Gathering Facts] *********************************************************\nok: [stg-mon-01]\n\nTASK [grafana.grafana.grafana : Install Grafana] *******************************\nchanged: [stg-mon-01]\n\nTASK [grafana.grafana.grafana : Configure Grafana] *****************************\n--- before: /etc/grafana/grafana.ini\n+++ after: /etc/grafana/grafana.ini\n@@ -32,1 +32,1 @@\n-;http_port = 3000\n+http_port = 3001\n\nchanged: [stg-mon-01]\n\nPLAY RECAP *********************************************************************\nstg-mon-01                 : ok=5    changed=2    unreachable=0    failed=0    skipped=1    rescued=0    ignored=0")
    s.say("Check mode on stg-mon-01 is clean and Grafana will bind to 3001. I limited the run to stg-mon-01, since stg-mon-02 is unreachable.")
    s.keep("fact", "core 2.17.4")
    s.keep("error", "the role 'grafana.grafana.grafana'", id="e1")
    s.keep("fix", "ansible-galaxy collection install", fixes="e1")
    s.keep("fact", "grafana.grafana:5.5.1")
    s.keep("error", "UNREACHABLE")
    s.keep("fact", "3001")
    return s


@session
def cabal_confwatch():
    s = Session("cabal-confwatch", "/home/aiko/hs/confwatch", start="2025-09-11T07:50:00Z")
    s.user("confwatch should read its settings from a YAML file. Add a Config type and decode it. Also, for the CLI flags: optparse-applicative or cmdargs?")
    s.bash("ghc --version && cabal --version", "The Glorious Glasgow Haskell Compilation System, version 9.6.6\ncabal-install version 3.12.1.0\ncompiled using version 3.12.1.0 of the Cabal library ")
    s.say("On the CLI question:\n\n- **optparse-applicative** \u2014 explicit parsers, good `--help` output, composes well with subcommands.\n- **cmdargs** \u2014 less code via its implicit mode, but that mode relies on unsafe tricks and can surprise you under optimisation.\n\nEither works for a tool this size.")
    s.user("final answer: optparse-applicative. cmdargs's implicit mode bit us in another project.")
    s.edit("confwatch.cabal", "    build-depends:    base ^>=4.18.2.1,\n                      text,\n                      aeson", "    build-depends:    base ^>=4.18.2.1,\n                      text,\n                      aeson,\n                      yaml,\n                      optparse-applicative")
    s.write("src/Confwatch/Config.hs", "module Confwatch.Config (Config (..), loadConfig) where\n\nimport Data.Text (Text)\nimport Data.Yaml (ParseException, decodeFileEither)\n\ndata Config = Config\n  { watchPaths :: [FilePath]\n  , debounceMs :: Int\n  , notifyCmd :: Maybe Text\n  }\n  deriving (Show)\n\nloadConfig :: FilePath -> IO (Either ParseException Config)\nloadConfig = decodeFileEither\n")
    s.bash("cabal build", "Resolving dependencies...\nBuild profile: -w ghc-9.6.6 -O1\nIn order, the following will be built (use -v for more details):\n - confwatch-0.1.0.0 (lib) (file src/Confwatch/Config.hs changed)\n - confwatch-0.1.0.0 (exe:confwatch) (dependency rebuilt)\nPreprocessing library for confwatch-0.1.0.0..\nBuilding library for confwatch-0.1.0.0..\n[3 of 5] Compiling Confwatch.Config ( src/Confwatch/Config.hs, dist-newstyle/build/x86_64-linux/ghc-9.6.6/confwatch-0.1.0.0/build/Confwatch/Config.o, dist-newstyle/build/x86_64-linux/ghc-9.6.6/confwatch-0.1.0.0/build/Confwatch/Config.dyn_o )\n\nsrc/Confwatch/Config.hs:14:14: error: [GHC-39999]\n    \u2022 No instance for \u2018aeson-2.2.3.0:Data.Aeson.Types.FromJSON.FromJSON\n                         Config\u2019\n        arising from a use of \u2018decodeFileEither\u2019\n    \u2022 In the expression: decodeFileEither\n      In an equation for \u2018loadConfig\u2019: loadConfig = decodeFileEither\n   |\n14 | loadConfig = decodeFileEither\n   |              ^^^^^^^^^^^^^^^^\nError: [Cabal-7125]\nFailed to build confwatch-0.1.0.0 (which is required by exe:confwatch from confwatch-0.1.0.0).", 1)
    s.say("`Config` has no `FromJSON` instance. I'll derive `Generic` and use the generic parser, mapping camelCase fields to kebab-case YAML keys (`watch-paths`, `debounce-ms`).")
    s.edit("src/Confwatch/Config.hs", "module Confwatch.Config (Config (..), loadConfig) where\n\nimport Data.Text (Text)\nimport Data.Yaml (ParseException, decodeFileEither)\n", "{-# LANGUAGE DeriveGeneric #-}\n\nmodule Confwatch.Config (Config (..), loadConfig) where\n\nimport Data.Aeson (FromJSON (..), camelTo2, defaultOptions, fieldLabelModifier, genericParseJSON)\nimport Data.Text (Text)\nimport Data.Yaml (ParseException, decodeFileEither)\nimport GHC.Generics (Generic)\n")
    s.edit("src/Confwatch/Config.hs", "  deriving (Show)\n", "  deriving (Show, Generic)\n\ninstance FromJSON Config where\n  parseJSON = genericParseJSON defaultOptions {fieldLabelModifier = camelTo2 '-'}\n")
    s.bash("cabal build && cabal test", "Build profile: -w ghc-9.6.6 -O1\n[3 of 5] Compiling Confwatch.Config ( src/Confwatch/Config.hs, ... )\n[5 of 5] Compiling Confwatch.Main ( src/Confwatch/Main.hs, ... )\n[1 of 2] Linking dist-newstyle/build/x86_64-linux/ghc-9.6.6/confwatch-0.1.0.0/x/confwatch/build/confwatch/confwatch\nRunning 1 test suites...\nTest suite confwatch-test: RUNNING...\nConfig\n  loadConfig\n    parses example.yaml [\u2714]\n    rejects a negative debounce [\u2714]\n\nFinished in 0.0021 seconds\n2 examples, 0 failures\nTest suite confwatch-test: PASS")
    s.user("Looks good. Put the optparse part in its own PR though. Keep PRs to a single concern in this repo, it keeps bisecting sane.")
    s.say("OK \u2014 this branch has only the Config change; I'll do the optparse-applicative flags on a separate branch.")
    s.keep("fact", "version 9.6.6")
    s.keep("fact", "3.12.1.0")
    s.keep("decision", "optparse-applicative")
    s.keep("error", "No instance for", id="e1")
    s.keep("fix", "Config.hs", fixes="e1")
    s.keep("preference", "single concern")
    return s


@session
def nix_linkrot_flake():
    s = Session("nix-linkrot-flake", "/home/jo/src/linkrot", start="2025-09-12T18:05:00Z")
    s.user("I bumped the Go deps in linkrot and now `nix build` fails. Can you fix the flake?")
    s.bash("nix --version", "nix (Nix) 2.24.9")
    s.bash("nix build .#default", "error: hash mismatch in fixed-output derivation '/nix/store/0h7v7x4kqa9w2l3m1s8c5d6f9g2j4k1p-linkrot-0.9.0-go-modules.drv':\n         specified: sha256-7qvJ0Qx2m3mJb9Fh0fD6sQk4rT1eYwZpL8uN5cV3aBg=\n            got:    sha256-Kp2yXr9fWq1LmN8vT4sD7hJ3bC6eA0zR5uY2iO9gF1w=\nerror: 1 dependencies of derivation '/nix/store/9b3c1x8z7w6v5u4t3s2r1q0p9o8n7m6l-linkrot-0.9.0.drv' failed to build", 1)
    s.read("flake.nix", "{\n  description = \"linkrot: finds dead links in markdown trees\";\n\n  inputs.nixpkgs.url = \"github:NixOS/nixpkgs/nixos-unstable\";\n  inputs.flake-utils.url = \"github:numtide/flake-utils\";\n\n  outputs = { self, nixpkgs, flake-utils }:\n    flake-utils.lib.eachDefaultSystem (system:\n      let pkgs = nixpkgs.legacyPackages.${system}; in {\n        packages.default = pkgs.buildGoModule {\n          pname = \"linkrot\";\n          version = \"0.9.0\";\n          src = ./.;\n          vendorHash = \"sha256-7qvJ0Qx2m3mJb9Fh0fD6sQk4rT1eYwZpL8uN5cV3aBg=\";\n          meta.platforms = [ \"x86_64-linux\" \"aarch64-linux\" ];\n        };\n      });\n}")
    s.say("`vendorHash` pins the hash of the vendored Go modules, so it has to change whenever go.sum does. Nix printed the new one.")
    s.edit("flake.nix", "          vendorHash = \"sha256-7qvJ0Qx2m3mJb9Fh0fD6sQk4rT1eYwZpL8uN5cV3aBg=\";", "          vendorHash = \"sha256-Kp2yXr9fWq1LmN8vT4sD7hJ3bC6eA0zR5uY2iO9gF1w=\";")
    s.bash("nix build .#default && ls -l result/bin", "total 8412\n-r-xr-xr-x 1 root root 8612864 Jan  1  1970 linkrot")
    s.bash("nix flake check", "warning: unknown flake output 'overlay'\nerror:\n       \u2026 while checking flake output 'packages'\n\n       \u2026 while checking the derivation 'packages.aarch64-darwin.default'\n\n       error: Package \u2018linkrot-0.9.0\u2019 in /nix/store/x1r0m8q2c7v4k9d3f6b5n1z8w2y7t4s3-source/flake.nix:10 is not available on the requested hostPlatform:\n         hostPlatform.config = \"arm64-apple-darwin\"\n         package.meta.platforms = [\n           \"x86_64-linux\"\n           \"aarch64-linux\"\n         ]\n         package.meta.badPlatforms = [ ]\n       , refusing to evaluate.", 1)
    s.say("`nix flake check` evaluates every system from `eachDefaultSystem`, but `meta.platforms` only lists Linux. Either restrict the systems or add darwin to the platforms; I haven't checked whether the inotify watcher even builds on macOS, though.")
    s.user("Leave that, nobody runs it on a Mac. Should we move to flake-parts at some point?")
    s.say("Probably not worth it yet: the flake is 18 lines and has one output. It could be worth considering if you add per-system dev shells and checks.")
    s.user("ok. Also the nixpkgs input should track a release branch, not unstable \u2014 that's the rule for all our flakes. Switch it to nixos-24.05.")
    s.edit("flake.nix", "  inputs.nixpkgs.url = \"github:NixOS/nixpkgs/nixos-unstable\";", "  inputs.nixpkgs.url = \"github:NixOS/nixpkgs/nixos-24.05\";")
    s.bash("nix flake lock --update-input nixpkgs && nix build .#default", "warning: Git tree '/home/jo/src/linkrot' is dirty\nwarning: updating lock file '/home/jo/src/linkrot/flake.lock':\n\u2022 Updated input 'nixpkgs':\n    'github:NixOS/nixpkgs/9357f4f23713673f310988025d9dc261c20e70c6' (2024-09-10)\n  \u2192 'github:NixOS/nixpkgs/ecbc1ca8ffd6aea8372ad16be9ebbb39889e55b6' (2024-09-11)\nwarning: Git tree '/home/jo/src/linkrot' is dirty")
    s.say("nixpkgs now follows nixos-24.05 and the package still builds.")
    s.keep("fact", "2.24.9")
    s.keep("error", "hash mismatch", id="e1")
    s.keep("fix", "flake.nix", fixes="e1")
    s.keep("error", "hostPlatform")
    s.keep("preference", "track a release branch")
    return s


@session
def flutter_photo_grid():
    s = Session("flutter-photo-grid", "/Users/lena/dev/trailmap_app", branch="feat/photo-grid",
                start="2025-09-15T10:30:00Z", version="2.0.21")
    s.user("The photo grid on the trail detail page janks and re-downloads thumbnails when you scroll back up. Also flutter analyze is complaining since yesterday.")
    s.bash("flutter --version", "Flutter 3.24.3 \u2022 channel stable \u2022 https://github.com/flutter/flutter.git\nFramework \u2022 revision 2663184aa7 (3 weeks ago) \u2022 2024-09-11 16:27:48 -0500\nEngine \u2022 revision 36335019a8\nTools \u2022 Dart 3.5.3 \u2022 DevTools 2.37.3")
    s.bash("flutter analyze", "Analyzing trailmap_app...                                       \n\n  error \u2022 The argument type 'String?' can't be assigned to the parameter type 'String'.  \u2022 lib/src/trail/photo_grid.dart:38:32 \u2022 argument_type_not_assignable\n   info \u2022 Use 'const' with the constructor to improve performance \u2022 lib/src/trail/photo_grid.dart:44:16 \u2022 prefer_const_constructors\n\n2 issues found. (ran in 3.1s)", 1)
    s.read("lib/src/trail/photo_grid.dart", "  Widget _tile(BuildContext context, TrailPhoto photo) {\n    return ClipRRect(\n      borderRadius: BorderRadius.circular(6),\n      child: Image.network(\n        photo.thumbUrl,\n        fit: BoxFit.cover,\n        errorBuilder: (_, __, ___) => Icon(Icons.broken_image),\n      ),\n    );\n  }")
    s.think("thumbUrl became nullable in the API model change. Image.network keeps decoded images only in the in-memory ImageCache; the grid scrolls them out and they get fetched again. cached_network_image would persist to disk.")
    s.bash("flutter pub add cached_network_image:3.4.1", "Resolving dependencies... \nDownloading packages... \n+ cached_network_image 3.4.1\n+ cached_network_image_platform_interface 4.1.1\n+ cached_network_image_web 1.3.1\n+ flutter_cache_manager 3.4.1\n+ octo_image 2.1.0\n+ rxdart 0.28.0\n+ sqflite 2.3.3+2\n+ sqflite_common 2.5.4+3\n+ synchronized 3.3.0+3\nChanged 9 dependencies!")
    s.edit("lib/src/trail/photo_grid.dart", "  Widget _tile(BuildContext context, TrailPhoto photo) {\n    return ClipRRect(\n      borderRadius: BorderRadius.circular(6),\n      child: Image.network(\n        photo.thumbUrl,\n        fit: BoxFit.cover,\n        errorBuilder: (_, __, ___) => Icon(Icons.broken_image),\n      ),\n    );\n  }", "  Widget _tile(BuildContext context, TrailPhoto photo) {\n    final url = photo.thumbUrl;\n    if (url == null) return const _PhotoPlaceholder();\n    return ClipRRect(\n      borderRadius: BorderRadius.circular(6),\n      child: CachedNetworkImage(\n        imageUrl: url,\n        fit: BoxFit.cover,\n        memCacheWidth: 320,\n        errorWidget: (_, __, ___) => const Icon(Icons.broken_image),\n      ),\n    );\n  }")
    s.bash("flutter analyze", "Analyzing trailmap_app...                                       \nNo issues found! (ran in 2.8s)")
    s.bash("flutter test", "00:04 +23: All tests passed!")
    s.say("## Summary\n\n- **Analyzer error**: `TrailPhoto.thumbUrl` became nullable in the API model change; `photo_grid.dart` now shows a placeholder tile when it is null.\n- **Scroll jank / re-downloads**: I switched the thumbnails from `Image.network` to `CachedNetworkImage` because `Image.network` only keeps decoded images in the in-memory cache, which the grid evicts as you scroll, while cached_network_image keeps them on disk and decodes at thumbnail size (`memCacheWidth: 320`).\n- Added `cached_network_image: 3.4.1` to pubspec.yaml.\n\nYou might also want to precache the first row in `didChangeDependencies`, but I haven't done that here.")
    s.keep("fact", "Flutter 3.24.3")
    s.keep("error", "argument_type_not_assignable", id="e1")
    s.keep("fix", "photo_grid.dart", fixes="e1")
    s.keep("decision", "CachedNetworkImage")
    s.keep("fact", "cached_network_image:3.4.1")
    return s


@session
def go_webhookd_lint_push():
    s = Session("go-webhookd-lint-push", "/home/raj/go/src/github.com/tallyhq/webhookd", branch="fix/retry-close",
                start="2025-09-16T15:40:00Z")
    s.user("golangci-lint is failing on the retry branch. And git push gives me a 403, no idea why.")
    s.bash("golangci-lint --version", "golangci-lint has version 1.61.0 built with go1.23.1 from a1d6c560 on 2024-09-09T17:44:42Z")
    s.bash("golangci-lint run ./...", "internal/deliver/retry.go:64:23: Error return value of `resp.Body.Close` is not checked (errcheck)\n\tdefer resp.Body.Close()\n\t                     ^\ninternal/deliver/retry.go:71:3: ineffectual assignment to err (ineffassign)\n\t\terr = backoff.Wait(ctx, attempt)\n\t\t^\n2 issues:\n* errcheck: 1\n* ineffassign: 1", 1)
    s.read("internal/deliver/retry.go", "// Deliver posts the event to the subscriber, retrying with backoff.\nfunc (d *Deliverer) Deliver(ctx context.Context, ev Event) error {\n\tvar err error\n\tfor attempt := 0; attempt < d.maxAttempts; attempt++ {\n\t\tresp, err := d.client.Do(d.request(ctx, ev))\n\t\tif err == nil {\n\t\t\tdefer resp.Body.Close()\n\t\t\tif resp.StatusCode < 300 {\n\t\t\t\treturn nil\n\t\t\t}\n\t\t}\n\t\terr = backoff.Wait(ctx, attempt)\n\t}\n\treturn err\n}")
    s.say("This package does its own in-process retry loop with exponential backoff. The `ineffassign` hit is real: the inner `err` shadows the outer one, so a cancelled context from `backoff.Wait` is dropped and the loop keeps going. The `defer` inside the loop also keeps every response body open until the function returns.")
    s.user("We agreed in Tuesday's review to drop the in-process retry loop and rely on SQS redelivery via the visibility timeout. So delete the loop rather than patching it.")
    s.edit("internal/deliver/retry.go", "// Deliver posts the event to the subscriber, retrying with backoff.\nfunc (d *Deliverer) Deliver(ctx context.Context, ev Event) error {\n\tvar err error\n\tfor attempt := 0; attempt < d.maxAttempts; attempt++ {\n\t\tresp, err := d.client.Do(d.request(ctx, ev))\n\t\tif err == nil {\n\t\t\tdefer resp.Body.Close()\n\t\t\tif resp.StatusCode < 300 {\n\t\t\t\treturn nil\n\t\t\t}\n\t\t}\n\t\terr = backoff.Wait(ctx, attempt)\n\t}\n\treturn err\n}", "// Deliver posts the event to the subscriber once. A non-nil error leaves the\n// SQS message in flight, so it is redelivered after the visibility timeout.\nfunc (d *Deliverer) Deliver(ctx context.Context, ev Event) error {\n\tresp, err := d.client.Do(d.request(ctx, ev))\n\tif err != nil {\n\t\treturn fmt.Errorf(\"deliver %s: %w\", ev.ID, err)\n\t}\n\t_, _ = io.Copy(io.Discard, resp.Body)\n\tif cerr := resp.Body.Close(); cerr != nil {\n\t\td.log.Warn(\"closing response body\", \"event\", ev.ID, \"err\", cerr)\n\t}\n\tif resp.StatusCode >= 300 {\n\t\treturn fmt.Errorf(\"deliver %s: status %d\", ev.ID, resp.StatusCode)\n\t}\n\treturn nil\n}")
    s.bash("golangci-lint run ./... && go test ./internal/deliver/...", "ok  \tgithub.com/tallyhq/webhookd/internal/deliver\t0.031s")
    s.bash("git push origin fix/retry-close", "remote: Permission to tallyhq/webhookd.git denied to raj-old-laptop.\nfatal: unable to access 'https://github.com/tallyhq/webhookd.git/': The requested URL returned error: 403", 128)
    s.bash("git remote -v", "origin\thttps://raj-old-laptop:ghp_R8kLw2VqT5nX9mZc3HjY7bPd4sFa6Ge1Uo0i@github.com/tallyhq/webhookd.git (fetch)\norigin\thttps://raj-old-laptop:ghp_R8kLw2VqT5nX9mZc3HjY7bPd4sFa6Ge1Uo0i@github.com/tallyhq/webhookd.git (push)")
    s.say("The remote URL embeds a personal access token for an old `raj-old-laptop` account, which no longer has write access. I'd take the token out of the URL and let the gh credential helper supply your current login \u2014 and you may want to revoke that old token.")
    s.user("Ugh. Yes, do that.")
    s.bash("git remote set-url origin https://github.com/tallyhq/webhookd.git && gh auth setup-git && git push origin fix/retry-close", "remote: \nremote: Create a pull request for 'fix/retry-close' on GitHub by visiting:\nremote:      https://github.com/tallyhq/webhookd/pull/new/fix/retry-close\nremote: \nTo https://github.com/tallyhq/webhookd.git\n * [new branch]      fix/retry-close -> fix/retry-close")
    s.keep("fact", "1.61.0")
    s.keep("error", "errcheck", id="e1")
    s.keep("fix", "retry.go", fixes="e1")
    s.keep("decision", "SQS redelivery")
    s.keep("error", "returned error: 403", id="e2")
    s.keep("fix", "git remote set-url", fixes="e2")
    s.never("ghp_R8kLw2VqT5nX9mZc3HjY7bPd4sFa6Ge1Uo0i")
    return s


@session
def bazel_search_tour():
    s = Session("bazel-search-tour", "/home/yuki/mono", start="2025-09-17T09:10:00Z")
    s.command("/clear", "")
    s.user("I'm new to the monorepo. How does //services/search get built, and where does its version string come from?")
    s.bash("bazel --version", "bazel 7.3.1")
    s.read("services/search/BUILD.bazel", "load(\"@rules_go//go:def.bzl\", \"go_binary\", \"go_library\")\n\ngo_library(\n    name = \"search_lib\",\n    srcs = [\"main.go\"],\n    importpath = \"github.com/yukimono/mono/services/search\",\n    deps = [\n        \"//services/search/index\",\n        \"//services/search/ranking\",\n        \"//services/search/server\",\n    ],\n)\n\ngo_binary(\n    name = \"search\",\n    embed = [\":search_lib\"],\n    x_defs = {\"main.version\": \"{STABLE_GIT_VERSION}\"},\n)")
    s.read("CONTRIBUTING.md", "## Build\n\nWe always run `bazel run //:gazelle` after adding Go imports.\nWe decided in 2023 to keep one BUILD.bazel per Go package.\nRemote cache: see docs/remote-cache.md.")
    s.grep("stamp = 1", "services/search", "")
    s.say("Here's how it fits together:\n\n1. This module uses **rules_go**; `go_binary` embeds `search_lib`, and the BUILD files are generated by gazelle (CONTRIBUTING.md asks you to run it after adding imports).\n2. The version comes from `x_defs`: `main.version` is set to `{STABLE_GIT_VERSION}`, which the workspace status script fills in from `git describe`.\n3. There's no `stamp = 1` on the binary, so only builds run with `--stamp` get the real version; plain local builds show the placeholder.")
    s.say("Let's add `stamp = 1` to the `search` binary so every build carries the git version.")
    s.user("Not now, I'm only reading code today. Does the ranking package have tests?")
    s.bash("bazel test //services/search/...", "INFO: Analyzed 7 targets (0 packages loaded, 0 targets configured).\nINFO: Found 4 targets and 3 test targets...\nINFO: Elapsed time: 6.412s, Critical Path: 5.87s\nINFO: 12 processes: 3 internal, 9 linux-sandbox.\nINFO: Build completed successfully, 12 total actions\n//services/search/index:index_test                                       PASSED in 0.8s\n//services/search/ranking:ranking_test                                   PASSED in 1.9s\n//services/search/server:server_test                                     PASSED in 1.1s\n\nExecuted 3 out of 3 tests: 3 tests pass.")
    s.say("Yes: `//services/search/ranking:ranking_test` covers the BM25 scorer and the tie-breaking rules, and all three test targets pass. You could consider a benchmark target for the scorer at some point, but nothing requires it.")
    s.user("Thanks, that's what I needed.")
    s.keep("fact", "bazel 7.3.1")
    return s
