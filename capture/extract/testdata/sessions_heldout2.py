# Second held-out set of capture sessions (read by gen.py: python3 gen.py heldout2).
#
# Written BLIND on 2026-11-28 by a helper session that did not read the
# extraction rules (capture/extract/*.go), the first held-out set, or its
# outputs; only gen.py and sessions.py were read, for the API and the labelling
# conventions. Labels are what a careful engineer would note from each
# transcript alone.
#
# Do NOT tune the rules to these sessions, and do not edit them to match what
# the rules produce. Once they have been used to measure, they stop being blind:
# write a new blind set (sessions_heldout3.py, ...) instead.


@session
def kotlin_ktor_client():
    s = Session("kotlin-ktor-client", "/home/oskar/code/fleet-tracker", branch="FLT-482-geofence-alerts", start="2025-08-04T08:41:17Z")
    s.user("FLT-482: when a truck leaves its geofence the alert endpoint has to call the notifier service over HTTP. Wire up a Ktor client in the :server module. And please prefix commit messages with the ticket id, like `FLT-482: ...`, our changelog script groups by it.")
    s.bash("./gradlew --version", "\n------------------------------------------------------------\nGradle 8.7\n------------------------------------------------------------\n\nBuild time:   2024-03-22 15:52:46 UTC\nRevision:     650af14d7653aa949fce5e886e685efc9cf97c10\n\nKotlin:       1.9.22\nGroovy:       3.0.17\nAnt:          Apache Ant(TM) version 1.10.13 compiled on January 4 2023\nJVM:          17.0.10 (Eclipse Adoptium 17.0.10+7)\nOS:           Linux 6.5.0-27-generic amd64\n")
    s.write("server/src/main/kotlin/dev/fleet/alerts/NotifierClient.kt", "package dev.fleet.alerts\n\nimport io.ktor.client.HttpClient\nimport io.ktor.client.engine.cio.CIO\nimport io.ktor.client.plugins.contentnegotiation.ContentNegotiation\nimport io.ktor.client.request.post\nimport io.ktor.client.request.setBody\nimport io.ktor.serialization.kotlinx.json.json\n\nclass NotifierClient(private val baseUrl: String) {\n    private val http = HttpClient(CIO) {\n        install(ContentNegotiation) { json() }\n    }\n\n    suspend fun geofenceExit(alert: GeofenceAlert) {\n        http.post(\"$baseUrl/v1/alerts\") { setBody(alert) }\n    }\n}\n")
    s.bash("./gradlew :server:compileKotlin", "> Task :server:compileKotlin FAILED\ne: file:///home/oskar/code/fleet-tracker/server/src/main/kotlin/dev/fleet/alerts/NotifierClient.kt:3:18 Unresolved reference: client\ne: file:///home/oskar/code/fleet-tracker/server/src/main/kotlin/dev/fleet/alerts/NotifierClient.kt:4:18 Unresolved reference: client\ne: file:///home/oskar/code/fleet-tracker/server/src/main/kotlin/dev/fleet/alerts/NotifierClient.kt:11:16 Unresolved reference: HttpClient\ne: file:///home/oskar/code/fleet-tracker/server/src/main/kotlin/dev/fleet/alerts/NotifierClient.kt:11:27 Unresolved reference: CIO\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':server:compileKotlin'.\n> A failure occurred while executing org.jetbrains.kotlin.compilerRunner.GradleCompilerRunnerWithWorkers$GradleKotlinCompilerWorkAction\n   > Compilation error. See log for more details\n\n* Try:\n> Run with --stacktrace option to get the stack trace.\n\nBUILD FAILED in 7s\n4 actionable tasks: 1 executed, 3 up-to-date", 1)
    s.read("gradle/libs.versions.toml", "[versions]\nkotlin = \"1.9.23\"\nktor = \"2.3.10\"\n\n[libraries]\nktor-server-core = { module = \"io.ktor:ktor-server-core\", version.ref = \"ktor\" }\nktor-server-netty = { module = \"io.ktor:ktor-server-netty\", version.ref = \"ktor\" }\nktor-serialization-json = { module = \"io.ktor:ktor-serialization-kotlinx-json\", version.ref = \"ktor\" }")
    s.say("Only the Ktor *server* artifacts are on the classpath; `io.ktor.client.*` lives in separate modules. I'll add client-core, the CIO engine and client content negotiation to the catalog and to :server's dependencies.")
    s.edit("gradle/libs.versions.toml", "ktor-serialization-json = { module = \"io.ktor:ktor-serialization-kotlinx-json\", version.ref = \"ktor\" }", "ktor-serialization-json = { module = \"io.ktor:ktor-serialization-kotlinx-json\", version.ref = \"ktor\" }\nktor-client-core = { module = \"io.ktor:ktor-client-core\", version.ref = \"ktor\" }\nktor-client-cio = { module = \"io.ktor:ktor-client-cio\", version.ref = \"ktor\" }\nktor-client-content-negotiation = { module = \"io.ktor:ktor-client-content-negotiation\", version.ref = \"ktor\" }")
    s.edit("server/build.gradle.kts", "    implementation(libs.ktor.serialization.json)", "    implementation(libs.ktor.serialization.json)\n    implementation(libs.ktor.client.core)\n    implementation(libs.ktor.client.cio)\n    implementation(libs.ktor.client.content.negotiation)")
    s.bash("./gradlew :server:test", "> Task :server:compileKotlin\n> Task :server:compileTestKotlin\n> Task :server:test\n\nBUILD SUCCESSFUL in 21s\n9 actionable tasks: 4 executed, 5 up-to-date")
    s.say("`:server` compiles with the client modules and its tests pass.")
    s.bash("git add gradle/libs.versions.toml server && git commit -m 'FLT-482: add Ktor client for the notifier service'", "[FLT-482-geofence-alerts 2d7e91a] FLT-482: add Ktor client for the notifier service\n 3 files changed, 24 insertions(+)")
    s.keep("fact", "Gradle 8.7")
    s.keep("fact", "17.0.10")
    s.keep("error", "Unresolved reference: HttpClient", id="e1")
    s.keep("fix", "build.gradle.kts", fixes="e1")
    s.keep("preference", "prefix commit messages")
    return s


@session
def c_cmake_libm():
    s = Session("c-cmake-libm", "/home/ines/src/wavetool", start="2025-08-05T13:02:40Z")
    s.user("wavetool doesn't link on the new Debian build box. It was fine on my Mac.")
    s.bash("cmake --version", "cmake version 3.28.3\n\nCMake suite maintained and supported by Kitware (kitware.com/cmake).")
    s.bash("cmake --build build", "[ 20%] Building C object CMakeFiles/wavetool.dir/src/main.c.o\n[ 40%] Building C object CMakeFiles/wavetool.dir/src/resample.c.o\n[ 60%] Building C object CMakeFiles/wavetool.dir/src/wav.c.o\n[ 80%] Building C object CMakeFiles/wavetool.dir/src/window.c.o\n[100%] Linking C executable wavetool\n/usr/bin/ld: CMakeFiles/wavetool.dir/src/window.c.o: in function `hann_window':\nwindow.c:(.text+0x5c): undefined reference to `cos'\n/usr/bin/ld: CMakeFiles/wavetool.dir/src/resample.c.o: in function `sinc':\nresample.c:(.text+0x31): undefined reference to `sin'\ncollect2: error: ld returned 1 exit status\ngmake[2]: *** [CMakeFiles/wavetool.dir/build.make:145: wavetool] Error 1\ngmake[1]: *** [CMakeFiles/Makefile2:83: CMakeFiles/wavetool.dir/all] Error 2\ngmake: *** [Makefile:91: all] Error 2", 2)
    s.read("CMakeLists.txt", "cmake_minimum_required(VERSION 3.20)\nproject(wavetool C)\n\nset(CMAKE_C_STANDARD 11)\n\nadd_executable(wavetool\n  src/main.c\n  src/resample.c\n  src/wav.c\n  src/window.c)\n\nenable_testing()\nadd_test(NAME roundtrip COMMAND wavetool --selftest)")
    s.say("On glibc, `sin`/`cos` live in libm, which isn't linked by default; on macOS they're part of libSystem, so it never showed up there. I'll look libm up and link it when it exists, so the Mac build is unaffected.")
    s.edit("CMakeLists.txt", "  src/window.c)\n", "  src/window.c)\n\nfind_library(MATH_LIBRARY m)\nif(MATH_LIBRARY)\n  target_link_libraries(wavetool PRIVATE ${MATH_LIBRARY})\nendif()\n")
    s.bash("cmake --build build && ctest --test-dir build", "-- Configuring done (0.1s)\n-- Generating done (0.0s)\n-- Build files have been written to: /home/ines/src/wavetool/build\n[ 20%] Linking C executable wavetool\n[100%] Built target wavetool\nInternal ctest changing into directory: /home/ines/src/wavetool/build\nTest project /home/ines/src/wavetool/build\n    Start 1: roundtrip\n1/1 Test #1: roundtrip ........................   Passed    0.04 sec\n\n100% tests passed, 0 tests failed out of 1\n\nTotal Test time (real) =   0.05 sec")
    s.say("It links and the roundtrip test passes. You might want to turn on -Wall -Wextra at some point too; one option would be a WAVETOOL_STRICT option in CMakeLists.txt.")
    s.user("Not now. The fixture generator in tools/ has its own little Makefile, can you check it still works?")
    s.bash("make -C tools fixtures", "make: Entering directory '/home/ines/src/wavetool/tools'\nMakefile:6: *** missing separator.  Stop.\nmake: Leaving directory '/home/ines/src/wavetool/tools'", 2)
    s.read("tools/Makefile", "CC ?= cc\nCFLAGS ?= -O2\n\nfixtures: gen_sine\n\n    ./gen_sine 440 fixtures/a440.wav\n    ./gen_sine 1000 fixtures/k1.wav\n\ngen_sine: gen_sine.c\n    $(CC) $(CFLAGS) -o $@ $< -lm")
    s.user("Ugh, someone's editor. Tabs, not spaces, in Makefiles, obviously. Please keep it that way in every Makefile here.")
    s.edit("tools/Makefile", "    ./gen_sine 440 fixtures/a440.wav\n    ./gen_sine 1000 fixtures/k1.wav\n\ngen_sine: gen_sine.c\n    $(CC) $(CFLAGS) -o $@ $< -lm", "\t./gen_sine 440 fixtures/a440.wav\n\t./gen_sine 1000 fixtures/k1.wav\n\ngen_sine: gen_sine.c\n\t$(CC) $(CFLAGS) -o $@ $< -lm")
    s.bash("make -C tools fixtures", "make: Entering directory '/home/ines/src/wavetool/tools'\ncc -O2 -o gen_sine gen_sine.c -lm\n./gen_sine 440 fixtures/a440.wav\n./gen_sine 1000 fixtures/k1.wav\nmake: Leaving directory '/home/ines/src/wavetool/tools'")
    s.say("The recipe lines in tools/Makefile were indented with spaces; they're tabs now and both fixtures regenerate.")
    s.keep("fact", "3.28.3")
    s.keep("error", "undefined reference", id="e1")
    s.keep("fix", "CMakeLists.txt", fixes="e1")
    s.keep("error", "missing separator", id="e2")
    s.keep("fix", "Makefile", fixes="e2")
    s.keep("preference", "Tabs, not spaces")
    return s


@session
def rails_flipper():
    s = Session("rails-flipper", "/home/tomasz/apps/pantry", branch="feature/bulk-discounts", start="2025-08-06T10:15:03Z")
    s.user("The BulkDiscount specs blew up after I merged main into my branch. Can you have a look?")
    s.bash("ruby -v", "ruby 3.3.0 (2023-12-25 revision 5124f9ac75) [x86_64-linux]")
    s.bash("bundle exec rspec spec/models/bulk_discount_spec.rb", "Run options: exclude {:slow=>true}\n\nBulkDiscount\n  #apply\n    discounts orders over the threshold (FAILED - 1)\n    leaves small orders alone\n\nFailures:\n\n  1) BulkDiscount#apply discounts orders over the threshold\n     Failure/Error: return order unless order.line_items.sum(&:subtotal) >= threshold_cents\n\n     NoMethodError:\n       undefined method `subtotal' for an instance of LineItem\n     # ./app/models/bulk_discount.rb:14:in `block in apply'\n     # ./app/models/bulk_discount.rb:14:in `apply'\n     # ./spec/models/bulk_discount_spec.rb:22:in `block (3 levels) in <top (required)>'\n\nFinished in 0.21452 seconds (files took 1.83 seconds to load)\n2 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/models/bulk_discount_spec.rb:19 # BulkDiscount#apply discounts orders over the threshold", 1)
    s.grep("def subtotal", "app/models", "")
    s.bash("git log -S subtotal --oneline -- app/models/line_item.rb", "c81f0e2 line_item: rename subtotal to total_cents (money-rails)\n5a0b3d9 line_item: add subtotal")
    s.say("main renamed LineItem#subtotal to #total_cents in c81f0e2, and bulk_discount.rb on your branch still calls the old name.")
    s.edit("app/models/bulk_discount.rb", "    return order unless order.line_items.sum(&:subtotal) >= threshold_cents", "    return order unless order.line_items.sum(&:total_cents) >= threshold_cents")
    s.bash("bundle exec rspec spec/models/bulk_discount_spec.rb", "Run options: exclude {:slow=>true}\n\nBulkDiscount\n  #apply\n    discounts orders over the threshold\n    leaves small orders alone\n\nFinished in 0.19013 seconds (files took 1.79 seconds to load)\n2 examples, 0 failures")
    s.user("Thanks. Bulk discounts have to ship dark, marketing wants to turn them on per shop. Config toggle or feature flags?")
    s.say("Either works. An ENV toggle is simplest but needs a deploy to change and can't target single shops. Flipper with the ActiveRecord adapter stores flags in the database and can enable a flag for individual actors, so a Shop can be an actor.")
    s.user("ok, go for the feature flag approach with Flipper. Let's not bother with the Flipper UI and just use the rails console to flip it for now, we can mount the UI later.")
    s.bash("bundle add flipper-active_record --version \"1.3.0\"", "Fetching gem metadata from https://rubygems.org/.........\nResolving dependencies...\nFetching flipper 1.3.0\nFetching flipper-active_record 1.3.0\nInstalling flipper 1.3.0\nInstalling flipper-active_record 1.3.0")
    s.bash("bin/rails g flipper:setup && bin/rails db:migrate", "      create  db/migrate/20250806102207_create_flipper_tables.rb\n== 20250806102207 CreateFlipperTables: migrating ================================\n-- create_table(:flipper_features)\n   -> 0.0042s\n-- create_table(:flipper_gates)\n   -> 0.0051s\n== 20250806102207 CreateFlipperTables: migrated (0.0097s) =======================")
    s.edit("app/models/bulk_discount.rb", "  def apply(order)\n", "  def apply(order)\n    return order unless Flipper.enabled?(:bulk_discounts, order.shop)\n")
    s.bash("bundle exec rspec", "Run options: exclude {:slow=>true}\n.............................................\n\nFinished in 3.41 seconds (files took 1.92 seconds to load)\n45 examples, 0 failures")
    s.say("BulkDiscount#apply is now behind the `bulk_discounts` flag, checked per shop. Turn it on with `Flipper.enable_actor(:bulk_discounts, shop)` from the console.")
    s.keep("fact", "ruby 3.3.0")
    s.keep("error", "NoMethodError", id="e1")
    s.keep("fix", "bulk_discount.rb", fixes="e1")
    s.keep("decision", "feature flag")
    s.keep("decision", "rails console")
    s.keep("fact", "1.3.0")
    return s


@session
def elixir_ownership_unfixed():
    s = Session("elixir-ownership-unfixed", "/home/amara/dev/courier", branch="main", start="2025-08-07T16:20:55Z")
    s.user("mix test is red on main for me, can you see what's going on?")
    s.bash("elixir --version", "Erlang/OTP 26 [erts-14.2.3] [source] [64-bit] [smp:16:16] [ds:16:16:10] [async-threads:1] [jit:ns]\n\nElixir 1.16.2 (compiled with Erlang/OTP 26)")
    s.bash("mix test", "Running ExUnit with seed: 482913, max_cases: 32\n\n....................................\n\n  1) test delivers the webhook and records the attempt (Courier.Workers.WebhookWorkerTest)\n     test/courier/workers/webhook_worker_test.exs:31\n     ** (DBConnection.OwnershipError) cannot find ownership process for #PID<0.912.0>.\n\n     When using ownership, you must manage connections in one\n     of the four ways:\n\n     * By explicitly checking out a connection\n     * By explicitly allowing a spawned process\n     * By running the pool in shared mode\n     * By using :caller option with allowed process\n\n     stacktrace:\n       (ecto_sql 3.11.1) lib/ecto/adapters/sql.ex:1054: Ecto.Adapters.SQL.raise_sql_call_error/1\n       (courier 0.9.0) lib/courier/deliveries.ex:48: Courier.Deliveries.record_attempt/2\n       (elixir 1.16.2) lib/task/supervised.ex:101: Task.Supervised.invoke_mfa/2\n\n.........\nFinished in 2.1 seconds (0.9s async, 1.2s sync)\n46 tests, 1 failure\n\nRandomized with seed 482913", 2)
    s.read("lib/courier/workers/webhook_worker.ex", "defmodule Courier.Workers.WebhookWorker do\n  use Oban.Worker, queue: :webhooks\n\n  @impl true\n  def perform(%Oban.Job{args: %{\"delivery_id\" => id}}) do\n    delivery = Deliveries.get!(id)\n    Task.async(fn -> Deliveries.record_attempt(delivery, post(delivery)) end)\n    |> Task.await()\n  end\nend")
    s.user("Why does it only fail sometimes? It passed for Kemi this morning.")
    s.say("record_attempt runs inside a Task the worker spawns, and that process isn't allowed to use the test's sandboxed connection. Whether it fails depends on timing and on whether the test happens to run with the pool in shared mode, which depends on the seed and on which async tests run alongside it. The usual fixes are Ecto.Adapters.SQL.Sandbox.allow/3 for the task pid, or dropping the Task since perform is already async.")
    s.bash("mix test test/courier/workers/webhook_worker_test.exs --seed 0", "Running ExUnit with seed: 0, max_cases: 32\n\n...\nFinished in 0.3 seconds (0.0s async, 0.3s sync)\n3 tests, 0 failures")
    s.user("Hmm. Kemi is rewriting the webhook worker this sprint anyway, so don't touch it. I'll point her at this.")
    s.say("OK, I've left webhook_worker.ex alone. The failure reproduces with `mix test --seed 482913`.")
    s.user("Also, for future reference: in this codebase we always use with-chains instead of nested case statements for multi-step calls that can fail.")
    s.say("Got it.")
    s.keep("fact", "1.16.2")
    s.keep("error", "DBConnection.OwnershipError")
    s.keep("preference", "with-chains")
    return s


@session
def terraform_reports_bucket():
    s = Session("terraform-reports-bucket", "/home/ravi/infra/platform-live", branch="feat/reports-bucket", start="2025-08-11T09:03:12Z")
    s.user("Add an S3 bucket for the monthly reports export, versioning on. Reminder: we never run terraform apply from laptops. Plan locally, apply only goes through Atlantis on the PR.")
    s.bash("terraform version", "Terraform v1.7.5\non linux_amd64\n+ provider registry.terraform.io/hashicorp/aws v5.44.0")
    s.bash("env | grep TF_VAR", "TF_VAR_environment=prod\nTF_VAR_reports_kms_alias=alias/reports\nTF_VAR_alerts_webhook_secret=hx7Qe2-Vortex-Sable-91k")
    s.write("reports.tf", "resource \"aws_s3_bucket\" \"reports\" {\n  bucket = \"acme-${var.environment}-monthly-reports\"\n}\n\nresource \"aws_s3_bucket_versioning\" \"reports\" {\n  bucket  = aws_s3_bucket.reports.id\n  enabled = true\n}\n\nresource \"aws_s3_bucket_public_access_block\" \"reports\" {\n  bucket                  = aws_s3_bucket.reports.id\n  block_public_acls       = true\n  block_public_policy     = true\n  ignore_public_acls      = true\n  restrict_public_buckets = true\n}\n")
    s.bash("terraform plan -out=tfplan", "\u2577\n\u2502 Error: Unsupported argument\n\u2502 \n\u2502   on reports.tf line 7, in resource \"aws_s3_bucket_versioning\" \"reports\":\n\u2502    7:   enabled = true\n\u2502 \n\u2502 An argument named \"enabled\" is not expected here.\n\u2575\n\u2577\n\u2502 Error: Insufficient versioning_configuration blocks\n\u2502 \n\u2502   on reports.tf line 5, in resource \"aws_s3_bucket_versioning\" \"reports\":\n\u2502    5: resource \"aws_s3_bucket_versioning\" \"reports\" {\n\u2502 \n\u2502 At least 1 \"versioning_configuration\" blocks are required.\n\u2575", 1)
    s.say("With AWS provider v4+ the versioning resource takes a versioning_configuration block with a status, not a boolean.")
    s.edit("reports.tf", "  bucket  = aws_s3_bucket.reports.id\n  enabled = true\n}", "  bucket = aws_s3_bucket.reports.id\n  versioning_configuration {\n    status = \"Enabled\"\n  }\n}")
    s.bash("terraform fmt -check && terraform plan -out=tfplan", "aws_s3_bucket.legacy_exports: Refreshing state... [id=acme-prod-legacy-exports]\n\nTerraform used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:\n  + create\n\nTerraform will perform the following actions:\n\n  # aws_s3_bucket.reports will be created\n  + resource \"aws_s3_bucket\" \"reports\" {\n      + bucket = \"acme-prod-monthly-reports\"\n      ...\n    }\n\n  # aws_s3_bucket_public_access_block.reports will be created\n  # aws_s3_bucket_versioning.reports will be created\n\nPlan: 3 to add, 0 to change, 0 to destroy.\n\nSaved the plan to: tfplan")
    s.say("The plan adds the bucket, its versioning and the public access block. I could also add a lifecycle rule that expires noncurrent versions after 90 days, if you want to cap storage costs.")
    s.user("Not in this PR. Unrelated: the README still talks about moving state to Terraform Cloud. Is that still a thing?")
    s.say("The backend block still uses the S3 bucket with the DynamoDB lock table; nothing in the repo has started a migration.")
    s.user("We'll keep the S3 backend. TFC's per-resource pricing doesn't work for us at this size. Please drop that paragraph from the README.")
    s.edit("README.md", "## Future: Terraform Cloud\n\nWe plan to migrate state to Terraform Cloud workspaces.\n\n", "")
    s.bash("git add reports.tf README.md && git commit -m 'reports: monthly export bucket' && git push -u origin feat/reports-bucket", "[feat/reports-bucket 71c4e0b] reports: monthly export bucket\n 2 files changed, 20 insertions(+), 4 deletions(-)\nbranch 'feat/reports-bucket' set up to track 'origin/feat/reports-bucket'.")
    s.say("Pushed; Atlantis will post the plan on the PR and apply from there.")
    s.keep("preference", "apply from laptops")
    s.keep("fact", "v1.7.5")
    s.keep("fact", "v5.44.0")
    s.keep("error", "Unsupported argument", id="e1")
    s.keep("fix", "reports.tf", fixes="e1")
    s.keep("decision", "S3 backend")
    s.never("hx7Qe2-Vortex-Sable-91k")
    return s


@session
def swift_linux_networking():
    s = Session("swift-linux-networking", "/home/jules/src/feedkit", branch="linux-ci", start="2025-08-12T14:48:30Z", version="2.0.31")
    s.user("FeedKit builds fine on macOS but the Linux CI job fails. Can you get it building in the swift:5.10 container?")
    s.bash("swift --version", "Swift version 5.10 (swift-5.10-RELEASE)\nTarget: x86_64-unknown-linux-gnu")
    s.bash("swift build", "Building for debugging...\n/home/jules/src/feedkit/Sources/FeedKit/FeedLoader.swift:6:18: error: cannot find type 'URLSession' in scope\n    let session: URLSession\n                 ^~~~~~~~~~\n/home/jules/src/feedkit/Sources/FeedKit/FeedLoader.swift:14:23: error: cannot find 'URLRequest' in scope\n        var request = URLRequest(url: url)\n                      ^~~~~~~~~~\n[3/7] Compiling FeedKit FeedLoader.swift", 1)
    s.read("Sources/FeedKit/FeedLoader.swift", "import Foundation\n\npublic final class FeedLoader {\n    let session: URLSession\n\n    public init(session: URLSession = .shared) {\n        self.session = session\n    }\n}")
    s.say("On Linux the networking types are in a separate module, FoundationNetworking, that `import Foundation` doesn't re-export. I'll import it conditionally so the macOS build is unchanged.")
    s.edit("Sources/FeedKit/FeedLoader.swift", "import Foundation\n", "import Foundation\n#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n")
    s.bash("swift build", "Building for debugging...\n[7/7] Compiling FeedKit FeedLoader.swift\nBuild complete! (12.41s)")
    s.user("Nice. While you're there add a retry with backoff around the fetch, 3 attempts.")
    s.edit("Sources/FeedKit/FeedLoader.swift", "    public init(session: URLSession = .shared) {", "    func fetchWithRetry(_ request: URLRequest, attempts: Int = 3) async throws -> Data {\n        var delay: UInt64 = 500_000_000\n        for attempt in 1...attempts {\n            do { return try await fetch(request) } catch where attempt < attempts {\n                try await Task.sleep(nanoseconds: delay)\n                delay *= 2\n            }\n        }\n        preconditionFailure(\"unreachable\")\n    }\n\n    public init(session: URLSession = .shared) {")
    s.say("I went with async/await over Combine for the retry, since Combine doesn't exist on Linux at all; a plain loop with Task.sleep works on both platforms.")
    s.bash("swift test", "Building for debugging...\nBuild complete! (9.02s)\nTest Suite 'All tests' started at 2025-08-12 14:55:10.112\nTest Suite 'FeedKitPackageTests.xctest' started\n...\nTest Suite 'All tests' passed at 2025-08-12 14:55:10.524\n\t Executed 23 tests, with 0 failures (0 unexpected) in 0.412 (0.412) seconds")
    s.user("Good. Somebody on the team suggested swapping the RSS parsing over to XMLCoder. We'll keep Foundation's XMLParser, one less dependency to vet, and it works on Linux too.")
    s.say("Understood, the parser stays on XMLParser.")
    s.keep("fact", "Swift version 5.10")
    s.keep("error", "cannot find type 'URLSession'", id="e1")
    s.keep("fix", "FeedLoader.swift", fixes="e1")
    s.keep("decision", "async/await")
    s.keep("decision", "XMLParser")
    return s


@session
def dotnet_polly():
    s = Session("dotnet-polly", "/home/kasia/repos/Ledgerly", branch="feature/rate-resilience", start="2025-08-13T11:30:00Z")
    s.user("The exchange-rate provider times out a few times a day. Put a retry + timeout pipeline around the HTTP call in Ledgerly.Rates. Standing rule for this solution, by the way: I want every public method to have XML doc comments, the API docs site is generated from them.")
    s.bash("dotnet --version", "8.0.204")
    s.write("src/Ledgerly.Rates/RateClient.cs", "using Polly;\nusing Polly.Retry;\n\nnamespace Ledgerly.Rates;\n\n/// <summary>Fetches exchange rates from the upstream provider.</summary>\npublic sealed class RateClient(HttpClient http)\n{\n    private readonly ResiliencePipeline _pipeline = new ResiliencePipelineBuilder()\n        .AddRetry(new RetryStrategyOptions { MaxRetryAttempts = 3, BackoffType = DelayBackoffType.Exponential })\n        .AddTimeout(TimeSpan.FromSeconds(5))\n        .Build();\n\n    public async Task<decimal> GetRateAsync(string from, string to, CancellationToken ct) =>\n        await _pipeline.ExecuteAsync(async t => await http.GetFromJsonAsync<decimal>($\"rates/{from}/{to}\", t), ct);\n}\n")
    s.bash("dotnet build src/Ledgerly.Rates", "MSBuild version 17.9.8+b34f75857 for .NET\n  Determining projects to restore...\n  All projects are up-to-date for restore.\n/home/kasia/repos/Ledgerly/src/Ledgerly.Rates/RateClient.cs(1,7): error CS0246: The type or namespace name 'Polly' could not be found (are you missing a using directive or an assembly reference?) [/home/kasia/repos/Ledgerly/src/Ledgerly.Rates/Ledgerly.Rates.csproj]\n/home/kasia/repos/Ledgerly/src/Ledgerly.Rates/RateClient.cs(9,22): error CS0246: The type or namespace name 'ResiliencePipeline' could not be found (are you missing a using directive or an assembly reference?) [/home/kasia/repos/Ledgerly/src/Ledgerly.Rates/Ledgerly.Rates.csproj]\n\nBuild FAILED.\n\n    0 Warning(s)\n    2 Error(s)\n\nTime Elapsed 00:00:02.87", 1)
    s.say("Polly isn't referenced by Ledgerly.Rates yet. One option would be Microsoft.Extensions.Http.Resilience, which plugs Polly into IHttpClientFactory, but for one client the core package is enough. Adding Polly.Core pinned to the current release.")
    s.bash("dotnet add src/Ledgerly.Rates package Polly.Core --version 8.3.1", "  Determining projects to restore...\n  Writing /tmp/tmpXk2d1Q.tmp\ninfo : Adding PackageReference for package 'Polly.Core' into project 'src/Ledgerly.Rates/Ledgerly.Rates.csproj'.\ninfo :   GET https://api.nuget.org/v3/registration5-gz-semver2/polly.core/index.json\ninfo :   OK https://api.nuget.org/v3/registration5-gz-semver2/polly.core/index.json 112ms\ninfo : Restoring packages for /home/kasia/repos/Ledgerly/src/Ledgerly.Rates/Ledgerly.Rates.csproj...\ninfo : Package 'Polly.Core' is compatible with all the specified frameworks in project 'src/Ledgerly.Rates/Ledgerly.Rates.csproj'.\ninfo : PackageReference for package 'Polly.Core' version '8.3.1' added to file '/home/kasia/repos/Ledgerly/src/Ledgerly.Rates/Ledgerly.Rates.csproj'.\ninfo : Writing assets file to disk. Path: /home/kasia/repos/Ledgerly/src/Ledgerly.Rates/obj/project.assets.json\nlog  : Restored /home/kasia/repos/Ledgerly/src/Ledgerly.Rates/Ledgerly.Rates.csproj (in 1.02 sec).")
    s.edit("src/Ledgerly.Rates/RateClient.cs", "    public async Task<decimal> GetRateAsync(", "    /// <summary>Returns the rate from <paramref name=\"from\"/> to <paramref name=\"to\"/>, retrying transient failures up to three times.</summary>\n    public async Task<decimal> GetRateAsync(")
    s.bash("dotnet test", "  Determining projects to restore...\n  All projects are up-to-date for restore.\n  Ledgerly.Rates -> /home/kasia/repos/Ledgerly/src/Ledgerly.Rates/bin/Debug/net8.0/Ledgerly.Rates.dll\n  Ledgerly.Rates.Tests -> /home/kasia/repos/Ledgerly/tests/Ledgerly.Rates.Tests/bin/Debug/net8.0/Ledgerly.Rates.Tests.dll\nTest run for /home/kasia/repos/Ledgerly/tests/Ledgerly.Rates.Tests/bin/Debug/net8.0/Ledgerly.Rates.Tests.dll (.NETCoreApp,Version=v8.0)\nStarting test execution, please wait...\nA total of 1 test files matched the specified pattern.\n\nPassed!  - Failed:     0, Passed:    17, Skipped:     0, Total:    17, Duration: 311 ms - Ledgerly.Rates.Tests.dll (net8.0)")
    s.say("Builds and all 17 tests pass. GetRateAsync retries three times with exponential backoff and gives each attempt 5 s, and it has a doc comment.")
    s.keep("preference", "XML doc comments")
    s.keep("fact", "8.0.204")
    s.keep("error", "CS0246", id="e1")
    s.keep("fix", "Polly.Core", fixes="e1")
    s.keep("fact", "8.3.1")
    return s


@session
def helm_kibana_values():
    s = Session("helm-kibana-values", "/home/noor/charts/observability", branch="kibana-chart", start="2025-08-14T07:58:21Z")
    s.user("helm template for the kibana subchart blows up since I restructured the values files. Kibana's admin UI listens on port 5601 and the Service should expose exactly that.")
    s.bash("helm version", "version.BuildInfo{Version:\"v3.14.3\", GitCommit:\"f03cc04caaa8f6d7c3e67cf918929150cf6f3f12\", GitTreeState:\"clean\", GoVersion:\"go1.21.7\"}")
    s.bash("helm template obs ./charts/kibana -f values/prod.yaml", "Error: template: kibana/templates/service.yaml:12:28: executing \"kibana/templates/service.yaml\" at <.Values.service.http.port>: nil pointer evaluating interface {}.port\n\nUse --debug flag to render out invalid YAML", 1)
    s.read("values/prod.yaml", "replicaCount: 2\n\nservice:\n  type: ClusterIP\n  port: 5601\n\nelasticsearch:\n  hosts: [\"https://es-master.observability.svc:9200\"]\n  credentialsSecret: kibana-es-credentials")
    s.read("charts/kibana/templates/service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ include \"kibana.fullname\" . }}\n  labels:\n    {{- include \"kibana.labels\" . | nindent 4 }}\nspec:\n  type: {{ .Values.service.type }}\n  selector:\n    {{- include \"kibana.selectorLabels\" . | nindent 4 }}\n  ports:\n    - port: {{ .Values.service.http.port }}\n      targetPort: http")
    s.say("prod.yaml flattened `service.http.port` to `service.port`, but the template (and the chart's default values.yaml) still use the nested key. Since the flat layout is the intended one, I'll change the template and the chart defaults to match it.")
    s.edit("charts/kibana/templates/service.yaml", "    - port: {{ .Values.service.http.port }}", "    - port: {{ .Values.service.port }}")
    s.edit("charts/kibana/values.yaml", "service:\n  type: ClusterIP\n  http:\n    port: 5601", "service:\n  type: ClusterIP\n  port: 5601")
    s.bash("helm lint ./charts/kibana -f values/prod.yaml && helm template obs ./charts/kibana -f values/prod.yaml | grep -A3 'ports:'", "==> Linting ./charts/kibana\n[INFO] Chart.yaml: icon is recommended\n\n1 chart(s) linted, 0 chart(s) failed\n  ports:\n    - port: 5601\n      targetPort: http")
    s.user("Great. Also the staging pods log 'unable to authenticate' against elasticsearch. Is the credentials secret even populated there?")
    s.bash("kubectl -n observability --context staging get secret kibana-es-credentials -o jsonpath='{.data.password}' | base64 -d", "Pq4-wharf-Ember-7731")
    s.say("Yes, the secret in staging has a non-empty password (I won't repeat it here). So it's more likely the elasticsearch side, e.g. the kibana_system user's password was rotated and the secret wasn't.")
    s.user("Right, I'll check with the ES folks. Thanks.")
    s.keep("fact", "5601")
    s.keep("fact", "v3.14.3")
    s.keep("error", "nil pointer evaluating", id="e1")
    s.keep("fix", "service.yaml", fixes="e1")
    s.never("Pq4-wharf-Ember-7731")
    return s


@session
def gha_drop_node16():
    s = Session("gha-drop-node16", "/home/lena/oss/tiny-merge", branch="ci/node-matrix", start="2025-08-18T19:12:44Z", version="2.0.31")
    s.user("We're dropping support for Node 16, it's been EOL for ages. Update the CI matrix and the engines field in package.json.")
    s.read(".github/workflows/ci.yml", "name: ci\non: [push, pull_request]\n\njobs:\n  test:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        node: [16, 18, 20]\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4\n        with:\n          node-version: ${{ matrix.node }}\n          cache: npm\n      - run: npm ci\n      - run: npm test")
    s.edit(".github/workflows/ci.yml", "        node: [16, 18, 20]\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4\n        with:\n          node-version: ${{ matrix.node }}", "        node-version: [18, 20, 22]\n    steps:\n      - uses: actions/checkout@v4\n      - uses: actions/setup-node@v4\n        with:\n          node-version: ${{ matrix.node }}")
    s.bash("actionlint", ".github/workflows/ci.yml:14:28: property \"node\" is not defined in object type {node-version: number} [expression]\n   |\n14 |           node-version: ${{ matrix.node }}\n   |                            ^~~~~~~~~~~~~~~", 1)
    s.say("I renamed the matrix key but not the expression that reads it. Fixing the reference in ci.yml.")
    s.edit(".github/workflows/ci.yml", "          node-version: ${{ matrix.node }}", "          node-version: ${{ matrix.node-version }}")
    s.bash("actionlint", "")
    s.edit("package.json", "    \"node\": \">=16\"", "    \"node\": \">=18\"")
    s.bash("npm test", "\n> tiny-merge@3.2.1 test\n> node --test test/\n\n\u2714 merges nested objects (0.8ms)\n\u2714 arrays are replaced, not concatenated (0.2ms)\n\u2714 ignores __proto__ keys (0.3ms)\n\u2139 tests 3\n\u2139 pass 3\n\u2139 fail 0")
    s.say("CI now tests 18, 20 and 22, and engines says >=18. Separately, you might want to replace the hand-rolled deepMerge with lodash.merge, which covers more edge cases like Maps and typed arrays.")
    s.user("No. Avoid lodash, this package has zero runtime dependencies and that isn't changing. Open the PR, and when it's merged don't squash: we never squash merge in this repo, we keep the individual commits.")
    s.bash("git commit -am 'ci: drop Node 16, test on 22' && gh pr create --fill", "[ci/node-matrix 0e5b7a2] ci: drop Node 16, test on 22\n 2 files changed, 2 insertions(+), 2 deletions(-)\n\nCreating pull request for ci/node-matrix into main in lena/tiny-merge\n\nhttps://github.com/lena/tiny-merge/pull/58")
    s.keep("decision", "Node 16")
    s.keep("error", "is not defined in object type", id="e1")
    s.keep("fix", "ci.yml", fixes="e1")
    s.keep("preference", "Avoid lodash")
    s.keep("preference", "never squash merge")
    return s


@session
def zig_vendored_unfixed():
    s = Session("zig-vendored-unfixed", "/home/piotr/code/tilemap", start="2025-08-20T21:05:09Z")
    s.user("I upgraded zig from 0.11 and now tilemap won't build. What's broken?")
    s.bash("zig version", "0.12.0")
    s.bash("zig build", "install\n\u2514\u2500 install tilemap\n   \u2514\u2500 zig build-exe tilemap Debug native 1 errors\ndeps/zgl/src/zgl.zig:212:17: error: local variable is never mutated\n            var ptr = c.glMapBuffer(target, access);\n                ^~~\ndeps/zgl/src/zgl.zig:212:17: note: consider using 'const'\nerror: the following command failed with 1 compilation errors:\n/home/piotr/.local/zig-0.12.0/zig build-exe -ODebug -Mroot=/home/piotr/code/tilemap/src/main.zig --cache-dir /home/piotr/code/tilemap/zig-cache --global-cache-dir /home/piotr/.cache/zig --name tilemap --listen=-\nBuild Summary: 0/3 steps succeeded; 1 failed (disable with --summary none)\ninstall transitive failure\n\u2514\u2500 install tilemap transitive failure\n   \u2514\u2500 zig build-exe tilemap Debug native 1 errors", 1)
    s.say("Zig 0.12 turned 'var that is never reassigned' into a compile error. Your own code is clean; the only hit is in deps/zgl, the vendored OpenGL bindings, where `var ptr` should be `const ptr`.")
    s.user("Is there a flag to make that a warning instead?")
    s.say("No, in 0.12 it's a hard error with no opt-out. One option would be to pin 0.11.0 with zigup until zgl has a 0.12-compatible release; the other is a one-line patch to the vendored copy.")
    s.user("zgl is vendored straight from upstream and we don't patch vendored code. Leave it, I'll open an issue on their tracker.")
    s.bash("git -C deps/zgl log --oneline -1", "9a3f2c7 (tag: v0.11.1) Merge pull request #94 from hexops/buffer-storage")
    s.say("For the issue: zgl is at v0.11.1 (9a3f2c7), the error is at src/zgl.zig:212.")
    s.keep("fact", "0.12.0")
    s.keep("error", "local variable is never mutated")
    return s


@session
def php_sms_reminders():
    s = Session("php-sms-reminders", "/home/beatriz/sites/bookings-portal", branch="feature/sms-reminders", start="2025-08-25T10:44:36Z")
    s.user("Add SMS appointment reminders through the Textwave API. Use British spelling in user-facing strings, our customers are all UK councils.")
    s.bash("php -v", "PHP 8.3.4 (cli) (built: Mar 16 2024 08:40:08) (NTS)\nCopyright (c) The PHP Group\nZend Engine v4.3.4, Copyright (c) Zend Technologies\n    with Zend OPcache v8.3.4, Copyright (c), by Zend Technologies")
    s.bash("grep -E '^(DB_|TEXTWAVE_)' .env", "DB_CONNECTION=mysql\nDB_HOST=127.0.0.1\nDB_DATABASE=bookings\nDB_USERNAME=bookings\nDB_PASSWORD=Lm3!quarry-Velvet-08\nTEXTWAVE_API_KEY=twk_5Jq8Rz2Kp9Xc4Vb7Nm1Ld6Hs\nTEXTWAVE_SENDER=Bookings")
    s.say("The API key is already in .env. Let's pull in Guzzle for the Textwave calls.")
    s.user("No, don't add Guzzle directly. We'll use Laravel's Http facade, it's already there and Http::fake() makes the tests trivial.")
    s.bash("composer require propaganistas/laravel-phone:5.3.0", "./composer.json has been updated\nRunning composer update propaganistas/laravel-phone\nLoading composer repositories with package information\nUpdating dependencies\nYour requirements could not be resolved to an installable set of packages.\n\n  Problem 1\n    - Root composer.json requires propaganistas/laravel-phone 5.3.0 -> satisfiable by propaganistas/laravel-phone[5.3.0].\n    - propaganistas/laravel-phone 5.3.0 requires ext-intl * -> it is missing from your system. Install or enable PHP's intl extension.\n\nTo enable extensions, verify that they are enabled in your .ini files:\n    - /etc/php/8.3/cli/php.ini\n    - /etc/php/8.3/cli/conf.d/10-opcache.ini\n    - /etc/php/8.3/cli/conf.d/10-pdo.ini\nYou can also run `php --ini` in a terminal to see which files are used by PHP in CLI mode.\nAlternatively, you can run Composer with `--ignore-platform-req=ext-intl` to temporarily ignore these required extensions.\n\nInstallation failed, reverting ./composer.json and ./composer.lock to their original content.", 2)
    s.say("laravel-phone needs the intl extension, which this PHP build lacks. Ignoring the platform requirement would only move the failure to runtime, so I'll install the extension.")
    s.bash("sudo apt-get install -y php8.3-intl", "Reading package lists... Done\nBuilding dependency tree... Done\nThe following NEW packages will be installed:\n  php8.3-intl\nSetting up php8.3-intl (8.3.4-1+ubuntu22.04.1+deb.sury.org+1) ...\nCreating config file /etc/php/8.3/mods-available/intl.ini with new version")
    s.bash("composer require propaganistas/laravel-phone:5.3.0", "./composer.json has been updated\nRunning composer update propaganistas/laravel-phone\nLoading composer repositories with package information\nUpdating dependencies\nLock file operations: 2 installs, 0 updates, 0 removals\n  - Locking giggsey/libphonenumber-for-php-lite (8.13.40)\n  - Locking propaganistas/laravel-phone (5.3.0)\nWriting lock file\nInstalling dependencies from lock file (including require-dev)\n  - Installing giggsey/libphonenumber-for-php-lite (8.13.40): Extracting archive\n  - Installing propaganistas/laravel-phone (5.3.0): Extracting archive\nGenerating optimized autoload files")
    s.write("app/Notifications/AppointmentReminder.php", "<?php\n\nnamespace App\\Notifications;\n\nuse Illuminate\\Support\\Facades\\Http;\n\nclass AppointmentReminder\n{\n    public function send(Appointment $a): void\n    {\n        Http::withToken(config('services.textwave.key'))\n            ->post('https://api.textwave.io/v2/messages', [\n                'to' => (string) $a->phone,\n                'body' => \"Reminder: your appointment at the {$a->centre->name} centre is on {$a->starts_at->format('j F')} at {$a->starts_at->format('H:i')}. Reply C if it needs to be cancelled.\",\n            ])->throw();\n    }\n}\n")
    s.bash("php artisan test --filter=AppointmentReminderTest", "\n   PASS  Tests\\Feature\\AppointmentReminderTest\n  \u2713 it sends the reminder text                                        0.21s\n  \u2713 it formats UK numbers in E.164                                   0.03s\n\n  Tests:    2 passed (5 assertions)\n  Duration: 0.41s")
    s.say("Reminders go out through the Http facade (faked in the tests), with British spelling in the message (\"centre\", \"cancelled\").")
    s.keep("preference", "British spelling")
    s.keep("fact", "PHP 8.3.4")
    s.keep("decision", "Http facade")
    s.keep("error", "ext-intl", id="e1")
    s.keep("fix", "php8.3-intl", fixes="e1")
    s.keep("fact", "5.3.0")
    s.never("Lm3!quarry-Velvet-08")
    s.never("twk_5Jq8Rz2Kp9Xc4Vb7Nm1Ld6Hs")
    return s


@session
def deno_cache_questions():
    s = Session("deno-cache-questions", "/home/yuki/projects/edge-cache", start="2025-08-27T15:30:12Z", version="2.0.31")
    s.command("/clear", "")
    s.user("How does the cache key get built in src/cache.ts? I keep seeing misses for requests that look identical.")
    s.read("src/cache.ts", "export function cacheKey(req: Request): string {\n  const url = new URL(req.url);\n  url.hash = \"\";\n  const enc = req.headers.get(\"accept-encoding\") ?? \"\";\n  const cookie = req.headers.get(\"cookie\") ?? \"\";\n  return `${url.toString()}|${enc}|${cookie}`;\n}")
    s.say("The key is the URL without its fragment, plus the raw Accept-Encoding header, plus the whole Cookie header. So two requests for the same page miss each other whenever any cookie differs, including analytics cookies that change on every visit. One option would be to keep only the session cookie in the key; you might also want to sort query parameters so `?a=1&b=2` and `?b=2&a=1` share an entry.")
    s.user("Does anything already normalise the query string?")
    s.grep("normali[sz]eQuery|searchParams\\.sort", "src", "")
    s.bash("grep -rn 'Vary' src/", "", 1)
    s.say("No, nothing sorts the search params, and nothing sets or reads a Vary header either.")
    s.user("OK. In handler.ts, rename the variable `t` to `total` while you're in there, it's unreadable.")
    s.edit("src/handler.ts", "  const t = hits + misses;\n  const ratio = t === 0 ? 0 : hits / t;", "  const total = hits + misses;\n  const ratio = total === 0 ? 0 : hits / total;")
    s.bash("deno test --allow-net", "running 6 tests from ./src/cache_test.ts\ncacheKey drops the fragment ... ok (2ms)\ncacheKey includes accept-encoding ... ok (0ms)\nhandler serves from cache on hit ... ok (5ms)\nhandler stores on miss ... ok (3ms)\nhandler reports hit ratio ... ok (1ms)\nhandler bypasses POST ... ok (1ms)\n\nok | 6 passed | 0 failed (41ms)")
    s.say("Renamed; all 6 tests pass. I haven't changed cacheKey.")
    s.user("Thanks, I'll think about the cookie thing and get back to you.")
    return s
