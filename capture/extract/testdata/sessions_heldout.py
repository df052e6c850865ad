# The held-out sessions of the capture fixture (read by gen.py heldout; written
# to heldout/). They were written on 2026-11-28, two days after the rules, by
# someone who had read the package doc's list of cues and part of sessions.py
# but not the rules' code, in other words and other toolchains than
# sessions.py, and labelled before the rules ran on them. TestExtractionHeldOut reports their precision and
# recall apart from the fixture the rules were built on: that figure is the
# one an unseen transcript should expect. Do not tune rules to these and
# keep calling them held out; write new ones instead.


@session
def cargo_missing_crate():
    s = Session("cargo-missing-crate", "/home/ines/code/feedsync", branch="feat/async-fetch", start="2025-07-01T08:12:00Z")
    s.user("I started moving the fetcher to async but now nothing compiles. Can you sort it out?")
    s.bash("cargo check", "    Checking feedsync v0.2.1 (/home/ines/code/feedsync)\nerror[E0433]: failed to resolve: use of undeclared crate or module `tokio`\n --> src/fetch.rs:3:5\n  |\n3 | use tokio::time::timeout;\n  |     ^^^^^ use of undeclared crate or module `tokio`\n\nerror[E0752]: `main` function is not allowed to be `async`\n --> src/main.rs:8:1\n  |\n8 | async fn main() {\n  | ^^^^^^^^^^^^^^^ `main` function is not allowed to be `async`\n\nSome errors have detailed explanations: E0433, E0752.\nerror: could not compile `feedsync` (bin \"feedsync\") due to 2 previous errors", 101)
    s.read("Cargo.toml", "[package]\nname = \"feedsync\"\nversion = \"0.2.1\"\nedition = \"2021\"\n\n[dependencies]\nfeed-rs = \"1.4\"\nreqwest = { version = \"0.12\", features = [\"json\"] }\nserde = { version = \"1\", features = [\"derive\"] }")
    s.say("tokio isn't a dependency yet, and an async main needs the `#[tokio::main]` attribute. I'll add tokio with the runtime and macros features.")
    s.edit("Cargo.toml", "serde = { version = \"1\", features = [\"derive\"] }", "serde = { version = \"1\", features = [\"derive\"] }\ntokio = { version = \"1.38\", features = [\"macros\", \"rt-multi-thread\", \"time\"] }")
    s.edit("src/main.rs", "async fn main() {", "#[tokio::main]\nasync fn main() {")
    s.bash("cargo check", "    Updating crates.io index\n     Locking 12 packages to latest compatible versions\n    Checking tokio v1.38.0\n    Checking feedsync v0.2.1 (/home/ines/code/feedsync)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 6.02s")
    s.say("It compiles now.")
    s.user("thanks. one thing: keep [dependencies] sorted alphabetically, I diff Cargo.toml a lot")
    s.say("It is sorted: feed-rs, reqwest, serde, tokio.")
    s.keep("error", "E0433", id="e1")
    s.keep("fix", "tokio", fixes="e1")
    s.keep("fact", "tokio")
    s.keep("preference", "sorted alphabetically")
    return s


@session
def maven_npe():
    s = Session("maven-npe", "/home/oskar/work/orders-service", branch="bugfix/ORD-412", start="2025-07-02T13:40:10Z", version="2.0.31")
    s.user("ORD-412: OrderServiceTest.cancelsUnpaidOrder blows up with an NPE since yesterday's merge. Please fix.")
    s.bash("mvn -q test -Dtest=OrderServiceTest", "[ERROR] Tests run: 6, Failures: 0, Errors: 1, Skipped: 0, Time elapsed: 0.412 s <<< FAILURE! -- in com.acme.orders.OrderServiceTest\n[ERROR] com.acme.orders.OrderServiceTest.cancelsUnpaidOrder -- Time elapsed: 0.018 s <<< ERROR!\njava.lang.NullPointerException: Cannot invoke \"com.acme.orders.Payment.status()\" because the return value of \"com.acme.orders.Order.payment()\" is null\n\tat com.acme.orders.OrderService.cancel(OrderService.java:57)\n\tat com.acme.orders.OrderServiceTest.cancelsUnpaidOrder(OrderServiceTest.java:88)\n[ERROR] Errors: \n[ERROR]   OrderServiceTest.cancelsUnpaidOrder:88 » NullPointer Cannot invoke \"com.acme.orders.Payment.status()\"", 1)
    s.read("src/main/java/com/acme/orders/OrderService.java", "    public void cancel(Order order) {\n        if (order.payment().status() == PaymentStatus.CAPTURED) {\n            refunds.issue(order);\n        }\n        order.setState(OrderState.CANCELLED);\n        repo.save(order);\n    }")
    s.say("An unpaid order has no payment at all, so `order.payment()` is null. Only a captured payment needs a refund, so I'll guard on the payment being present.")
    s.edit("src/main/java/com/acme/orders/OrderService.java", "        if (order.payment().status() == PaymentStatus.CAPTURED) {", "        Payment payment = order.payment();\n        if (payment != null && payment.status() == PaymentStatus.CAPTURED) {")
    s.bash("mvn -q test -Dtest=OrderServiceTest", "[INFO] Tests run: 6, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.398 s -- in com.acme.orders.OrderServiceTest")
    s.say("All six tests pass. I'd suggest we could make `payment()` return an `Optional<Payment>` later, but that touches twenty call sites, so I left it.")
    s.user("Fine for now. Btw we're on JUnit 5 only in this repo, please don't ever add JUnit 4 imports in tests.")
    s.say("Understood; the test already uses org.junit.jupiter.")
    s.keep("error", "NullPointerException", id="e1")
    s.keep("fix", "OrderService.java", fixes="e1")
    s.keep("preference", "JUnit 4")
    return s


@session
def k8s_explain():
    s = Session("k8s-explain", "/home/priya/infra/platform", start="2025-07-03T10:00:00Z")
    s.user("Why does our api Deployment have both a readinessProbe and a livenessProbe? Aren't they the same thing?")
    s.read("k8s/api/deployment.yaml", "        readinessProbe:\n          httpGet: {path: /ready, port: 8080}\n          periodSeconds: 5\n        livenessProbe:\n          httpGet: {path: /healthz, port: 8080}\n          initialDelaySeconds: 30\n          failureThreshold: 3")
    s.say("They answer different questions. The readiness probe decides whether the pod gets traffic: while /ready fails, the Service stops routing to it, but the container keeps running. The liveness probe decides whether the container is restarted: after three failed /healthz checks the kubelet kills it. So a pod that is warming its cache is not ready but alive. The 30 s initial delay keeps the liveness probe from killing a slow start.")
    s.user("Makes sense. What happens if /ready always fails?")
    s.say("The pod never receives traffic and a rollout waiting on it stalls until its progress deadline (600 s by default), then the Deployment reports ProgressDeadlineExceeded. Nothing restarts it, because only liveness restarts.")
    s.user("ok got it, thanks")
    return s


@session
def pnpm_switch():
    s = Session("pnpm-switch", "/Users/tomas/dev/webshop", start="2025-07-04T15:21:00Z")
    s.user("install deps please, I just cloned")
    s.bash("npm install", "npm ERR! code ETIMEDOUT\nnpm ERR! syscall connect\nnpm ERR! errno ETIMEDOUT\nnpm ERR! network request to https://registry.npmjs.org/@remix-run%2fnode failed, reason: connect ETIMEDOUT 104.16.3.35:443\nnpm ERR! network This is a problem related to network connectivity.", 1)
    s.say("That was a network timeout talking to the registry. Retrying.")
    s.bash("npm install", "added 812 packages, and audited 813 packages in 41s\n\n164 packages are looking for funding\n  run `npm fund` for details\n\nfound 0 vulnerabilities")
    s.user("Hm, actually the monorepo split is coming next sprint. We're moving to pnpm workspaces from now on, because npm's workspace hoisting keeps breaking the remix build. Can you convert it?")
    s.bash("corepack enable && pnpm --version", "9.4.0")
    s.write("pnpm-workspace.yaml", "packages:\n  - 'apps/*'\n  - 'packages/*'\n")
    s.bash("rm -rf node_modules package-lock.json && pnpm install", "Scope: all 4 workspace projects\nLockfile is up to date, resolution step is skipped\nPackages: +807\nProgress: resolved 807, reused 0, downloaded 807, added 807, done\nDone in 38.2s")
    s.say("Converted: pnpm-workspace.yaml lists apps/* and packages/*, package-lock.json is gone and pnpm-lock.yaml replaces it.")
    s.keep("decision", "pnpm")
    s.keep("fact", "9.4.0")
    return s


@session
def postgres_pin():
    s = Session("postgres-pin", "/home/mara/src/metrics-api", start="2025-07-07T09:30:00Z")
    s.user("Should we upgrade the dev database to Postgres 16 while we're at it?")
    s.bash("psql --version", "psql (PostgreSQL) 15.6 (Debian 15.6-1.pgdg120+2)")
    s.say("You're on 15.6. 16 is stable, but I'd check the extensions first: timescaledb's packages for 16 were only published with 2.13.")
    s.user("Right, our timescale is 2.11 and ops won't bump it this quarter. Let's stay on Postgres 15 for now, since the extension we depend on doesn't build against 16 yet.")
    s.bash("alembic upgrade head", "INFO  [alembic.runtime.migration] Running upgrade 3b1f -> 9c2e, add users\nTraceback (most recent call last):\n  ...\nsqlalchemy.exc.ProgrammingError: (psycopg2.errors.DuplicateTable) relation \"users\" already exists\n[SQL: CREATE TABLE users (id SERIAL NOT NULL, email VARCHAR(255) NOT NULL, PRIMARY KEY (id))]", 1)
    s.say("Migration 9c2e creates `users`, but the table already exists in the dev database — it was created by hand before the migration was written. I'll make the migration skip creating it when it's there.")
    s.read("migrations/versions/9c2e_add_users.py", "def upgrade():\n    op.create_table(\n        \"users\",\n        sa.Column(\"id\", sa.Integer, primary_key=True),\n        sa.Column(\"email\", sa.String(255), nullable=False),\n    )")
    s.edit("migrations/versions/9c2e_add_users.py", "def upgrade():\n    op.create_table(", "def upgrade():\n    if sa.inspect(op.get_bind()).has_table(\"users\"):\n        return\n    op.create_table(")
    s.bash("alembic upgrade head", "INFO  [alembic.runtime.migration] Running upgrade 3b1f -> 9c2e, add users\nINFO  [alembic.runtime.migration] Running upgrade 9c2e -> a07d, add api keys")
    s.say("Both migrations ran.")
    s.keep("decision", "Postgres 15")
    s.keep("fact", "15.6")
    s.keep("error", "DuplicateTable", id="e1")
    s.keep("fix", "9c2e_add_users.py", fixes="e1")
    return s


@session
def go_vet_printf():
    s = Session("go-vet-printf", "/home/yuki/src/relay", start="2025-07-08T17:05:00Z")
    s.user("CI's vet step is red on my branch, can you fix whatever it complains about")
    s.bash("go vet ./...", "# github.com/yuki/relay/internal/proxy\ninternal/proxy/conn.go:112:24: fmt.Errorf format %d has arg addr of wrong type string", 1)
    s.read("internal/proxy/conn.go", "\tif err != nil {\n\t\treturn fmt.Errorf(\"dial upstream %d: %w\", addr, err)\n\t}")
    s.edit("internal/proxy/conn.go", "\t\treturn fmt.Errorf(\"dial upstream %d: %w\", addr, err)", "\t\treturn fmt.Errorf(\"dial upstream %s: %w\", addr, err)")
    s.bash("go vet ./... && go test ./...", "ok  \tgithub.com/yuki/relay/internal/proxy\t0.311s\nok  \tgithub.com/yuki/relay/internal/route\t0.042s")
    s.say("Fixed: the address is a string, so the verb is %s. vet and the tests pass.")
    s.user("ty. also while you're in there - no naked returns in this codebase please, I saw one in route.go")
    s.read("internal/route/match.go", "func split(p string) (head, tail string) {\n\thead, tail, _ = strings.Cut(strings.TrimPrefix(p, \"/\"), \"/\")\n\treturn\n}")
    s.edit("internal/route/match.go", "\thead, tail, _ = strings.Cut(strings.TrimPrefix(p, \"/\"), \"/\")\n\treturn", "\thead, tail, _ = strings.Cut(strings.TrimPrefix(p, \"/\"), \"/\")\n\treturn head, tail")
    s.bash("go test ./...", "ok  \tgithub.com/yuki/relay/internal/proxy\t0.298s\nok  \tgithub.com/yuki/relay/internal/route\t0.040s")
    s.keep("error", "wrong type string", id="e1")
    s.keep("fix", "conn.go", fixes="e1")
    s.keep("preference", "naked returns")
    return s


@session
def docker_gosum():
    s = Session("docker-gosum", "/home/ana/src/thumbs", start="2025-07-09T11:11:00Z")
    s.user("docker build fails for the thumbs service, no idea why, it worked on my laptop")
    s.bash("docker build -t thumbs .", "#7 [builder 3/6] COPY go.mod go.sum ./\n#7 ERROR: failed to calculate checksum of ref 1c9d3e: \"/go.sum\": not found\n------\n > [builder 3/6] COPY go.mod go.sum ./:\n------\nDockerfile:5\n--------------------\n   3 |     WORKDIR /src\n   4 |     \n   5 | >>> COPY go.mod go.sum ./\n--------------------\nERROR: failed to solve: failed to compute cache key: failed to calculate checksum of ref 1c9d3e: \"/go.sum\": not found", 1)
    s.bash("git status --short && ls", "?? go.sum\nDockerfile\ncmd\ngo.mod\ngo.sum\ninternal")
    s.say("go.sum exists locally but was never committed, and the build context comes from a clean checkout in CI. Running go mod tidy to make sure it is complete, then committing it.")
    s.bash("go mod tidy && git add go.sum && git commit -m 'add go.sum'", "[main 5e71a20] add go.sum\n 1 file changed, 38 insertions(+)")
    s.bash("docker build -t thumbs .", "#7 [builder 3/6] COPY go.mod go.sum ./\n#7 DONE 0.0s\n#10 [builder 6/6] RUN go build -o /out/thumbs ./cmd/thumbs\n#10 DONE 21.4s\n#12 exporting to image\n#12 naming to docker.io/library/thumbs:latest done")
    s.say("The image builds. The cause was an untracked go.sum.")
    s.keep("error", "go.sum\": not found", id="e1")
    s.keep("fix", "go.sum", fixes="e1")
    return s


@session
def logger_rejected():
    s = Session("logger-rejected", "/home/felix/src/scheduler", start="2025-07-10T14:00:00Z")
    s.user("The logs are a mess, half the packages use log.Printf. Make logging consistent.")
    s.bash("grep -rln 'log.Printf' --include=*.go . | wc -l", "14")
    s.say("I'll switch everything to zap, because it's the fastest structured logger and gives us leveled output.")
    s.user("No — stick with log/slog from the standard library. We don't want a third-party dependency just for logging.")
    s.say("OK, slog it is. I'll add a package-level logger in internal/logx and replace the log.Printf calls.")
    s.write("internal/logx/logx.go", "package logx\n\nimport (\n\t\"log/slog\"\n\t\"os\"\n)\n\nvar L = slog.New(slog.NewJSONHandler(os.Stderr, nil))")
    s.bash("go build ./...", "")
    s.say("Added internal/logx with a JSON slog handler. Replacing the 14 call sites next.")
    s.keep("decision", "slog")
    return s


@session
def env_port():
    s = Session("env-port", "/home/carl/projects/booking", start="2025-07-11T09:45:00Z")
    s.user("The frontend can't reach the API locally. FYI the API runs on port 8082 in dev now, not 3000 — we moved it when the admin app took 3000.")
    s.read("web/.env.development", "VITE_API_URL=http://localhost:3000")
    s.edit("web/.env.development", "VITE_API_URL=http://localhost:3000", "VITE_API_URL=http://localhost:8082")
    s.bash("curl -s localhost:8082/api/health", "{\"status\":\"ok\",\"version\":\"1.14.0\"}")
    s.say("The dev env file pointed at port 3000. It points at 8082 now and the health check answers.")
    s.user("great. from now on, whenever you add an env var, also add it to .env.example with a dummy value")
    s.say("Will do.")
    s.keep("fact", "8082")
    s.keep("preference", ".env.example")
    return s


@session
def pytest_fixture_missing():
    s = Session("pytest-fixture-missing", "/home/lena/work/reports", start="2025-07-14T16:20:00Z")
    s.user("tests/test_export.py errors out after I moved the db fixtures, help")
    s.bash("python -m pytest tests/test_export.py -q", "E\n==================================== ERRORS ====================================\n_________________ ERROR at setup of test_export_csv_has_header _________________\nfile /home/lena/work/reports/tests/test_export.py, line 12\n  def test_export_csv_has_header(db_session, tmp_path):\nE       fixture 'db_session' not found\n>       available fixtures: cache, capfd, capsys, caplog, doctest_namespace, monkeypatch, pytestconfig, record_property, tmp_path, tmp_path_factory\n>       use 'pytest --fixtures [testpath]' for help on them.\n=========================== short test summary info ============================\nERROR tests/test_export.py::test_export_csv_has_header\n1 error in 0.08s", 1)
    s.bash("ls tests tests/fixtures", "tests:\n__init__.py\nfixtures\ntest_export.py\ntest_totals.py\n\ntests/fixtures:\n__init__.py\ndb.py")
    s.say("The fixtures now live in tests/fixtures/db.py, which pytest doesn't collect fixtures from on its own. The usual place is a conftest.py; I'll register the module as a plugin there.")
    s.write("tests/conftest.py", "pytest_plugins = [\"tests.fixtures.db\"]\n")
    s.bash("python -m pytest -q", "........\n8 passed in 0.61s")
    s.say("All 8 tests pass. Maybe we should also consider pytest-xdist at some point, the suite will grow.")
    s.keep("error", "fixture 'db_session' not found", id="e1")
    s.keep("fix", "conftest.py", fixes="e1")
    return s


@session
def secrets_stripe():
    s = Session("secrets-stripe", "/home/nora/src/payments", start="2025-07-15T12:00:00Z")
    s.user("webhook signature verification fails locally, check the config")
    s.bash("grep -v '^#' .env.local", "STRIPE_SECRET_KEY=sk_live_51Hx9QeLkT3v8Rb2mN0pZ4wYcD7sFgH1jKlMnOpQrStUvWxYz\nSTRIPE_WEBHOOK_SECRET=whsec_8f2b1c9d7e6a5f4b3c2d1e0f9a8b7c6d\nDATABASE_URL=postgresql://payments:Qm7!vR2#pL9x@localhost:5433/payments")
    s.bash("stripe listen --print-secret", "whsec_0a1b2c3d4e5f60718293a4b5c6d7e8f9")
    s.say("The webhook secret in .env.local is not the one `stripe listen` signs with locally; each `stripe listen` session has its own. I'll put the CLI's secret in .env.local.")
    s.edit(".env.local", "STRIPE_WEBHOOK_SECRET=whsec_8f2b1c9d7e6a5f4b3c2d1e0f9a8b7c6d", "STRIPE_WEBHOOK_SECRET=whsec_0a1b2c3d4e5f60718293a4b5c6d7e8f9")
    s.bash("npm test -- webhooks", "PASS test/webhooks.test.ts\n  \u2713 accepts a signed event (21 ms)\n  \u2713 rejects a bad signature (4 ms)\n\nTests:       2 passed, 2 total")
    s.say("The webhook tests pass. Note the .env.local holds a live secret key (sk_live_…); a test key would be safer for local work.")
    s.never("sk_live_51Hx9QeLkT3v8Rb2mN0pZ4wYcD7sFgH1jKlMnOpQrStUvWxYz")
    s.never("whsec_8f2b1c9d7e6a5f4b3c2d1e0f9a8b7c6d")
    s.never("whsec_0a1b2c3d4e5f60718293a4b5c6d7e8f9")
    s.never("Qm7!vR2#pL9x")
    return s
