# Held-out set 4 of the capture fixture (read by gen.py: python3 gen.py heldout4).
#
# Written blind on 2026-11-28 by a helper that read neither the extraction
# rules (capture/extract/*.go) nor the other held-out sets (sessions_heldout*.py,
# heldout*/), only gen.py and the examples in sessions.py. These sessions
# measure how the rules generalise: do not tune the rules to them, and do not
# edit them to suit the rules. Labels are what a careful engineer would note
# from the transcript alone.
#
# Stacks: Elixir/Phoenix/Oban, Rails/RSpec, Spring Boot/Gradle, Next.js/Prisma,
# C++/CMake, Kubernetes/Helm, Django/Poetry, Rust/rusqlite, Laravel/Composer,
# .NET 8, nginx/Grafana, Terraform/AWS.


@session
def elixir_oban_nightly():
    s = Session("elixir-oban-nightly", "/home/nadia/code/tally", branch="feat/nightly-report", start="2025-10-02T08:41:17Z")
    s.user("I added oban to mix.exs last night but haven't touched anything else. Can you get the nightly usage report running as an Oban job?")
    s.bash("elixir --version", "Erlang/OTP 26 [erts-14.2.5] [source] [64-bit] [smp:8:8] [ds:8:8:10] [async-threads:1] [jit:ns]\n\nElixir 1.16.3 (compiled with Erlang/OTP 26)")
    s.read("mix.exs", "  defp deps do\n    [\n      {:phoenix, \"~> 1.7.12\"},\n      {:phoenix_ecto, \"~> 4.5\"},\n      {:ecto_sql, \"~> 3.11\"},\n      {:postgrex, \">= 0.0.0\"},\n      {:oban, \"~> 2.17\"},\n      {:jason, \"~> 1.4\"}\n    ]\n  end")
    s.bash("mix compile", "Unchecked dependencies for environment dev:\n* oban (Hex package)\n  the dependency is not available, run \"mix deps.get\"\n** (Mix) Can't continue due to errors on dependencies", 1)
    s.say("oban is declared in `deps/0` but was never fetched, so Mix refuses to compile. Fetching it.")
    s.bash("mix deps.get", "Resolving Hex dependencies...\nResolution completed in 0.118s\nNew:\n  oban 2.17.12\nUnchanged:\n  castore 1.0.7\n  db_connection 2.6.0\n  decimal 2.1.1\n  ecto 3.11.2\n  ecto_sql 3.11.3\n* Getting oban (Hex package)")
    s.bash("mix compile", "==> oban\nCompiling 61 files (.ex)\nGenerated oban app\n==> tally\nCompiling 3 files (.ex)\nGenerated tally app")
    s.say("Compiles now. For the queue layout I'd suggest a dedicated `reports` queue with a concurrency limit of 2, so one slow report can't starve other jobs.")
    s.user("Let's keep everything on the default queue for now; one queue is easier to reason about until we actually have more than one worker. Also, workers live in lib/tally/workers in this project, never under tally_web.")
    s.write("lib/tally/workers/nightly_usage_report.ex", "defmodule Tally.Workers.NightlyUsageReport do\n  use Oban.Worker, max_attempts: 3\n\n  @impl Oban.Worker\n  def perform(%Oban.Job{}) do\n    Tally.Reports.usage_for(Date.utc_today() |> Date.add(-1))\n    |> Tally.Reports.deliver()\n  end\nend")
    s.edit("config/config.exs", "config :tally, ecto_repos: [Tally.Repo]", "config :tally, ecto_repos: [Tally.Repo]\n\nconfig :tally, Oban,\n  repo: Tally.Repo,\n  queues: [default: 10],\n  plugins: [{Oban.Plugins.Cron, crontab: [{\"15 2 * * *\", Tally.Workers.NightlyUsageReport}]}]")
    s.edit("lib/tally/application.ex", "      Tally.Repo,\n", "      Tally.Repo,\n      {Oban, Application.fetch_env!(:tally, Oban)},\n")
    s.bash("mix run -e 'Tally.Workers.NightlyUsageReport.new(%{}) |> Oban.insert!() |> IO.inspect()'", "** (Postgrex.Error) ERROR 42P01 (undefined_table) relation \"public.oban_jobs\" does not exist\n\n    query: INSERT INTO \"public\".\"oban_jobs\" AS o0 (\"args\",\"meta\",\"state\",\"queue\",\"worker\") VALUES ($1,$2,$3,$4,$5) RETURNING \"id\"\n    (ecto_sql 3.11.3) lib/ecto/adapters/sql.ex:1054: Ecto.Adapters.SQL.raise_sql_call_error/1\n    (oban 2.17.12) lib/oban/engines/basic.ex:62: Oban.Engines.Basic.insert_job/3", 1)
    s.say("Oban stores jobs in its own `oban_jobs` table, which this database doesn't have yet. Oban ships the DDL as a migration helper; generating a migration that calls it.")
    s.bash("mix ecto.gen.migration add_oban_jobs_table", "* creating priv/repo/migrations/20251002085512_add_oban_jobs_table.exs")
    s.write("priv/repo/migrations/20251002085512_add_oban_jobs_table.exs", "defmodule Tally.Repo.Migrations.AddObanJobsTable do\n  use Ecto.Migration\n\n  def up, do: Oban.Migration.up(version: 12)\n\n  def down, do: Oban.Migration.down(version: 1)\nend")
    s.bash("mix ecto.migrate", "08:56:03.412 [info] == Running 20251002085512 Tally.Repo.Migrations.AddObanJobsTable.up/0 forward\n08:56:03.420 [info] create table if not exists public.oban_jobs\n08:56:03.433 [info] create index if not exists public.oban_jobs_state_queue_priority_scheduled_at_id_index\n08:56:03.471 [info] == Migrated 20251002085512 in 0.0s")
    s.bash("mix run -e 'Tally.Workers.NightlyUsageReport.new(%{}) |> Oban.insert!() |> IO.inspect()'", "%Oban.Job{\n  id: 1,\n  state: \"available\",\n  queue: \"default\",\n  worker: \"Tally.Workers.NightlyUsageReport\",\n  args: %{},\n  attempt: 0,\n  max_attempts: 3\n}")
    s.say("The report worker is in `lib/tally/workers/`, runs on the default queue, and the Cron plugin schedules it at 02:15 UTC every night. A manual insert succeeds now that the `oban_jobs` table exists.")
    s.keep("fact", "Elixir 1.16.3")
    s.keep("error", "dependency is not available", id="e1")
    s.keep("fix", "mix deps.get", fixes="e1")
    s.keep("decision", "default queue")
    s.keep("preference", "lib/tally/workers")
    s.keep("error", "undefined_table", id="e2")
    s.keep("fix", "mix ecto.migrate", fixes="e2")
    return s


@session
def rails_pending_migration():
    s = Session("rails-pending-migration", "/Users/tomas/dev/clinic-booking", branch="main", start="2025-10-06T15:02:40Z", version="2.0.8")
    s.user("Pulled main and the appointments request spec is red. Can you figure out why?")
    s.bash("bin/rails -v", "Rails 7.1.3.4")
    s.bash("bundle exec rspec spec/requests/appointments_spec.rb", "\nAn error occurred while loading ./spec/requests/appointments_spec.rb.\nFailure/Error: ActiveRecord::Migration.maintain_test_schema!\n\nActiveRecord::PendingMigrationError:\n\n  Migrations are pending. To resolve this issue, run:\n\n          bin/rails db:migrate RAILS_ENV=test\n\n  You have 1 pending migration:\n\n  db/migrate/20251006142211_add_ends_at_to_appointments.rb\n# ./spec/rails_helper.rb:28:in `<top (required)>'\nNo examples found.\n\nFinished in 0.00002 seconds (files took 1.41 seconds to load)\n0 examples, 0 failures, 1 error occurred outside of examples", 1)
    s.say("Someone merged a migration that your test database hasn't run yet. Applying it.")
    s.bash("bin/rails db:migrate RAILS_ENV=test", "== 20251006142211 AddEndsAtToAppointments: migrating ===========================\n-- add_column(:appointments, :ends_at, :datetime)\n   -> 0.0041s\n== 20251006142211 AddEndsAtToAppointments: migrated (0.0042s) ==================")
    s.bash("bundle exec rspec spec/requests/appointments_spec.rb", "..F...\n\nFailures:\n\n  1) POST /appointments with a free slot creates the appointment\n     Failure/Error: expect(response).to have_http_status(:created)\n       expected the response to have status code :created (201) but it was :unprocessable_entity (422)\n     # ./spec/requests/appointments_spec.rb:19:in `block (3 levels) in <top (required)>'\n\nFinished in 0.41 seconds (files took 1.39 seconds to load)\n6 examples, 1 failure\n\nFailed examples:\n\nrspec ./spec/requests/appointments_spec.rb:14 # POST /appointments with a free slot creates the appointment", 1)
    s.read("app/models/appointment.rb", "class Appointment < ApplicationRecord\n  belongs_to :patient\n  belongs_to :practitioner\n\n  validates :starts_at, presence: true\n  validates :ends_at, presence: true, comparison: { greater_than: :starts_at }\nend")
    s.read("spec/factories/appointments.rb", "FactoryBot.define do\n  factory :appointment do\n    patient\n    practitioner\n    starts_at { 2.days.from_now.change(hour: 10) }\n  end\nend")
    s.say("The same merge added a validation that `ends_at` is present and after `starts_at`, but the factory never sets `ends_at`, so the spec's params fail validation and the controller answers 422.")
    s.edit("spec/factories/appointments.rb", "    starts_at { 2.days.from_now.change(hour: 10) }", "    starts_at { 2.days.from_now.change(hour: 10) }\n    ends_at { starts_at + 30.minutes }")
    s.bash("bundle exec rspec spec/requests/appointments_spec.rb", "......\n\nFinished in 0.39 seconds (files took 1.38 seconds to load)\n6 examples, 0 failures")
    s.say("Green again. We could perhaps make the default appointment length configurable per clinic at some point, but that's beyond this fix.")
    s.user("Thanks. Quick question while you're here: would moving the SMS reminders to Sidekiq make sense?")
    s.say("It would take reminder sending off the request path and give you retries, but it means running Redis. Solid Queue is the other candidate: same benefits, stays on Postgres. Both are reasonable; it mostly depends on whether you want another moving part.")
    s.user("Hm, not sure yet, I'll bring it up at Thursday's planning. One thing for the future though: no `let!` in our specs please, we do explicit setup in `before` blocks so it's obvious what each example creates.")
    s.say("Got it, I'll stick to `before` blocks in specs.")
    s.keep("fact", "Rails 7.1.3.4")
    s.keep("error", "PendingMigrationError", id="e1")
    s.keep("fix", "db:migrate", fixes="e1")
    s.keep("error", "unprocessable_entity", id="e2")
    s.keep("fix", "factories/appointments.rb", fixes="e2")
    s.keep("preference", "explicit setup")
    return s


@session
def spring_missing_bean():
    s = Session("spring-missing-bean", "/home/ivan/projects/parcel-tracker", branch="rebase/main-oct", start="2025-10-07T09:18:03Z")
    s.user("parcel-tracker won't boot locally since I rebased onto main. Can you sort it out?")
    s.bash("java -version", "openjdk version \"21.0.3\" 2024-04-16\nOpenJDK Runtime Environment (build 21.0.3+9-Ubuntu-1ubuntu122.04.1)\nOpenJDK 64-Bit Server VM (build 21.0.3+9-Ubuntu-1ubuntu122.04.1, mixed mode, sharing)")
    s.bash("./gradlew bootRun --args='--spring.profiles.active=local'", "> Task :bootRun\n\n  .   ____          _            __ _ _\n /\\\\ / ___'_ __ _ _(_)_ __  __ _ \\ \\ \\ \\\n( ( )\\___ | '_ | '_| | '_ \\/ _` | \\ \\ \\ \\\n :: Spring Boot ::                (v3.3.1)\n\n2025-10-07T09:18:31.204+02:00  WARN 40211 --- [parcel-tracker] [           main] ConfigServletWebServerApplicationContext : Exception encountered during context initialization - cancelling refresh attempt: org.springframework.beans.factory.UnsatisfiedDependencyException: Error creating bean with name 'trackingService'\n\n***************************\nAPPLICATION FAILED TO START\n***************************\n\nDescription:\n\nParameter 0 of constructor in com.acme.parcel.tracking.TrackingService required a bean of type 'com.acme.parcel.carrier.CarrierClient' that could not be found.\n\n\nAction:\n\nConsider defining a bean of type 'com.acme.parcel.carrier.CarrierClient' in your configuration.\n\n\n> Task :bootRun FAILED\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':bootRun'.\n> Process 'command '/usr/lib/jvm/java-21-openjdk-amd64/bin/java'' finished with non-zero exit value 1\n\nBUILD FAILED in 7s", 1)
    s.bash("cat src/main/resources/application-local.yml", "server:\n  port: 8090\nspring:\n  datasource:\n    url: jdbc:postgresql://localhost:5432/parcels\n    username: parcels\n    password: pT7!vQx9#Lm2\ncarrier:\n  base-url: https://api.shipfast.example/v2\n  api-key: ck_live_51HcQe2LkP0xR8vYtW3nZ\n  timeout: 5s")
    s.bash("git log --oneline -3 -- src/main/java/com/acme/parcel/carrier", "c81d0f2 carrier: extract CarrierClient interface, drop @Component from impl\n5a7e913 carrier: retry on 503\n0b44f2d carrier: add HttpCarrierClient")
    s.read("src/main/java/com/acme/parcel/config/CarrierConfig.java", "package com.acme.parcel.config;\n\n@Configuration\n@EnableConfigurationProperties(CarrierProperties.class)\npublic class CarrierConfig {\n\n    @Bean\n    RestClient carrierRestClient(CarrierProperties props) {\n        return RestClient.builder().baseUrl(props.baseUrl()).build();\n    }\n}")
    s.say("Commit c81d0f2 removed `@Component` from `HttpCarrierClient`, so nothing registers a `CarrierClient` bean any more and `TrackingService` can't be constructed. The quickest fix is to put `@Component` back on `HttpCarrierClient`.")
    s.user("No, that was removed on purpose. In this codebase clients for external APIs are declared as @Bean methods in a config class, never annotated with @Component. Use CarrierConfig.")
    s.edit("src/main/java/com/acme/parcel/config/CarrierConfig.java", "        return RestClient.builder().baseUrl(props.baseUrl()).build();\n    }\n}", "        return RestClient.builder().baseUrl(props.baseUrl()).build();\n    }\n\n    @Bean\n    CarrierClient carrierClient(RestClient carrierRestClient, CarrierProperties props) {\n        return new HttpCarrierClient(carrierRestClient, props.apiKey(), props.timeout());\n    }\n}")
    s.bash("./gradlew bootRun --args='--spring.profiles.active=local' > /tmp/boot.log 2>&1 & sleep 25; grep -E 'Tomcat started|Started ParcelTracker' /tmp/boot.log", "2025-10-07T09:24:12.883+02:00  INFO 40877 --- [parcel-tracker] [           main] o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat started on port 8090 (http) with context path '/'\n2025-10-07T09:24:12.901+02:00  INFO 40877 --- [parcel-tracker] [           main] c.a.parcel.ParcelTrackerApplication      : Started ParcelTrackerApplication in 3.412 seconds (process running for 3.79)")
    s.bash("curl -s localhost:8090/actuator/health", "{\"status\":\"UP\"}")
    s.say("It boots again and answers on port 8090; `CarrierClient` now comes from a `@Bean` method in `CarrierConfig`. Side note: application-local.yml holds what looks like a live carrier API key in plain text, so you might want to pull it from an environment variable instead. Up to you.")
    s.user("Yeah, I know, that file is gitignored. Thanks!")
    s.keep("fact", "21.0.3")
    s.keep("error", "required a bean", id="e1")
    s.keep("fix", "CarrierConfig.java", fixes="e1")
    s.keep("preference", "@Bean methods")
    s.keep("fact", "8090")
    s.never("pT7!vQx9#Lm2")
    s.never("ck_live_51HcQe2LkP0xR8vYtW3nZ")
    return s


@session
def prisma_stale_client():
    s = Session("prisma-stale-client", "/home/jules/src/invoicer-web", branch="feat/credit-notes", start="2025-10-08T10:03:55Z", version="2.0.30")
    s.user("I've added a CreditNote model to schema.prisma. Add GET /api/invoices/[id]/credit-notes that returns the notes for an invoice, newest first.")
    s.bash("pnpm prisma --version", "prisma                  : 5.14.0\n@prisma/client          : 5.14.0\nComputed binaryTarget   : debian-openssl-3.0.x\nOperating System        : linux\nArchitecture            : x64\nNode.js                 : v20.14.0\nDefault Engines Hash    : e9771e62de70f79a5e1c604a2d7c8e2a0a874b48")
    s.read("prisma/schema.prisma", "model Invoice {\n  id          String       @id @default(cuid())\n  number      String       @unique\n  creditNotes CreditNote[]\n}\n\nmodel CreditNote {\n  id        String   @id @default(cuid())\n  invoice   Invoice  @relation(fields: [invoiceId], references: [id])\n  invoiceId String\n  amount    Decimal  @db.Decimal(12, 2)\n  reason    String?\n  createdAt DateTime @default(now())\n\n  @@index([invoiceId, createdAt])\n}")
    s.write("src/app/api/invoices/[id]/credit-notes/route.ts", "import { NextResponse } from 'next/server';\nimport { prisma } from '@/lib/prisma';\n\nexport async function GET(_req: Request, { params }: { params: { id: string } }) {\n  const notes = await prisma.creditNote.findMany({\n    where: { invoiceId: params.id },\n    orderBy: { createdAt: 'desc' },\n  });\n  return NextResponse.json(notes);\n}")
    s.bash("pnpm tsc --noEmit", "src/app/api/invoices/[id]/credit-notes/route.ts:5:30 - error TS2339: Property 'creditNote' does not exist on type 'PrismaClient<PrismaClientOptions, never, DefaultArgs>'.\n\n5   const notes = await prisma.creditNote.findMany({\n                               ~~~~~~~~~~\n\n\nFound 1 error in src/app/api/invoices/[id]/credit-notes/route.ts:5\n", 2)
    s.say("The schema has `CreditNote`, but the generated client under node_modules was built before the model existed, so its types don't know about it. Regenerating the client.")
    s.bash("pnpm prisma generate", "Environment variables loaded from .env\nPrisma schema loaded from prisma/schema.prisma\n\n\u2714 Generated Prisma Client (v5.14.0) to ./node_modules/@prisma/client in 87ms")
    s.bash("pnpm tsc --noEmit", "")
    s.bash("pnpm prisma migrate dev --name add_credit_notes", "Environment variables loaded from .env\nPrisma schema loaded from prisma/schema.prisma\nDatasource \"db\": PostgreSQL database \"invoicer\", schema \"public\"\n\nApplying migration `20251008101544_add_credit_notes`\n\nThe following migration(s) have been created and applied from new schema changes:\n\nmigrations/\n  \u2514\u2500 20251008101544_add_credit_notes/\n    \u2514\u2500 migration.sql\n\nYour database is now in sync with your schema.")
    s.bash("pnpm vitest run src/app/api", " \u2713 src/app/api/invoices/[id]/credit-notes/route.test.ts (3 tests) 58ms\n \u2713 src/app/api/invoices/route.test.ts (7 tests) 112ms\n\n Test Files  2 passed (2)\n      Tests  10 passed (10)")
    s.user("This stale-client thing bites everyone after a pull. Should we run prisma generate in postinstall?")
    s.say("That's the usual remedy: pnpm runs `postinstall` after every install, so the client can't drift from the schema. It costs about a second per install.")
    s.user("Do it. And a reminder: this repo is pnpm only, never npm or yarn, they'd each write their own lockfile.")
    s.edit("package.json", "  \"scripts\": {\n    \"dev\": \"next dev\",", "  \"scripts\": {\n    \"postinstall\": \"prisma generate\",\n    \"dev\": \"next dev\",")
    s.bash("pnpm install", "Lockfile is up to date, resolution step is skipped\nAlready up to date\n\n> invoicer-web@0.7.0 postinstall /home/jules/src/invoicer-web\n> prisma generate\n\n\u2714 Generated Prisma Client (v5.14.0) to ./node_modules/@prisma/client in 91ms\n\nDone in 2.4s")
    s.keep("fact", "5.14.0")
    s.keep("fact", "v20.14.0")
    s.keep("error", "'creditNote' does not exist", id="e1")
    s.keep("fix", "prisma generate", fixes="e1")
    s.keep("decision", "postinstall")
    s.keep("preference", "never npm or yarn")
    return s


@session
def cmake_undefined_reference():
    s = Session("cmake-undefined-reference", "/home/wen/dev/raytracer", branch="feat/bvh", start="2025-10-09T20:47:12Z")
    s.user("I added src/bvh.cpp for the acceleration structure but the link step fails. Can you fix it?")
    s.bash("cmake --version", "cmake version 3.28.3\n\nCMake suite maintained and supported by Kitware (kitware.com/cmake).")
    s.bash("cmake --build build -j8", "[ 14%] Building CXX object CMakeFiles/rt.dir/src/scene.cpp.o\n[ 28%] Building CXX object CMakeFiles/rt.dir/src/mesh.cpp.o\n[ 85%] Linking CXX executable rt\n/usr/bin/ld: CMakeFiles/rt.dir/src/scene.cpp.o: in function `Scene::build()':\nscene.cpp:(.text+0x1c4): undefined reference to `BVH::BVH(std::vector<Triangle, std::allocator<Triangle> > const&)'\n/usr/bin/ld: scene.cpp:(.text+0x21f): undefined reference to `BVH::intersect(Ray const&, Hit&) const'\ncollect2: error: ld returned 1 exit status\ngmake[2]: *** [CMakeFiles/rt.dir/build.make:146: rt] Error 1\ngmake[1]: *** [CMakeFiles/Makefile2:83: CMakeFiles/rt.dir/all] Error 2\ngmake: *** [Makefile:91: all] Error 2", 2)
    s.read("CMakeLists.txt", "cmake_minimum_required(VERSION 3.20)\nproject(raytracer CXX)\n\nset(CMAKE_CXX_STANDARD 20)\n\nadd_executable(rt\n  src/main.cpp\n  src/scene.cpp\n  src/mesh.cpp\n)\n\nenable_testing()\nadd_subdirectory(tests)")
    s.say("bvh.cpp compiles fine on its own, but it isn't listed in `add_executable`, so its symbols never reach the linker. One option is `file(GLOB CONFIGURE_DEPENDS src/*.cpp)` so new files get picked up automatically.")
    s.user("No GLOB please, we list every source file explicitly in CMakeLists here. Just add it.")
    s.edit("CMakeLists.txt", "  src/mesh.cpp\n)", "  src/mesh.cpp\n  src/bvh.cpp\n)")
    s.bash("cmake --build build -j8", "-- Configuring done (0.1s)\n-- Generating done (0.0s)\n-- Build files have been written to: /home/wen/dev/raytracer/build\n[ 71%] Building CXX object CMakeFiles/rt.dir/src/bvh.cpp.o\n[ 85%] Linking CXX executable rt\n[100%] Built target rt")
    s.bash("./build/rt --scene scenes/bunny.json --out /tmp/bunny.png", "Loaded 69451 triangles\nBVH: 138901 nodes, max depth 31\nRendered 1920x1080 in 4.82s -> /tmp/bunny.png")
    s.bash("ctest --test-dir build --output-on-failure", "Test project /home/wen/dev/raytracer/build\n    Start 1: vec3_ops\n1/4 Test #1: vec3_ops .........................   Passed    0.01 sec\n    Start 2: triangle_intersect\n2/4 Test #2: triangle_intersect ...............   Passed    0.02 sec\n    Start 3: bvh_degenerate_triangles\n3/4 Test #3: bvh_degenerate_triangles .........***Failed    0.03 sec\ntest_bvh.cpp:58: FAILED:\n  REQUIRE( hit.has_value() )\nwith expansion:\n  false\n    Start 4: scene_load\n4/4 Test #4: scene_load .......................   Passed    0.05 sec\n\n75% tests passed, 1 tests failed out of 4\n\nTotal Test time (real) =   0.12 sec\n\nThe following tests FAILED:\n\t  3 - bvh_degenerate_triangles (Failed)\nErrors while running CTest", 8)
    s.say("The renderer links and the bunny renders in 4.8 s. One test still fails: `bvh_degenerate_triangles` expects a hit on a zero-area triangle. It might be worth turning on -fsanitize=address for debug builds at some point to rule out memory issues there, but I haven't changed anything.")
    s.user("That one's known, the bunny scan has zero-area tris and I'll handle it in a separate PR. Leave it.")
    s.keep("fact", "3.28.3")
    s.keep("error", "undefined reference", id="e1")
    s.keep("fix", "CMakeLists.txt", fixes="e1")
    s.keep("preference", "every source file explicitly")
    s.keep("error", "bvh_degenerate_triangles")
    return s


@session
def k8s_redis_port():
    s = Session("k8s-redis-port", "/home/ops/platform-charts", branch="main", start="2025-10-10T07:12:30Z")
    s.user("payments-worker on staging keeps restarting since this morning's deploy. Can you see what's wrong? The charts are in this repo.")
    s.bash("helm version", "version.BuildInfo{Version:\"v3.14.4\", GitCommit:\"81c902a123462fd4052bc5e9aa9c513c4c8fc142\", GitTreeState:\"clean\", GoVersion:\"go1.21.9\"}")
    s.bash("kubectl -n staging rollout status deploy/payments-worker --timeout=60s", "Waiting for deployment \"payments-worker\" rollout to finish: 0 of 2 updated replicas are available...\nerror: deployment \"payments-worker\" exceeded its progress deadline", 1)
    s.bash("kubectl -n staging get pods -l app=payments-worker", "NAME                               READY   STATUS             RESTARTS        AGE\npayments-worker-6d9f7c8b54-8xk2p   0/1     CrashLoopBackOff   14 (2m ago)     48m\npayments-worker-6d9f7c8b54-q7rzt   0/1     CrashLoopBackOff   14 (95s ago)    48m")
    s.bash("kubectl -n staging logs deploy/payments-worker --tail=5", "{\"level\":\"info\",\"ts\":\"2025-10-10T07:10:02Z\",\"msg\":\"starting payments-worker\",\"version\":\"2.31.0\"}\n{\"level\":\"fatal\",\"ts\":\"2025-10-10T07:10:03Z\",\"msg\":\"redis ping failed\",\"error\":\"dial tcp 10.43.120.8:6380: connect: connection refused\"}")
    s.bash("kubectl -n staging get svc redis-master", "NAME           TYPE        CLUSTER-IP    EXTERNAL-IP   PORT(S)    AGE\nredis-master   ClusterIP   10.43.120.8   <none>        6379/TCP   41d")
    s.bash("kubectl -n staging get secret payments-worker-env -o jsonpath='{.data.REDIS_URL}' | base64 -d", "redis://:Zq8#rT4mWv2@redis-master.staging.svc:6380/0")
    s.say("The worker dials Redis on port 6380, but the redis-master service only listens on 6379. The REDIS_URL secret is rendered by the chart, so the port comes from the chart values.")
    s.read("charts/payments-worker/values-staging.yaml", "replicaCount: 2\nimage:\n  tag: \"2.31.0\"\nredis:\n  host: redis-master.staging.svc\n  port: 6380\n  existingSecret: payments-worker-env")
    s.edit("charts/payments-worker/values-staging.yaml", "  port: 6380", "  port: 6379")
    s.bash("helm upgrade payments-worker charts/payments-worker -n staging -f charts/payments-worker/values-staging.yaml", "Release \"payments-worker\" has been upgraded. Happy Helming!\nNAME: payments-worker\nLAST DEPLOYED: Fri Oct 10 07:19:44 2025\nNAMESPACE: staging\nSTATUS: deployed\nREVISION: 38\nTEST SUITE: None")
    s.bash("kubectl -n staging rollout status deploy/payments-worker --timeout=120s", "Waiting for deployment \"payments-worker\" rollout to finish: 1 of 2 updated replicas are available...\ndeployment \"payments-worker\" successfully rolled out")
    s.say("Rolled out: both pods are up and connected to Redis on 6379. The staging values had port 6380.")
    s.user("Good catch. But please never decode secrets into the terminal again, these session logs end up in our shared notes. Checking the key names with kubectl describe secret is enough.")
    s.say("Understood. I'll only look at key names from now on.")
    s.keep("fact", "v3.14.4")
    s.keep("error", "progress deadline", id="e1")
    s.keep("fix", "values-staging.yaml", fixes="e1")
    s.keep("fact", "6379")
    s.keep("preference", "never decode secrets")
    s.never("Zq8#rT4mWv2")
    return s


@session
def poetry_lock_drift():
    s = Session("poetry-lock-drift", "/home/amara/work/library-loans", branch="chore/bump-django-filter", start="2025-10-13T13:25:09Z")
    s.command("/clear", "")
    s.user("I bumped django-filter in pyproject.toml and now poetry install refuses to run.")
    s.bash("poetry --version", "Poetry (version 1.8.3)")
    s.bash("poetry install", "Installing dependencies from lock file\n\npyproject.toml changed significantly since poetry.lock was last generated. Run `poetry lock [--no-update]` to fix the lock file.", 1)
    s.bash("poetry lock --no-update", "Resolving dependencies... (3.1s)\n\nWriting lock file")
    s.bash("poetry install", "Installing dependencies from lock file\n\nPackage operations: 0 installs, 1 update, 0 removals\n\n  - Updating django-filter (23.5 -> 24.2)\n\nInstalling the current project: library-loans (0.9.0)")
    s.read("pyproject.toml", "[tool.poetry.dependencies]\npython = \"^3.12\"\ndjango = \"^5.0\"\ndjango-filter = \"24.2\"\ndjangorestframework = \"^3.15\"")
    s.bash("python manage.py test loans", "Found 23 test(s).\nCreating test database for alias 'default'...\nSystem check identified no issues (0 silenced).\n.........F.............\n======================================================================\nFAIL: test_overdue_filter (loans.tests.test_filters.LoanFilterTests.test_overdue_filter)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/home/amara/work/library-loans/loans/tests/test_filters.py\", line 47, in test_overdue_filter\n    self.assertEqual(resp.json()[\"count\"], 2)\nAssertionError: 3 != 2\n\n----------------------------------------------------------------------\nRan 23 tests in 1.204s\n\nFAILED (failures=1)\nDestroying test database for alias 'default'...", 1)
    s.grep("overdue", "loans/filters.py", "loans/filters.py:18:    overdue = django_filters.BooleanFilter(method=\"filter_overdue\")\nloans/filters.py:31:        return queryset.filter(due_date__lt=timezone.now()) if value else queryset")
    s.bash("grep -rn \"USE_TZ\" config/settings/", "", 1)
    s.say("The overdue filter compares `due_date`, a DateField, with `timezone.now()`, a datetime. That might be why a loan due today counts as overdue, or the fixture might simply have changed; I haven't confirmed either. USE_TZ isn't set explicitly anywhere in settings, so Django's default applies.")
    s.user("Let's not chase it today, Kemi and I will pair on it tomorrow. Just commit the lock. Our commits follow Conventional Commits, by the way.")
    s.bash("git add pyproject.toml poetry.lock && git commit -m 'chore(deps): bump django-filter to 24.2'", "[chore/bump-django-filter 3e9a7b1] chore(deps): bump django-filter to 24.2\n 2 files changed, 14 insertions(+), 14 deletions(-)")
    s.say("Committed the pyproject and lock changes. test_overdue_filter is still failing and left for tomorrow.")
    s.keep("fact", "1.8.3")
    s.keep("error", "changed significantly", id="e1")
    s.keep("fix", "poetry lock --no-update", fixes="e1")
    s.keep("fact", "24.2")
    s.keep("error", "test_overdue_filter")
    s.keep("preference", "Conventional Commits")
    return s


@session
def rust_storage_spike():
    s = Session("rust-storage-spike", "/home/oskar/code/notedown", branch="spike/index", start="2025-10-14T18:05:44Z")
    s.user("I want notedown to keep an index of notes so `notedown search` doesn't re-read every markdown file. What should back it?")
    s.bash("rustc --version && cargo --version", "rustc 1.79.0 (129f3b996 2024-06-10)\ncargo 1.79.0 (ffa9cf99a 2024-06-03)")
    s.say("I'd lean towards sled: pure Rust, embedded, no C toolchain involved, and a simple ordered key-value API that fits a note index.")
    s.user("sled has been in beta forever and its on-disk format keeps changing, I'd rather not. What about SQLite?")
    s.say("SQLite fits well too: rusqlite with the `bundled` feature compiles SQLite into the binary, so users don't need a system libsqlite, and FTS5 is there if we want real full-text search later.")
    s.user("OK, rusqlite with bundled it is. Pin the exact version so upgrades are deliberate.")
    s.bash("cargo add -p notedown-core rusqlite@=0.31.0 --features bundled", "    Updating crates.io index\n      Adding rusqlite =0.31.0 to dependencies\n             Features:\n             + bundled\n             - array\n             - backup\n             - blob\n             - chrono\n    Updating crates.io index\n     Locking 7 packages to latest compatible versions\n      Adding hashlink v0.9.1\n      Adding libsqlite3-sys v0.28.0")
    s.write("crates/notedown-core/src/store.rs", "use rusqlite::{params, Connection};\n\nuse crate::{Error, Note, NoteId};\n\npub struct Store {\n    conn: Connection,\n}\n\nimpl Store {\n    pub fn put(&self, note: &Note) -> Result<NoteId, Error> {\n        let id = note.id.clone();\n        self.conn.execute(\n            \"INSERT OR REPLACE INTO notes (id, title, body) VALUES (?1, ?2, ?3)\",\n            params![id.0, note.title, note.body],\n        )?;\n        Ok(id)\n    }\n}")
    s.bash("cargo clippy --workspace -- -D warnings", "    Checking notedown-core v0.2.0 (/home/oskar/code/notedown/crates/notedown-core)\nerror: using `clone` on type `NoteId` which implements the `Copy` trait\n  --> crates/notedown-core/src/store.rs:11:18\n   |\n11 |         let id = note.id.clone();\n   |                  ^^^^^^^^^^^^^^^ help: try removing the `clone` call: `note.id`\n   |\n   = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#clone_on_copy\n   = note: `-D clippy::clone-on-copy` implied by `-D warnings`\n   = help: to override `-D warnings` add `#[allow(clippy::clone_on_copy)]`\n\nerror: could not compile `notedown-core` (lib) due to 1 previous error", 101)
    s.edit("crates/notedown-core/src/store.rs", "        let id = note.id.clone();", "        let id = note.id;")
    s.bash("cargo clippy --workspace -- -D warnings", "    Checking notedown-core v0.2.0 (/home/oskar/code/notedown/crates/notedown-core)\n    Checking notedown v0.2.0 (/home/oskar/code/notedown)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 6.21s")
    s.user("For this spike don't bother with tests, I just want to see the shape. Would WAL mode matter for us?")
    s.say("Probably not much. WAL mainly helps when readers run concurrently with a writer; notedown is a single-process CLI that opens the database, does one thing, and exits. If a background indexer ever shows up it would be worth switching on.")
    s.user("Fine. And in general: anyhow in the binary, thiserror in the library crate. Please stick to that.")
    s.bash("grep -rn \"anyhow\" crates/notedown-core/src", "", 1)
    s.say("The core crate doesn't use anyhow anywhere; its errors go through the thiserror-derived `Error` enum.")
    s.keep("fact", "1.79.0")
    s.keep("decision", "rusqlite")
    s.keep("fact", "0.31.0")
    s.keep("error", "clone_on_copy", id="e1")
    s.keep("fix", "store.rs", fixes="e1")
    s.keep("preference", "thiserror")
    return s


@session
def laravel_stripe_checkout():
    s = Session("laravel-stripe-checkout", "/home/leila/sites/shopwise", branch="feat/stripe-checkout", start="2025-10-15T11:31:20Z")
    s.user("Hook the cart up to Stripe Checkout, using the official stripe-php SDK rather than Cashier.")
    s.bash("php -v", "PHP 8.3.7 (cli) (built: May 10 2024 08:45:16) (NTS)\nCopyright (c) The PHP Group\nZend Engine v4.3.7, Copyright (c) Zend Technologies\n    with Zend OPcache v8.3.7, Copyright (c), by Zend Technologies")
    s.edit("app/Http/Controllers/CartController.php", "class CartController extends Controller\n{", "use Stripe\\StripeClient;\n\nclass CartController extends Controller\n{\n    public function __construct(private StripeClient $stripe) {}\n\n    public function checkout(Request $request)\n    {\n        $cart = $request->user()->cart()->with('items.product')->firstOrFail();\n        $session = $this->stripe->checkout->sessions->create([\n            'mode' => 'payment',\n            'line_items' => $cart->toStripeLineItems(),\n            'success_url' => route('orders.thanks'),\n            'cancel_url' => route('cart.show'),\n        ]);\n\n        return redirect()->away($session->url);\n    }")
    s.bash("php artisan test --filter=CheckoutTest", "\n   FAIL  Tests\\Feature\\CheckoutTest\n  \u2a2f it redirects to stripe checkout                                       0.14s\n  \u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\n   FAILED  Tests\\Feature\\CheckoutTest > it redirects to stripe checkout\n   Illuminate\\Contracts\\Container\\BindingResolutionException\n\n  Target class [Stripe\\StripeClient] does not exist.\n\n  Tests:    1 failed (0 assertions)\n  Duration: 0.29s", 1)
    s.grep("stripe", "composer.json", "")
    s.say("composer.json has no stripe package, so the class the controller asks for doesn't exist. Installing the SDK at an exact version.")
    s.bash("composer require stripe/stripe-php:14.9.0", "./composer.json has been updated\nRunning composer update stripe/stripe-php\nLoading composer repositories with package information\nUpdating dependencies\nLock file operations: 1 install, 0 updates, 0 removals\n  - Locking stripe/stripe-php (v14.9.0)\nWriting lock file\nInstalling dependencies from lock file (including require-dev)\nPackage operations: 1 install, 0 updates, 0 removals\n  - Installing stripe/stripe-php (v14.9.0): Extracting archive\nGenerating optimized autoload files\n> Illuminate\\Foundation\\ComposerScripts::postAutoloadDump\n> @php artisan package:discover --ansi\nNo security vulnerability advisories found.")
    s.bash("php artisan test --filter=CheckoutTest", "\n   FAIL  Tests\\Feature\\CheckoutTest\n  \u2a2f it redirects to stripe checkout                                       0.31s\n   FAILED  Tests\\Feature\\CheckoutTest > it redirects to stripe checkout\n   Stripe\\Exception\\AuthenticationException\n\n  You did not provide an API key. You need to set your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').\n\n  Tests:    1 failed (0 assertions)\n  Duration: 0.52s", 1)
    s.say("The test now tries to reach Stripe for real. To keep tests offline we can either run stripe-mock as a service in CI, or swap `StripeClient` for a mock through Laravel's container inside the test.")
    s.user("Mock it in tests. I don't want CI depending on yet another docker image.")
    s.edit("tests/Feature/CheckoutTest.php", "    $user = User::factory()->withCart()->create();", "    $stripe = Mockery::mock(StripeClient::class);\n    $stripe->checkout = (object) ['sessions' => Mockery::mock(['create' => (object) ['url' => 'https://checkout.stripe.com/c/pay/cs_test_a1']])];\n    $this->instance(StripeClient::class, $stripe);\n\n    $user = User::factory()->withCart()->create();")
    s.bash("php artisan test --filter=CheckoutTest", "\n   PASS  Tests\\Feature\\CheckoutTest\n  \u2713 it redirects to stripe checkout                                       0.09s\n\n  Tests:    1 passed (3 assertions)\n  Duration: 0.31s")
    s.user("Nice. Standing rule for this app: controllers stay thin, anything past validation goes into an Action class under app/Actions. Can you move the session creation there?")
    s.write("app/Actions/CreateCheckoutSession.php", "<?php\n\nnamespace App\\Actions;\n\nuse App\\Models\\Cart;\nuse Stripe\\StripeClient;\n\nclass CreateCheckoutSession\n{\n    public function __construct(private StripeClient $stripe) {}\n\n    public function __invoke(Cart $cart): string\n    {\n        return $this->stripe->checkout->sessions->create([\n            'mode' => 'payment',\n            'line_items' => $cart->toStripeLineItems(),\n            'success_url' => route('orders.thanks'),\n            'cancel_url' => route('cart.show'),\n        ])->url;\n    }\n}")
    s.bash("php artisan test", "\n  Tests:    48 passed (131 assertions)\n  Duration: 2.87s")
    s.keep("fact", "PHP 8.3.7")
    s.keep("error", "BindingResolutionException", id="e1")
    s.keep("fix", "stripe/stripe-php", fixes="e1")
    s.keep("fact", "14.9.0")
    s.keep("error", "AuthenticationException", id="e2")
    s.keep("fix", "CheckoutTest.php", fixes="e2")
    s.keep("decision", "Mock it in tests")
    s.keep("preference", "controllers stay thin")
    return s


@session
def dotnet_resilience():
    s = Session("dotnet-resilience", "/home/sven/src/WeatherRelay", branch="feat/upstream-retries", start="2025-10-16T08:50:00Z")
    s.user("The upstream forecast API times out every so often and we pass a 500 straight through to clients. Add retries with backoff to the ForecastClient HttpClient.")
    s.bash("dotnet --version", "8.0.303")
    s.read("src/WeatherRelay/Program.cs", "var builder = WebApplication.CreateBuilder(args);\n\nbuilder.Services.AddHttpClient<ForecastClient>(c =>\n{\n    c.BaseAddress = new Uri(builder.Configuration[\"Forecast:BaseUrl\"]!);\n});\n\nvar app = builder.Build();\napp.MapGet(\"/healthz\", () => \"Healthy\");\napp.MapForecastEndpoints();\napp.Run();")
    s.say("Two routes: a hand-written retry loop inside ForecastClient, or the standard resilience handler from Microsoft.Extensions.Http.Resilience (Polly v8 underneath), which adds retry with exponential backoff and jitter, a circuit breaker and timeouts in one call. I'd go with the handler.")
    s.user("Agreed, use the standard resilience handler. The platform team already runs it in three services, so our dashboards understand its metrics.")
    s.edit("src/WeatherRelay/Program.cs", "    c.BaseAddress = new Uri(builder.Configuration[\"Forecast:BaseUrl\"]!);\n});", "    c.BaseAddress = new Uri(builder.Configuration[\"Forecast:BaseUrl\"]!);\n})\n.AddStandardResilienceHandler();")
    s.bash("dotnet build", "  Determining projects to restore...\n  All projects are up-to-date for restore.\n/home/sven/src/WeatherRelay/src/WeatherRelay/Program.cs(7,2): error CS1061: 'IHttpClientBuilder' does not contain a definition for 'AddStandardResilienceHandler' and no accessible extension method 'AddStandardResilienceHandler' accepting a first argument of type 'IHttpClientBuilder' could be found (are you missing a using directive or an assembly reference?) [/home/sven/src/WeatherRelay/src/WeatherRelay/WeatherRelay.csproj]\n\nBuild FAILED.\n\n    0 Warning(s)\n    1 Error(s)\n\nTime Elapsed 00:00:03.18", 1)
    s.say("The extension method lives in the Microsoft.Extensions.Http.Resilience package, which the project doesn't reference yet.")
    s.bash("dotnet add src/WeatherRelay package Microsoft.Extensions.Http.Resilience --version 8.7.0", "  Determining projects to restore...\ninfo : Adding PackageReference for package 'Microsoft.Extensions.Http.Resilience' into project '/home/sven/src/WeatherRelay/src/WeatherRelay/WeatherRelay.csproj'.\ninfo : Restoring packages for /home/sven/src/WeatherRelay/src/WeatherRelay/WeatherRelay.csproj...\ninfo : Package 'Microsoft.Extensions.Http.Resilience' is compatible with all the specified frameworks in project '/home/sven/src/WeatherRelay/src/WeatherRelay/WeatherRelay.csproj'.\ninfo : PackageReference for package 'Microsoft.Extensions.Http.Resilience' version '8.7.0' added to file '/home/sven/src/WeatherRelay/src/WeatherRelay/WeatherRelay.csproj'.\ninfo : Writing assets file to disk. Path: /home/sven/src/WeatherRelay/src/WeatherRelay/obj/project.assets.json\nlog  : Restored /home/sven/src/WeatherRelay/src/WeatherRelay/WeatherRelay.csproj (in 1.21 sec).")
    s.bash("dotnet build && dotnet test --no-build", "Build succeeded.\n    0 Warning(s)\n    0 Error(s)\n\nTime Elapsed 00:00:04.02\nTest run for /home/sven/src/WeatherRelay/tests/WeatherRelay.Tests/bin/Debug/net8.0/WeatherRelay.Tests.dll (.NETCoreApp,Version=v8.0)\nStarting test execution, please wait...\n\nPassed!  - Failed:     0, Passed:    23, Skipped:     0, Total:    23, Duration: 1 s - WeatherRelay.Tests.dll (net8.0)")
    s.bash("dotnet run --project src/WeatherRelay > /tmp/relay.log 2>&1 & sleep 6; cat /tmp/relay.log; curl -s localhost:5180/healthz", "info: Microsoft.Hosting.Lifetime[14]\n      Now listening on: http://localhost:5180\ninfo: Microsoft.Hosting.Lifetime[0]\n      Application started. Press Ctrl+C to shut down.\ninfo: Microsoft.Hosting.Lifetime[0]\n      Hosting environment: Development\nHealthy")
    s.say("ForecastClient now goes through the standard resilience pipeline, and the service still comes up on port 5180. It might also be worth tuning the per-attempt timeout later, since the forecast endpoint's p99 sits close to the default, but I've left the defaults alone.")
    s.user("Let's see how it behaves in staging first.")
    s.keep("fact", "8.0.303")
    s.keep("decision", "standard resilience handler")
    s.keep("error", "CS1061", id="e1")
    s.keep("fix", "dotnet add", fixes="e1")
    s.keep("fact", "8.7.0")
    s.keep("fact", "5180")
    return s


@session
def nginx_grafana_subpath():
    s = Session("nginx-grafana-subpath", "/srv/edge", branch="main", start="2025-10-20T16:40:31Z")
    s.user("Expose Grafana on the edge box under https://ops.halden.io/grafana/. Grafana is already running locally.")
    s.bash("nginx -v", "nginx version: nginx/1.24.0 (Ubuntu)")
    s.write("snippets/grafana-location.conf", "location /grafana/ {\n    proxy_pass http://127.0.0.1:3000;\n    proxy_set_headers Host $host;\n    proxy_http_version 1.1;\n    proxy_set_header Upgrade $http_upgrade;\n    proxy_set_header Connection $connection_upgrade;\n}")
    s.edit("sites/ops.halden.io.conf", "    include snippets/tls.conf;", "    include snippets/tls.conf;\n    include /srv/edge/snippets/grafana-location.conf;")
    s.bash("sudo nginx -t", "nginx: [emerg] unknown directive \"proxy_set_headers\" in /srv/edge/snippets/grafana-location.conf:3\nnginx: configuration file /etc/nginx/nginx.conf test failed", 1)
    s.say("Typo on my side: the directive is `proxy_set_header`, singular.")
    s.edit("snippets/grafana-location.conf", "    proxy_set_headers Host $host;", "    proxy_set_header Host $host;")
    s.bash("sudo nginx -t && sudo systemctl reload nginx", "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nnginx: configuration file /etc/nginx/nginx.conf test is successful")
    s.bash("curl -fsS -o /dev/null -w '%{http_code}\\n' https://ops.halden.io/grafana/", "curl: (22) The requested URL returned error: 502", 22)
    s.bash("sudo tail -n 2 /var/log/nginx/error.log", "2025/10/20 16:44:02 [error] 81723#81723: *5521 connect() failed (111: Connection refused) while connecting to upstream, client: 10.0.4.18, server: ops.halden.io, request: \"GET /grafana/ HTTP/2.0\", upstream: \"http://127.0.0.1:3000/grafana/\", host: \"ops.halden.io\"")
    s.bash("sudo ss -ltnp | grep grafana", "LISTEN 0      4096       127.0.0.1:3001       0.0.0.0:*    users:((\"grafana\",pid=1187,fd=11))")
    s.say("Grafana on this box listens on 3001, not the default 3000, so nginx's upstream is refusing connections. Pointing the proxy at the right port.")
    s.edit("snippets/grafana-location.conf", "    proxy_pass http://127.0.0.1:3000;", "    proxy_pass http://127.0.0.1:3001;")
    s.bash("sudo nginx -t && sudo systemctl reload nginx && curl -fsS -o /dev/null -w '%{http_code}\\n' https://ops.halden.io/grafana/", "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nnginx: configuration file /etc/nginx/nginx.conf test is successful\n200")
    s.say("/grafana/ answers 200 now. If Grafana's own links still point at `/` rather than `/grafana/`, root_url and serve_from_sub_path in grafana.ini may need setting; I haven't touched grafana.ini.")
    s.user("Looks fine so far. Remember that on this box we reload nginx, never restart it; a restart drops every open websocket for the trading UI.")
    s.keep("fact", "nginx/1.24.0")
    s.keep("error", "unknown directive", id="e1")
    s.keep("fix", "grafana-location.conf", fixes="e1")
    s.keep("error", "returned error: 502", id="e2")
    s.keep("fix", "127.0.0.1:3001", fixes="e2")
    s.keep("fact", "3001")
    s.keep("preference", "never restart it")
    return s


@session
def terraform_aws_v5():
    s = Session("terraform-aws-v5", "/home/ren/infra/aws-core", branch="chore/aws-provider-v5", start="2025-10-22T09:07:48Z")
    s.user("Move the aws-core stack to AWS provider v5 and get me a clean plan. Only the prod-network workspace this time, skip staging.")
    s.bash("terraform version", "Terraform v1.8.5\non linux_amd64")
    s.read("versions.tf", "terraform {\n  required_version = \">= 1.6\"\n\n  required_providers {\n    aws = {\n      source  = \"hashicorp/aws\"\n      version = \"~> 4.67\"\n    }\n  }\n}")
    s.say("Do you want an exact pin like `5.54.1`, or a pessimistic `~> 5.54` constraint?")
    s.user("Exact pin. Renovate opens the bump PRs anyway, and I want plans to be reproducible.")
    s.edit("versions.tf", "      version = \"~> 4.67\"", "      version = \"5.54.1\"")
    s.bash("terraform workspace select prod-network && terraform plan", "\u2577\n\u2502 Error: Inconsistent dependency lock file\n\u2502 \n\u2502 The following dependency selections recorded in the lock file are inconsistent with the current configuration:\n\u2502   - provider registry.terraform.io/hashicorp/aws: locked version selection 4.67.0 doesn't match the updated version constraints \"5.54.1\"\n\u2502 \n\u2502 To update the locked dependency selections to match a changed configuration, run:\n\u2502   terraform init -upgrade\n\u2575", 1)
    s.bash("terraform init -upgrade", "Initializing the backend...\n\nInitializing provider plugins...\n- Finding hashicorp/aws versions matching \"5.54.1\"...\n- Installing hashicorp/aws v5.54.1...\n- Installed hashicorp/aws v5.54.1 (signed by HashiCorp)\n\nTerraform has made some changes to the provider dependency selections recorded\nin the .terraform.lock.hcl file. Review those changes and commit them to your\nversion control system if they represent changes you intended to make.\n\nTerraform has been successfully initialized!")
    s.bash("terraform plan", "\u2577\n\u2502 Error: Unsupported argument\n\u2502 \n\u2502   on rds.tf line 12, in resource \"aws_db_instance\" \"ledger\":\n\u2502   12:   name                 = \"ledger\"\n\u2502 \n\u2502 An argument named \"name\" is not expected here.\n\u2575", 1)
    s.say("Provider v5 removed the `name` argument of `aws_db_instance`; the database name is `db_name` now. Same value, so it shouldn't force a replacement.")
    s.edit("rds.tf", "  name                 = \"ledger\"", "  db_name              = \"ledger\"")
    s.bash("terraform plan -out=prod-network.tfplan", "aws_vpc.main: Refreshing state... [id=vpc-0a4c2e9d81f3b7765]\naws_db_instance.ledger: Refreshing state... [id=db-ledger-prod]\n\nTerraform will perform the following actions:\n\n  # aws_db_instance.ledger will be updated in-place\n  ~ resource \"aws_db_instance\" \"ledger\" {\n        id      = \"db-ledger-prod\"\n      + db_name = \"ledger\"\n        # (41 unchanged attributes hidden)\n    }\n\nPlan: 0 to add, 3 to change, 0 to destroy.\n\nSaved the plan to: prod-network.tfplan")
    s.user("Looks sane. Don't apply it: we never apply from laptops, everything goes through Atlantis on the PR.")
    s.say("Won't apply. The saved plan and the updated .terraform.lock.hcl are ready to go into the PR for Atlantis.")
    s.keep("fact", "v1.8.5")
    s.keep("decision", "Exact pin")
    s.keep("fact", "5.54.1")
    s.keep("error", "Inconsistent dependency lock file", id="e1")
    s.keep("fix", "terraform init -upgrade", fixes="e1")
    s.keep("error", "Unsupported argument", id="e2")
    s.keep("fix", "db_name", fixes="e2")
    s.keep("preference", "never apply from laptops")
    return s
