# The sessions of the capture fixture (read by gen.py). Each function writes
# one transcript and says, with keep(), what a careful engineer would note in
# a notebook afterwards: type, a key phrase the note must contain, and for a
# fix the error it fixes. never() lists strings no memory may contain.


@session
def go_failing_test():
    s = Session("go-failing-test", "/home/dana/src/billing", branch="fix/duration-parse")
    s.user("TestParseDuration started failing on CI after Ivo's change to the duration parser. Can you take a look?")
    s.say("I'll run the test package first to see the failure.")
    s.bash("go test ./internal/timeutil/", "--- FAIL: TestParseDuration (0.00s)\n    --- FAIL: TestParseDuration/hours_and_minutes (0.00s)\n        duration_test.go:42: ParseDuration(\"1h30m\") = 1h0m0s, want 1h30m0s\nFAIL\nFAIL\tgithub.com/acme/billing/internal/timeutil\t0.004s\nFAIL", 1)
    s.think("The parser probably returns after the first unit. Let me read it. We decided earlier? No.")
    s.read("internal/timeutil/duration.go", "package timeutil\n\n// ParseDuration parses \"1h30m\"-style durations with d (days) support.\nfunc ParseDuration(s string) (time.Duration, error) {\n\tvar total time.Duration\n\tfor len(s) > 0 {\n\t\tn, unit, rest, err := nextUnit(s)\n\t\tif err != nil {\n\t\t\treturn 0, err\n\t\t}\n\t\ttotal = n * unit\n\t\treturn total, nil\n\t}\n\treturn total, nil\n}")
    s.bash("grep -rn \"time.ParseDuration\" internal/", "", 1)
    s.say("Found it: the loop assigns `total = n * unit` and returns after the first unit, so `1h30m` stops at `1h`. It should accumulate every unit and only return after the loop.")
    s.edit("internal/timeutil/duration.go", "\t\ttotal = n * unit\n\t\treturn total, nil\n\t}", "\t\ttotal += n * unit\n\t\ts = rest\n\t}")
    s.bash("go test ./internal/timeutil/", "ok  \tgithub.com/acme/billing/internal/timeutil\t0.003s")
    s.say("The test passes now. The parser accumulates every unit instead of returning after the first one.")
    s.user("Nice. Add a case for days too. And fyi, we always write table-driven tests in this repo, with t.Run per case.")
    s.edit("internal/timeutil/duration_test.go", "\t\t{\"hours and minutes\", \"1h30m\", 90 * time.Minute},", "\t\t{\"hours and minutes\", \"1h30m\", 90 * time.Minute},\n\t\t{\"days\", \"2d3h\", 51 * time.Hour},")
    s.bash("go test ./...", "ok  \tgithub.com/acme/billing/internal/invoice\t0.021s\nok  \tgithub.com/acme/billing/internal/timeutil\t0.003s\n?   \tgithub.com/acme/billing/cmd/billing\t[no test files]")
    s.say("Added a `days` case to the table; the whole module passes.")
    s.keep("error", "TestParseDuration", id="e1")
    s.keep("fix", "duration.go", fixes="e1")
    s.keep("preference", "table-driven tests")
    return s


@session
def python_keyerror():
    s = Session("python-keyerror", "/home/sam/work/shopfront", start="2025-06-03T14:02:11Z")
    s.user("The /api/orders endpoint returns 500 when the user isn't logged in. Can you fix it?")
    s.bash("python --version", "Python 3.11.6")
    s.bash("pytest tests/test_orders.py -x -q", "F\n=================================== FAILURES ===================================\n_____________________________ test_anonymous_order _____________________________\n\nclient = <FlaskClient <Flask 'shopfront'>>\n\n    def test_anonymous_order(client):\n>       resp = client.post(\"/api/orders\", json={\"sku\": \"A-100\", \"qty\": 1})\n\ntests/test_orders.py:31: \n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \nshopfront/orders.py:18: in create_order\n    user_id = session[\"user_id\"]\nE   KeyError: 'user_id'\n=========================== short test summary info ============================\nFAILED tests/test_orders.py::test_anonymous_order - KeyError: 'user_id'\n1 failed, 4 passed in 0.41s", 1)
    s.read("shopfront/orders.py", "from flask import Blueprint, jsonify, request, session\n\nbp = Blueprint(\"orders\", __name__)\n\n\n@bp.post(\"/api/orders\")\ndef create_order():\n    data = request.get_json()\n    user_id = session[\"user_id\"]\n    order = Order.create(user_id=user_id, sku=data[\"sku\"], qty=data[\"qty\"])\n    return jsonify(order.to_dict()), 201")
    s.say("`session[\"user_id\"]` raises KeyError for anonymous users, which Flask turns into a 500. Two options: redirect to the login page, or return 401 JSON. What does the client expect?")
    s.user("Let's return 401 rather than redirecting to login, because the mobile app can't follow redirects on API calls.")
    s.edit("shopfront/orders.py", "    user_id = session[\"user_id\"]", "    user_id = session.get(\"user_id\")\n    if user_id is None:\n        return jsonify(error=\"login required\"), 401")
    s.bash("pytest tests/test_orders.py -x -q", "F\n=================================== FAILURES ===================================\n_____________________________ test_anonymous_order _____________________________\n>       assert resp.status_code == 302\nE       assert 401 == 302\nFAILED tests/test_orders.py::test_anonymous_order - assert 401 == 302\n1 failed, 4 passed in 0.38s", 1)
    s.say("The old test expected the redirect (302). Updating it to the agreed 401.")
    s.edit("tests/test_orders.py", "    assert resp.status_code == 302", "    assert resp.status_code == 401\n    assert resp.get_json() == {\"error\": \"login required\"}")
    s.bash("pytest -q", ".........\n9 passed in 0.77s")
    s.say("All 9 tests pass. Anonymous requests to /api/orders now get a 401 with a JSON error instead of a 500.")
    s.keep("error", "KeyError: 'user_id'", id="e1")
    s.keep("fix", "session.get", fixes="e1")
    s.keep("decision", "401")
    s.keep("fact", "Python 3.11.6")
    return s


@session
def ts_refactor():
    s = Session("ts-refactor", "/Users/mei/code/dashboard", branch="refactor/api-client", start="2025-06-05T10:20:00Z", version="2.0.14")
    s.user("Refactor src/api/client.ts from callbacks to async/await. Keep the public function names.")
    s.read("src/api/client.ts", "import axios from 'axios';\n\nexport function getUser(id: string, cb: (err: Error | null, user?: User) => void) {\n  axios.get(`/api/users/${id}`).then(r => cb(null, r.data)).catch(cb);\n}\n\nexport function listProjects(cb: (err: Error | null, p?: Project[]) => void) {\n  axios.get('/api/projects').then(r => cb(null, r.data)).catch(cb);\n}")
    s.say("Let's go with a class-based ApiClient that holds the base URL and wraps each call — it would make auth headers easier to add later.")
    s.user("No, keep it as plain functions. We don't use classes for stateless modules here.")
    s.say("Understood, plain functions. I'll use native fetch instead of axios, because the app already targets Node 20 and modern browsers, and it removes a dependency.")
    s.edit("src/api/client.ts", "import axios from 'axios';", "const BASE = import.meta.env.VITE_API_URL ?? '';")
    s.edit("src/api/client.ts", "export function getUser(id: string, cb: (err: Error | null, user?: User) => void) {\n  axios.get(`/api/users/${id}`).then(r => cb(null, r.data)).catch(cb);\n}", "export async function getUser(id: string): Promise<User> {\n  const res = await fetch(`${BASE}/api/users/${id}`);\n  return res.data as User;\n}")
    s.bash("npx tsc --noEmit", "src/api/client.ts(5,14): error TS2339: Property 'data' does not exist on type 'Response'.", 2)
    s.say("fetch's Response has no `data`; the body has to be read with `res.json()`. I'll also check `res.ok`.")
    s.edit("src/api/client.ts", "  return res.data as User;", "  if (!res.ok) throw new Error(`getUser ${id}: ${res.status}`);\n  return (await res.json()) as User;")
    s.bash("npx tsc --noEmit", "")
    s.bash("npm test -- --run", "\n > dashboard@0.4.2 test\n > vitest --run\n\n \u2713 src/api/client.test.ts (6 tests) 41ms\n \u2713 src/components/UserCard.test.tsx (3 tests) 88ms\n\n Test Files  2 passed (2)\n      Tests  9 passed (9)")
    s.user("Good. Also don't add default exports anywhere; we use named exports everywhere.")
    s.say("Noted — everything in client.ts is a named export already.")
    s.keep("decision", "plain functions")
    s.keep("decision", "native fetch")
    s.keep("error", "TS2339", id="e1")
    s.keep("fix", "res.json()", fixes="e1")
    s.keep("preference", "named exports")
    s.keep("preference", "classes for stateless modules")
    return s


@session
def npm_peer_conflict():
    s = Session("npm-peer-conflict", "/home/ana/projects/storefront-web", start="2025-06-09T16:45:30Z")
    s.user("Add react-router-dom v6 so we can do nested routes.")
    s.bash("node --version && npm --version", "v20.11.1\n10.2.4")
    s.bash("npm install react-router-dom@6", "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! \nnpm ERR! While resolving: storefront-web@1.3.0\nnpm ERR! Found: react@17.0.2\nnpm ERR! node_modules/react\nnpm ERR!   react@\"^17.0.2\" from the root project\nnpm ERR! \nnpm ERR! Could not resolve dependency:\nnpm ERR! peer react@\">=18\" from react-router-dom@6.23.1\nnpm ERR! node_modules/react-router-dom\nnpm ERR!   react-router-dom@\"6\" from the root project\nnpm ERR! \nnpm ERR! Fix the upstream dependency conflict, or retry\nnpm ERR! this command with --force or --legacy-peer-deps\nnpm ERR! to accept an incorrect (and potentially broken) dependency resolution.", 1)
    s.say("react-router-dom 6.23 needs React 18 as a peer, and the project is on React 17.0.2. We could pass --legacy-peer-deps, but that just hides a real incompatibility.")
    s.bash("npm ls react", "storefront-web@1.3.0 /home/ana/projects/storefront-web\n\u251c\u2500\u252c @testing-library/react@12.1.5\n\u2502 \u2514\u2500\u2500 react@17.0.2 deduped\n\u2514\u2500\u2500 react@17.0.2")
    s.say("Nothing else pins React 17 except @testing-library/react 12. Instead of forcing the install with --legacy-peer-deps, we'll upgrade to React 18.2 since nothing else holds us on 17; @testing-library/react needs to move to 14 with it.")
    s.bash("npm install react@18.2.0 react-dom@18.2.0 @testing-library/react@14", "\nadded 3 packages, changed 4 packages, and audited 1287 packages in 9s\n\n214 packages are looking for funding\n  run `npm fund` for details\n\nfound 0 vulnerabilities")
    s.bash("npm install react-router-dom@6", "\nadded 3 packages, and audited 1290 packages in 3s\n\nfound 0 vulnerabilities")
    s.edit("src/index.tsx", "import ReactDOM from 'react-dom';\n\nReactDOM.render(<App />, document.getElementById('root'));", "import { createRoot } from 'react-dom/client';\n\ncreateRoot(document.getElementById('root')!).render(<App />);")
    s.bash("npm test -- --watchAll=false", "PASS src/App.test.tsx\nPASS src/components/Cart.test.tsx\n\nTest Suites: 2 passed, 2 total\nTests:       11 passed, 11 total")
    s.say("React is on 18.2.0, react-router-dom 6.23.1 is installed, and index.tsx uses createRoot. Tests pass.")
    s.keep("error", "ERESOLVE", id="e1")
    s.keep("fix", "react@18.2.0", fixes="e1")
    s.keep("decision", "React 18")
    s.keep("fact", "v20.11.1")
    return s


@session
def go_service_setup():
    s = Session("go-service-setup", "/home/lee/src/ledger", start="2025-06-10T08:03:44Z")
    s.user("Set up a new Go service skeleton for the ledger: chi for routing, Postgres through pgx. We'll use pgx directly rather than GORM because we want explicit SQL and no reflection magic.")
    s.bash("go version", "go version go1.22.3 linux/amd64")
    s.bash("go mod init github.com/acme/ledger", "go: creating new go.mod: module github.com/acme/ledger")
    s.bash("go get github.com/go-chi/chi/v5@v5.0.12 github.com/jackc/pgx/v5@v5.5.5", "go: downloading github.com/go-chi/chi/v5 v5.0.12\ngo: downloading github.com/jackc/pgx/v5 v5.5.5\ngo: added github.com/go-chi/chi/v5 v5.0.12\ngo: added github.com/jackc/pgx/v5 v5.5.5\ngo: added github.com/jackc/pgpassfile v1.0.0")
    s.todo(["Create cmd/ledger/main.go", "Create internal/config", "Add docker-compose for Postgres"])
    s.write("internal/config/config.go", "package config\n\nimport \"os\"\n\ntype Config struct {\n\tAddr        string\n\tDatabaseURL string\n}\n\nfunc FromEnv() Config {\n\treturn Config{Addr: getenv(\"LEDGER_ADDR\", \":8081\"), DatabaseURL: os.Getenv(\"DATABASE_URL\")}\n}")
    s.write("cmd/ledger/main.go", "package main\n\nimport (\n\t\"log\"\n\t\"net/http\"\n\n\t\"github.com/acme/ledger/internal/config\"\n\t\"github.com/go-chi/chi/v5\"\n)\n\nfunc main() {\n\tr := chi.NewRouter()\n\tlog.Fatal(http.ListenAndServe(\":8081\", r))\n}")
    s.bash("go build ./...", "# github.com/acme/ledger/cmd/ledger\ncmd/ledger/main.go:7:2: \"github.com/acme/ledger/internal/config\" imported and not used", 1)
    s.say("main.go hard-codes the address instead of using the config package. I'll load the config and use cfg.Addr.")
    s.edit("cmd/ledger/main.go", "\tr := chi.NewRouter()\n\tlog.Fatal(http.ListenAndServe(\":8081\", r))", "\tcfg := config.FromEnv()\n\tr := chi.NewRouter()\n\tlog.Fatal(http.ListenAndServe(cfg.Addr, r))")
    s.bash("go build ./... && go vet ./...", "")
    s.say("It builds. The service listens on port 8081 by default (LEDGER_ADDR overrides it), since 8080 is taken by the gateway in your compose file.")
    s.user("Good. Never commit .env files; config comes from environment variables only. Add .env to .gitignore.")
    s.bash("echo '.env' >> .gitignore && git add .gitignore go.mod go.sum cmd internal && git commit -m 'ledger: service skeleton'", "[main (root-commit) 4f2a9c1] ledger: service skeleton\n 5 files changed, 61 insertions(+)")
    s.keep("decision", "pgx directly")
    s.keep("fact", "go1.22.3")
    s.keep("fact", "v5.0.12")
    s.keep("fact", "v5.5.5")
    s.keep("fact", "8081")
    s.keep("error", "imported and not used", id="e1")
    s.keep("fix", "main.go", fixes="e1")
    s.keep("preference", "Never commit .env")
    return s


@session
def rust_borrow():
    s = Session("rust-borrow", "/home/kofi/dev/cartd", branch="feature/discounts", start="2025-06-11T19:30:00Z")
    s.user("Implement apply_discount on Cart so it marks discounted items. cargo build is failing with a borrow error after my first attempt.")
    s.bash("cargo build", "   Compiling cartd v0.3.0 (/home/kofi/dev/cartd)\nerror[E0502]: cannot borrow `self.items` as mutable because it is also borrowed as immutable\n  --> src/cart.rs:27:9\n   |\n24 |         let first = self.items.iter().find(|i| i.sku == sku);\n   |                     ---------- immutable borrow occurs here\n...\n27 |         self.items.push(discounted);\n   |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^ mutable borrow occurs here\n28 |         first.map(|i| i.price)\n   |         ----- immutable borrow later used here\n\nFor more information about this error, try `rustc --explain E0502`.\nerror: could not compile `cartd` (lib) due to 1 previous error", 101)
    s.read("src/cart.rs", "impl Cart {\n    pub fn apply_discount(&mut self, sku: &str, pct: u8) -> Option<u64> {\n        let first = self.items.iter().find(|i| i.sku == sku);\n        let discounted = Item::discounted(first?, pct);\n\n        self.items.push(discounted);\n        first.map(|i| i.price)\n    }\n}")
    s.say("`first` borrows `self.items` immutably and is still used after the push. Copy the price out before mutating, and drop the reference.")
    s.edit("src/cart.rs", "        let first = self.items.iter().find(|i| i.sku == sku);\n        let discounted = Item::discounted(first?, pct);\n\n        self.items.push(discounted);\n        first.map(|i| i.price)", "        let first = self.items.iter().find(|i| i.sku == sku)?;\n        let price = first.price;\n        let discounted = Item::discounted(first, pct);\n        self.items.push(discounted);\n        Some(price)")
    s.bash("cargo build", "   Compiling cartd v0.3.0 (/home/kofi/dev/cartd)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1.84s")
    s.bash("cargo test", "running 7 tests\ntest cart::tests::empty_cart_total ... ok\ntest cart::tests::discount_marks_item ... ok\ntest tests::checkout_persists ... FAILED\n\nfailures:\n\n---- tests::checkout_persists stdout ----\nthread 'tests::checkout_persists' panicked at tests/integration.rs:18:10:\ncalled `Result::unwrap()` on an `Err` value: Connection refused (os error 111)\n\nfailures:\n    tests::checkout_persists\n\ntest result: FAILED. 6 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.02s", 101)
    s.say("The unit tests pass. checkout_persists is an integration test that needs the local Postgres, which isn't running here.")
    s.user("Yeah that one needs the db container, ignore it for now. Let's commit.")
    s.bash("git add src/cart.rs && git commit -m 'cart: apply_discount'", "[feature/discounts 9b1c0de] cart: apply_discount\n 1 file changed, 12 insertions(+), 3 deletions(-)")
    s.keep("error", "E0502", id="e1")
    s.keep("fix", "cart.rs", fixes="e1")
    s.keep("error", "Connection refused")
    return s


@session
def explain_only():
    s = Session("explain-only", "/home/dana/src/billing", start="2025-06-12T11:00:00Z")
    s.command("/clear", "")
    s.user("What does reconcileInvoices in internal/invoice/reconcile.go do? I'm new to this code.")
    s.read("internal/invoice/reconcile.go", "// reconcileInvoices matches payments to open invoices.\n// We decided to cache the FX rates here because the rates API is slow (see #212).\nfunc reconcileInvoices(ctx context.Context, inv []Invoice, pays []Payment) []Match {\n\t...\n}")
    s.say("It walks the open invoices and matches each payment to an invoice by customer and amount, converting currencies with cached FX rates. The comment at the top says \"We decided to cache the FX rates here because the rates API is slow\" — that refers to issue #212. Unmatched payments are returned separately so the finance team can review them.")
    s.bash("git log --oneline -5 -- internal/invoice/reconcile.go", "a41f3e2 invoice: tolerate rounding in reconcile\n77c02b1 invoice: cache FX rates\n1d9e5aa invoice: reconcile payments")
    s.bash("ls internal/invoice", "invoice.go\ninvoice_test.go\nreconcile.go\nreconcile_test.go")
    s.user("ok thanks, that helps. Does it always run nightly?")
    s.say("Yes, the cron in deploy/cron.yaml runs it nightly at 02:00 UTC.")
    s.user("Thanks!")
    return s


@session
def secrets_in_output():
    s = Session("secrets-in-output", "/home/ops/deploy-tools", start="2025-06-13T07:55:12Z")
    s.user("The deploy script can't upload to S3 anymore, it says access denied. Can you check what's going on?")
    s.bash("cat .env", "AWS_ACCESS_KEY_ID=AKIAZ4XQ7LMN2PRS5TUV\nAWS_SECRET_ACCESS_KEY=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\nAWS_REGION=eu-west-1\nDATABASE_URL=postgres://deploy:Tr0ub4dor-and-3@db.internal:5432/releases\nSLACK_WEBHOOK=https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/xoXo1q2w3e4r5t6y7u8i9o0p")
    s.bash("aws sts get-caller-identity", "{\n    \"UserId\": \"AIDAZ4XQ7LMN2PRS5TUVW\",\n    \"Account\": \"419283746501\",\n    \"Arn\": \"arn:aws:iam::419283746501:user/ci-deployer\"\n}")
    s.bash("aws s3 ls s3://acme-release-artifacts/", "An error occurred (AccessDenied) when calling the ListObjectsV2 operation: User: arn:aws:iam::419283746501:user/ci-deployer is not authorized to perform: s3:ListBucket on resource: \"arn:aws:s3:::acme-release-artifacts\" because no identity-based policy allows the s3:ListBucket action", 254)
    s.read("infra/iam/ci-deployer-policy.json", "{\n  \"Version\": \"2012-10-17\",\n  \"Statement\": [\n    {\n      \"Effect\": \"Allow\",\n      \"Action\": [\"s3:PutObject\", \"s3:GetObject\"],\n      \"Resource\": \"arn:aws:s3:::acme-release-artifacts/*\"\n    }\n  ]\n}")
    s.say("The policy grants object actions on `acme-release-artifacts/*` but not s3:ListBucket on the bucket itself, which the sync step in deploy.sh needs. I'll add a statement for the bucket ARN.")
    s.edit("infra/iam/ci-deployer-policy.json", "      \"Resource\": \"arn:aws:s3:::acme-release-artifacts/*\"\n    }", "      \"Resource\": \"arn:aws:s3:::acme-release-artifacts/*\"\n    },\n    {\n      \"Effect\": \"Allow\",\n      \"Action\": [\"s3:ListBucket\"],\n      \"Resource\": \"arn:aws:s3:::acme-release-artifacts\"\n    }")
    s.bash("aws iam put-user-policy --user-name ci-deployer --policy-name ci-deployer --policy-document file://infra/iam/ci-deployer-policy.json", "")
    s.bash("aws s3 ls s3://acme-release-artifacts/", "                           PRE releases/\n2025-06-12 18:22:41   48213311 ledger-1.8.2.tar.gz")
    s.say("Listing works now; the deploy script's `aws s3 sync` should succeed. By the way, .env contains a live secret key and a database password — make sure it stays out of git.")
    s.keep("error", "AccessDenied", id="e1")
    s.keep("fix", "s3:ListBucket", fixes="e1")
    s.never("wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8nR2mTkd")
    s.never("Tr0ub4dor-and-3")
    s.never("AKIAZ4XQ7LMN2PRS5TUV")
    return s


@session
def inventory_day1():
    s = Session("inventory-day1-setup", "/home/rui/work/inventory", start="2025-06-16T09:00:00Z")
    s.user("New project: an inventory API. FastAPI + SQLAlchemy 2 on Postgres. Set up the skeleton with a health endpoint and an Item model.")
    s.bash("python3 --version && pip --version", "Python 3.12.3\npip 24.0 from /home/rui/work/inventory/.venv/lib/python3.12/site-packages/pip (python 3.12)")
    s.bash("pip install 'fastapi==0.111.0' 'sqlalchemy==2.0.30' 'psycopg2-binary==2.9.9' alembic uvicorn", "Successfully installed alembic-1.13.1 fastapi-0.111.0 psycopg2-binary-2.9.9 sqlalchemy-2.0.30 starlette-0.37.2 uvicorn-0.29.0")
    s.say("For schema changes I'd suggest Alembic rather than `Base.metadata.create_all()`, because create_all can't alter existing tables and we'll need reviewable migrations once there's data.")
    s.user("Agreed, we'll use Alembic for all schema changes. Also: we use ruff for linting and formatting, not black.")
    s.write("app/models.py", "from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column\n\n\nclass Base(DeclarativeBase):\n    pass\n\n\nclass Item(Base):\n    __tablename__ = \"items\"\n    id: Mapped[int] = mapped_column(primary_key=True)\n    name: Mapped[str]\n    description: Mapped[str]\n    quantity: Mapped[int] = mapped_column(default=0)")
    s.write("app/main.py", "from fastapi import FastAPI\n\napp = FastAPI(title=\"inventory\")\n\n\n@app.get(\"/health\")\ndef health():\n    return {\"status\": \"ok\"}")
    s.bash("alembic init migrations", "Creating directory /home/rui/work/inventory/migrations ...  done\nGenerating /home/rui/work/inventory/alembic.ini ...  done\nPlease edit configuration/connection/logging settings in '/home/rui/work/inventory/alembic.ini' before proceeding.")
    s.bash("ruff check . && ruff format --check .", "All checks passed!\n4 files already formatted")
    s.say("Skeleton is in place: app/main.py with /health, app/models.py with Item, and Alembic initialised under migrations/. The database URL still needs to be set in alembic.ini.")
    s.keep("fact", "fastapi==0.111.0")
    s.keep("fact", "sqlalchemy==2.0.30")
    s.keep("fact", "Python 3.12.3")
    s.keep("decision", "Alembic")
    s.keep("preference", "ruff")
    return s


@session
def inventory_day2():
    s = Session("inventory-day2-migrations", "/home/rui/work/inventory", start="2025-06-17T10:12:00Z")
    s.user("Let's create the first migration for Item and run it against the local db (docker compose is up).")
    s.bash("alembic revision --autogenerate -m 'create items'", "Traceback (most recent call last):\n  File \"/home/rui/work/inventory/.venv/lib/python3.12/site-packages/sqlalchemy/engine/base.py\", line 145, in __init__\n    self._dbapi_connection = engine.raw_connection()\n  ...\nsqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at \"localhost\" (127.0.0.1), port 5433 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?", 1)
    s.bash("docker compose ps", "NAME              IMAGE         COMMAND                  SERVICE   CREATED        STATUS        PORTS\ninventory-db-1    postgres:16   \"docker-entrypoint.s…\"   db        2 hours ago    Up 2 hours    0.0.0.0:5432->5432/tcp")
    s.say("The container publishes Postgres on 5432, but alembic.ini points at port 5433. I'll fix the URL.")
    s.edit("alembic.ini", "sqlalchemy.url = postgresql://inventory:inventory@localhost:5433/inventory", "sqlalchemy.url = postgresql://inventory:inventory@localhost:5432/inventory")
    s.bash("alembic revision --autogenerate -m 'create items'", "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\nINFO  [alembic.autogenerate.compare] Detected added table 'items'\n  Generating /home/rui/work/inventory/migrations/versions/3f2a1b7c9d10_create_items.py ...  done")
    s.bash("alembic upgrade head", "INFO  [alembic.runtime.migration] Running upgrade  -> 3f2a1b7c9d10, create items")
    s.user("Now add POST /items and a test for it.")
    s.edit("app/main.py", "@app.get(\"/health\")", "@app.post(\"/items\", status_code=201)\ndef create_item(item: ItemIn, db: Session = Depends(get_db)):\n    row = Item(**item.model_dump())\n    db.add(row)\n    db.commit()\n    return {\"id\": row.id}\n\n\n@app.get(\"/health\")")
    s.write("tests/test_items.py", "def test_create_item(client):\n    resp = client.post(\"/items\", json={\"name\": \"bolt\", \"quantity\": 10})\n    assert resp.status_code == 201\n")
    s.bash("pytest -q", "F\n=================================== FAILURES ===================================\n_______________________________ test_create_item _______________________________\n\n    def test_create_item(client):\n        resp = client.post(\"/items\", json={\"name\": \"bolt\", \"quantity\": 10})\n>       assert resp.status_code == 201\nE       assert 422 == 201\nE        +  where 422 = <Response [422 Unprocessable Entity]>.status_code\n\ntests/test_items.py:3: AssertionError\nFAILED tests/test_items.py::test_create_item - assert 422 == 201\n1 failed in 0.52s", 1)
    s.say("422 means validation failed: `ItemIn.description` is a required str, and the test doesn't send one. A description shouldn't be mandatory, so I'll make it optional in the schema and the model.")
    s.edit("app/schemas.py", "    description: str", "    description: str | None = None")
    s.edit("app/models.py", "    description: Mapped[str]", "    description: Mapped[str | None]")
    s.bash("pytest -q", "..\n2 passed in 0.48s")
    s.keep("error", "port 5433 failed: Connection refused", id="e1")
    s.keep("fix", "5432", fixes="e1")
    s.keep("error", "assert 422 == 201", id="e2")
    s.keep("fix", "description", fixes="e2")
    s.keep("fact", "5432")
    return s


@session
def inventory_day3():
    s = Session("inventory-day3-pagination", "/home/rui/work/inventory", branch="feat/pagination", start="2025-06-19T13:40:00Z")
    s.summary("Inventory API: Alembic migrations and POST /items", "inventory-day2-migrations-40")
    s.user("GET /items is slow now that we have 2M rows. The frontend uses ?page=N.")
    s.bash("curl -s -o /dev/null -w '%{time_total}\\n' 'localhost:8000/items?page=40000'", "3.812204")
    s.say("Deep pages are slow because OFFSET 2,000,000 makes Postgres scan and discard every earlier row. Let's go with Redis for caching the list pages — the list doesn't change often.")
    s.user("No Redis please, we don't want to run another service for this. What about the pagination itself?")
    s.say("Then instead of offset pagination we'll use cursor (keyset) pagination on (created_at, id), since it stays fast at any depth and the frontend only ever needs next/previous.")
    s.user("Yes, do that. Keep ?page working for a release so the old frontend doesn't break.")
    s.edit("app/main.py", "@app.get(\"/items\")\ndef list_items(page: int = 1, db: Session = Depends(get_db)):\n    return db.query(Item).offset((page - 1) * 50).limit(50).all()", "@app.get(\"/items\")\ndef list_items(cursor: str | None = None, page: int | None = None, db: Session = Depends(get_db)):\n    if page is not None:\n        return legacy_page(db, page)\n    return keyset_page(db, decode_cursor(cursor))")
    s.bash("alembic revision -m 'items created_at id index'", "  Generating /home/rui/work/inventory/migrations/versions/8c1d2e3f4a5b_items_created_at_id_index.py ...  done")
    s.system("Context left until auto-compact: 12%")
    s.bash("alembic upgrade head && pytest -q", "INFO  [alembic.runtime.migration] Running upgrade 3f2a1b7c9d10 -> 8c1d2e3f4a5b, items created_at id index\n.....\n5 passed in 0.91s")
    s.bash("curl -s -o /dev/null -w '%{time_total}\\n' 'localhost:8000/items?cursor=MjAyNS0wNi0xOVQxMzo0MDowMFp8MTk5OTk1MA'", "0.004518")
    s.say("Keyset pages come back in ~5 ms at any depth (was 3.8 s at page 40000). ?page still works through legacy_page.")
    s.keep("decision", "another service")
    s.keep("decision", "cursor")
    return s


@session
def docker_go_toolchain():
    s = Session("docker-go-toolchain", "/home/lee/src/ledger", start="2025-06-20T15:05:00Z")
    s.user("docker build fails in CI since we bumped go.mod. Fix the Dockerfile. Please always pin image tags; never use latest.")
    s.bash("docker build -t ledger:dev .", "#8 [build 4/6] RUN go mod download\n#8 0.412 go: go.mod requires go >= 1.22.3 (running go 1.21.6; GOTOOLCHAIN=local)\n#8 ERROR: process \"/bin/sh -c go mod download\" did not complete successfully: exit code: 1\n------\n > [build 4/6] RUN go mod download:\n0.412 go: go.mod requires go >= 1.22.3 (running go 1.21.6; GOTOOLCHAIN=local)\n------\nERROR: failed to solve: process \"/bin/sh -c go mod download\" did not complete successfully: exit code: 1", 1)
    s.read("Dockerfile", "FROM golang:1.21-alpine AS build\nWORKDIR /src\nCOPY go.mod go.sum ./\nRUN go mod download\nCOPY . .\nRUN CGO_ENABLED=0 go build -o /ledger ./cmd/ledger\n\nFROM alpine:3.19\nCOPY --from=build /ledger /ledger\nENTRYPOINT [\"/ledger\"]")
    s.say("The build stage uses golang:1.21-alpine but go.mod now requires 1.22.3. I'll bump the builder image. For the final stage we'll use gcr.io/distroless/static-debian12 instead of alpine, because the binary is static and distroless has no shell or package manager, so a smaller attack surface.")
    s.edit("Dockerfile", "FROM golang:1.21-alpine AS build", "FROM golang:1.22.3-alpine3.19 AS build")
    s.edit("Dockerfile", "FROM alpine:3.19\nCOPY --from=build /ledger /ledger", "FROM gcr.io/distroless/static-debian12:nonroot\nCOPY --from=build /ledger /ledger")
    s.bash("docker build -t ledger:dev .", "#12 exporting to image\n#12 exporting layers 0.3s done\n#12 writing image sha256:5be0c3e1f7a2d9b84c61e07d2f3a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a done\n#12 naming to docker.io/library/ledger:dev done")
    s.bash("docker run --rm ledger:dev --version", "ledger 0.2.0 (go1.22.3)")
    s.say("The image builds with golang:1.22.3-alpine3.19 and runs on distroless static-debian12:nonroot.")
    s.keep("error", "go.mod requires go >= 1.22.3", id="e1")
    s.keep("fix", "golang:1.22.3-alpine3.19", fixes="e1")
    s.keep("decision", "distroless")
    s.keep("preference", "pin image tags")
    return s


@session
def jest_timezone():
    s = Session("jest-timezone", "/Users/mei/code/dashboard", branch="main", start="2025-06-23T08:30:00Z", version="2.0.14")
    s.user("date.test.ts fails on my machine but passes in CI. Weird.")
    s.bash("npx vitest --run src/utils/date.test.ts", " FAIL  src/utils/date.test.ts > formatRelative > shows 'yesterday' for a date one calendar day back\nAssertionError: expected '2 days ago' to be 'yesterday' // Object.is equality\n\n- Expected\n+ Received\n\n- yesterday\n+ 2 days ago\n\n \u276f src/utils/date.test.ts:18:42\n\n Test Files  1 failed (1)\n      Tests  1 failed | 7 passed (8)", 1)
    s.say("Let's try freezing the clock with vi.useFakeTimers() so Date.now is stable.")
    s.edit("src/utils/date.test.ts", "describe('formatRelative', () => {", "describe('formatRelative', () => {\n  beforeEach(() => { vi.useFakeTimers(); vi.setSystemTime(new Date('2025-06-10T23:30:00Z')); });")
    s.bash("npx vitest --run src/utils/date.test.ts", " FAIL  src/utils/date.test.ts > formatRelative > shows 'yesterday' for a date one calendar day back\nAssertionError: expected '2 days ago' to be 'yesterday' // Object.is equality\n\n Test Files  1 failed (1)\n      Tests  1 failed | 7 passed (8)", 1)
    s.say("That didn't help, so I'll revert it. The real cause is the timezone: formatRelative compares calendar days in local time, your machine is in Asia/Tokyo and CI runs in UTC, so 23:30Z is already the next day here. The tests should run in a fixed zone: I'll set TZ=UTC in vitest's globalSetup.")
    s.edit("src/utils/date.test.ts", "  beforeEach(() => { vi.useFakeTimers(); vi.setSystemTime(new Date('2025-06-10T23:30:00Z')); });\n", "")
    s.write("vitest.global-setup.ts", "export default function setup() {\n  process.env.TZ = 'UTC';\n}")
    s.edit("vitest.config.ts", "  test: {\n    environment: 'jsdom',", "  test: {\n    environment: 'jsdom',\n    globalSetup: './vitest.global-setup.ts',")
    s.bash("npx vitest --run src/utils/date.test.ts", " \u2713 src/utils/date.test.ts (8 tests) 12ms\n\n Test Files  1 passed (1)\n      Tests  8 passed (8)")
    s.bash("npm run lint", "\n> dashboard@0.4.2 lint\n> eslint src\n\n/Users/mei/code/dashboard/src/components/Chart.tsx\n  12:10  error  'useMemo' is defined but never used  @typescript-eslint/no-unused-vars\n  31:7   error  'legacyColors' is assigned a value but never used  @typescript-eslint/no-unused-vars\n\n\u2716 2 problems (2 errors, 0 warnings)", 1)
    s.user("The lint stuff in Chart.tsx is Tom's branch, leave it. Thanks for the date fix!")
    s.keep("error", "formatRelative", id="e1")
    s.keep("fix", "TZ", fixes="e1")
    return s


@session
def go_refactor_clock():
    s = Session("go-refactor-clock", "/home/dana/src/billing", branch="refactor/clock", start="2025-06-24T09:45:00Z")
    s.user("Invoices use time.Now() all over internal/invoice, which makes the due-date tests flaky. Should we inject a clock? Interface or func type?")
    s.grep("time\\.Now\\(\\)", "internal/invoice", "internal/invoice/invoice.go:41:\tinv.IssuedAt = time.Now()\ninternal/invoice/invoice.go:58:\tif time.Now().After(inv.DueAt) {\ninternal/invoice/reminder.go:22:\tnext := time.Now().Add(72 * time.Hour)")
    s.say("Both work. benbjohnson/clock's README says \"we chose an interface because mocks need Sleep and Timer too\", but we only need Now. I'd use a func type `type Clock func() time.Time`: one method, no mocks needed, and tests pass a closure.")
    s.user("Fine, go with the func type. Name the field `now` on Service.")
    s.edit("internal/invoice/invoice.go", "type Service struct {\n\tstore Store\n}", "type Service struct {\n\tstore Store\n\tnow   func() time.Time\n}")
    s.edit("internal/invoice/invoice.go", "\tinv.IssuedAt = time.Now()", "\tinv.IssuedAt = s.now()")
    s.edit("internal/invoice/invoice.go", "\tif time.Now().After(inv.DueAt) {", "\tif s.now().After(inv.DueAt) {")
    s.bash("go vet ./internal/invoice/", "# github.com/acme/billing/internal/invoice\ninternal/invoice/reminder.go:22:10: undefined: now", 1)
    s.say("reminder.go is a method on Reminder, not Service; it needs its own `now` field rather than the bare name.")
    s.edit("internal/invoice/reminder.go", "\tnext := now().Add(72 * time.Hour)", "\tnext := r.now().Add(72 * time.Hour)")
    s.edit("internal/invoice/reminder.go", "type Reminder struct {\n\tmailer Mailer\n}", "type Reminder struct {\n\tmailer Mailer\n\tnow    func() time.Time\n}")
    s.bash("go vet ./internal/invoice/ && go test ./internal/invoice/", "ok  \tgithub.com/acme/billing/internal/invoice\t0.018s")
    s.bash("go test -count=20 -run TestDueDate ./internal/invoice/", "ok  \tgithub.com/acme/billing/internal/invoice\t0.152s")
    s.say("The invoice package now takes its clock from a `now func() time.Time` field on Service and Reminder; TestDueDate passed 20 runs in a row.")
    s.keep("decision", "func type")
    s.keep("error", "undefined: now", id="e1")
    s.keep("fix", "reminder.go", fixes="e1")
    return s


@session
def pip_conflict():
    s = Session("pip-conflict", "/home/priya/analytics/etl", start="2025-06-25T17:10:00Z")
    s.user("Upgrade pandas to 2.2 in the ETL job.")
    s.edit("requirements.txt", "pandas==1.5.3", "pandas==2.2.0")
    s.bash("pip install -r requirements.txt", "Collecting pandas==2.2.0\n  Using cached pandas-2.2.0-cp311-cp311-manylinux_2_17_x86_64.whl (13.0 MB)\nINFO: pip is looking at multiple versions of pandas to determine which version is compatible with other requirements. This could take a while.\nERROR: Cannot install -r requirements.txt (line 3) and numpy==1.24.0 because these package versions have conflicting dependencies.\n\nThe conflict is caused by:\n    The user requested numpy==1.24.0\n    pandas 2.2.0 depends on numpy<2 and >=1.23.2; python_version == \"3.11\"\n    pyarrow 15.0.0 depends on numpy<2 and >=1.25\n\nTo fix this you could try to:\n1. loosen the range of package versions you've specified\n2. remove package versions to allow pip attempt to solve the dependency conflict\n\nERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts", 1)
    s.say("pyarrow 15 (pulled in for parquet) needs numpy >= 1.25 and the file pins numpy==1.24.0. Bumping numpy to 1.26.4, the last 1.x release, satisfies both.")
    s.edit("requirements.txt", "numpy==1.24.0", "numpy==1.26.4")
    s.bash("pip install -r requirements.txt", "Successfully installed numpy-1.26.4 pandas-2.2.0 pyarrow-15.0.0")
    s.bash("python -m pytest -q tests/", "..........F.\n=================================== FAILURES ===================================\n___________________________ test_daily_rollup ___________________________\n    df = df.append(extra, ignore_index=True)\nE   AttributeError: 'DataFrame' object has no attribute 'append'\n\netl/rollup.py:44: AttributeError\nFAILED tests/test_rollup.py::test_daily_rollup - AttributeError: 'DataFrame' object has no attribute 'append'\n1 failed, 11 passed in 2.31s", 1)
    s.say("DataFrame.append was removed in pandas 2.0; pd.concat is the replacement.")
    s.edit("etl/rollup.py", "    df = df.append(extra, ignore_index=True)", "    df = pd.concat([df, extra], ignore_index=True)")
    s.bash("python -m pytest -q tests/", "............\n12 passed in 2.18s")
    s.user("Great. From now on we pin exact versions in requirements.txt and compile them with pip-tools, since loose pins broke the last deploy.")
    s.say("Makes sense. I'll add a requirements.in next time we touch dependencies.")
    s.keep("error", "conflicting dependencies", id="e1")
    s.keep("fix", "numpy==1.26.4", fixes="e1")
    s.keep("error", "has no attribute 'append'", id="e2")
    s.keep("fix", "pd.concat", fixes="e2")
    s.keep("fact", "pandas==2.2.0")
    s.keep("fact", "numpy==1.26.4")
    s.keep("decision", "pip-tools")
    return s
