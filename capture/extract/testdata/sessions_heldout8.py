# Held-out sessions, set 8 (read by gen.py: python3 gen.py heldout8).
# Written blind on 2026-11-28 by a helper that read only gen.py and
# sessions.py, not the extractor nor any other session set. Stacks covered:
# Spark with Scala (sbt), Kafka consumers in Java (Maven), a TypeScript
# monorepo with pnpm and Turborepo, a Swift server with Vapor and Fluent,
# Godot 4 with GDScript (GUT tests), Perl maintenance scripts, Fortran
# numerical code built with CMake, Azure Bicep, a Manifest V3 Chrome
# extension, gRPC in Python (grpc.aio), Jupyter notebooks turned into a
# package (resumed session), and a Zig command-line tool. Users include one
# who pastes long logs, a team lead setting team rules, terse lower-case
# typists and non-native English speakers.


@session
def spark_scala_cluster_linkage():
    s = Session("spark-scala-cluster-linkage", "/home/tomasz/dev/clickstream-jobs", branch="feature/sessionize",
                start="2026-03-04T10:12:00Z", version="2.0.31")
    s.user("""job dies on the cluster right after startup, works fine in local[*] from sbt. driver log:

26/03/04 10:02:11 INFO SparkContext: Running Spark version 3.5.1
26/03/04 10:02:11 INFO SparkContext: OS info Linux, 5.15.0-1057-azure, amd64
26/03/04 10:02:11 INFO SparkContext: Java version 17.0.10
26/03/04 10:02:12 INFO ResourceUtils: ==============================================================
26/03/04 10:02:12 INFO ResourceUtils: No custom resources configured for spark.driver.
26/03/04 10:02:12 INFO ResourceUtils: ==============================================================
26/03/04 10:02:12 INFO SparkContext: Submitted application: Sessionize
26/03/04 10:02:13 INFO Utils: Successfully started service 'sparkDriver' on port 40415.
26/03/04 10:02:14 INFO SparkEnv: Registering MapOutputTracker
26/03/04 10:02:14 INFO SparkEnv: Registering BlockManagerMaster
26/03/04 10:02:14 INFO DiskBlockManager: Created local directory at /tmp/blockmgr-5f0b7c1e-2a4d-4e61-9c3f-8d1a7b2e6f90
26/03/04 10:02:15 INFO Utils: Successfully started service 'SparkUI' on port 4040.
26/03/04 10:02:15 INFO SparkContext: Added JAR file:/opt/jobs/clickstream-jobs-assembly-0.4.0.jar at spark://10.0.3.17:40415/jars/clickstream-jobs-assembly-0.4.0.jar with timestamp 1772618535902
26/03/04 10:02:16 INFO Executor: Starting executor ID driver on host 10.0.3.17
26/03/04 10:02:17 INFO SharedState: Setting hive.metastore.warehouse.dir ('null') to the value of spark.sql.warehouse.dir.
Exception in thread "main" java.lang.NoSuchMethodError: 'scala.collection.immutable.ArraySeq scala.runtime.ScalaRunTime$.wrapRefArray(java.lang.Object[])'
	at com.acme.clickstream.Sessionize$.main(Sessionize.scala:23)
	at com.acme.clickstream.Sessionize.main(Sessionize.scala)
	at java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)
	at java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke(NativeMethodAccessorImpl.java:77)
	at java.base/jdk.internal.reflect.DelegatingMethodAccessorImpl.invoke(DelegatingMethodAccessorImpl.java:43)
	at java.base/java.lang.reflect.Method.invoke(Method.java:568)
	at org.apache.spark.deploy.JavaMainApplication.start(SparkApplication.scala:52)
	at org.apache.spark.deploy.SparkSubmit.org$apache$spark$deploy$SparkSubmit$$runMain(SparkSubmit.scala:1029)
	at org.apache.spark.deploy.SparkSubmit.doRunMain$1(SparkSubmit.scala:194)
	at org.apache.spark.deploy.SparkSubmit.submit(SparkSubmit.scala:217)
	at org.apache.spark.deploy.SparkSubmit.doSubmit(SparkSubmit.scala:91)
	at org.apache.spark.deploy.SparkSubmit$$anon$2.doSubmit(SparkSubmit.scala:1120)
	at org.apache.spark.deploy.SparkSubmit$.main(SparkSubmit.scala:1129)
	at org.apache.spark.deploy.SparkSubmit.main(SparkSubmit.scala)
26/03/04 10:02:17 INFO SparkContext: Invoking stop() from shutdown hook
26/03/04 10:02:17 INFO SparkUI: Stopped Spark web UI at http://10.0.3.17:4040
26/03/04 10:02:18 INFO MemoryStore: MemoryStore cleared
26/03/04 10:02:18 INFO ShutdownHookManager: Shutdown hook called""")
    s.read("build.sbt", "ThisBuild / scalaVersion := \"2.13.12\"\nThisBuild / organization := \"com.acme\"\nThisBuild / version := \"0.4.0\"\n\nlazy val root = (project in file(\".\"))\n  .settings(\n    name := \"clickstream-jobs\",\n    libraryDependencies ++= Seq(\n      \"org.apache.spark\" %% \"spark-sql\" % \"3.5.1\",\n      \"org.scalatest\" %% \"scalatest\" % \"3.2.18\" % Test\n    )\n  )")
    s.say("A `wrapRefArray` that returns `ArraySeq` is the Scala 2.13 signature; on 2.12 it returns `WrappedArray`. So the jar was compiled for 2.13 and the cluster's Spark is running on a 2.12 runtime. Let me confirm what the cluster ships.")
    s.bash("ssh edge01.dp.internal 'ls /opt/spark/jars | grep -E \"^(scala-library|spark-core)\"'",
           "scala-library-2.12.18.jar\nspark-core_2.12-3.5.1.jar")
    s.say("Confirmed: the cluster runs the Scala 2.12 build of Spark 3.5.1 (scala-library 2.12.18). Locally it worked because sbt put the 2.13 spark-sql on the classpath. I'll make the build target 2.12.18.")
    s.edit("build.sbt", "ThisBuild / scalaVersion := \"2.13.12\"", "ThisBuild / scalaVersion := \"2.12.18\"")
    s.bash("sbt -batch clean assembly", "[info] welcome to sbt 1.9.9 (Eclipse Adoptium Java 17.0.10)\n[info] loading settings for project clickstream-jobs-build from plugins.sbt ...\n[info] loading project definition from /home/tomasz/dev/clickstream-jobs/project\n[info] loading settings for project root from build.sbt ...\n[info] set current project to clickstream-jobs (in build file:/home/tomasz/dev/clickstream-jobs/)\n[success] Total time: 0 s, completed Mar 4, 2026, 10:21:31 AM\n[info] compiling 4 Scala sources to /home/tomasz/dev/clickstream-jobs/target/scala-2.12/classes ...\n[error] /home/tomasz/dev/clickstream-jobs/src/main/scala/com/acme/clickstream/Sessionize.scala:5:14: object jdk is not a member of package scala\n[error] import scala.jdk.CollectionConverters._\n[error]              ^\n[error] /home/tomasz/dev/clickstream-jobs/src/main/scala/com/acme/clickstream/Sessionize.scala:31:52: value asScala is not a member of java.util.List[String]\n[error]     val excluded = conf.getStringList(\"exclude\").asScala.toSet\n[error]                                                    ^\n[error] two errors found\n[error] (Compile / compileIncremental) Compilation failed\n[error] Total time: 11 s, completed Mar 4, 2026, 10:21:42 AM", 1)
    s.say("`scala.jdk.CollectionConverters` only exists from 2.13 on, and the second error follows from the first. Two ways out: add `scala-collection-compat`, which backports that package to 2.12, or switch the import to `scala.collection.JavaConverters._`, which 2.12 has (it's only deprecated on 2.13).")
    s.user("dont add the compat lib. we stay on 2.12 until the platform team moves the cluster, so JavaConverters is fine")
    s.edit("src/main/scala/com/acme/clickstream/Sessionize.scala", "import scala.jdk.CollectionConverters._", "import scala.collection.JavaConverters._")
    s.bash("sbt -batch clean assembly", "[info] welcome to sbt 1.9.9 (Eclipse Adoptium Java 17.0.10)\n[info] loading settings for project clickstream-jobs-build from plugins.sbt ...\n[info] loading project definition from /home/tomasz/dev/clickstream-jobs/project\n[info] loading settings for project root from build.sbt ...\n[info] set current project to clickstream-jobs (in build file:/home/tomasz/dev/clickstream-jobs/)\n[success] Total time: 0 s, completed Mar 4, 2026, 10:24:05 AM\n[info] compiling 4 Scala sources to /home/tomasz/dev/clickstream-jobs/target/scala-2.12/classes ...\n[info] Strategy 'discard' was applied to 418 files (Run the task at debug level to see details)\n[info] Strategy 'first' was applied to 3 files (Run the task at debug level to see details)\n[info] Built: /home/tomasz/dev/clickstream-jobs/target/scala-2.12/clickstream-jobs-assembly-0.4.0.jar\n[info] Jar hash: 7c1d09e4a3f2b5e86d0c9a1b2e3f4a5b6c7d8e9f\n[success] Total time: 52 s, completed Mar 4, 2026, 10:24:57 AM")
    s.bash("ls -lh target/scala-2.12/*.jar", "-rw-r--r-- 1 tomasz tomasz 187M Mar  4 10:24 target/scala-2.12/clickstream-jobs-assembly-0.4.0.jar")
    s.say("It compiles against 2.12 now. The assembly is 187 MB though, which means spark-sql and all of its transitive dependencies are inside the jar.")
    s.user("ugh yes. spark stuff goes in as provided, the cluster has its own copy and we've been bitten by two jacksons on the classpath before. same for every job in this repo")
    s.edit("build.sbt", "      \"org.apache.spark\" %% \"spark-sql\" % \"3.5.1\",", "      \"org.apache.spark\" %% \"spark-sql\" % \"3.5.1\" % \"provided\",")
    s.bash("sbt -batch clean assembly test && ls -lh target/scala-2.12/*.jar", "[info] welcome to sbt 1.9.9 (Eclipse Adoptium Java 17.0.10)\n[info] loading project definition from /home/tomasz/dev/clickstream-jobs/project\n[info] set current project to clickstream-jobs (in build file:/home/tomasz/dev/clickstream-jobs/)\n[info] compiling 4 Scala sources to /home/tomasz/dev/clickstream-jobs/target/scala-2.12/classes ...\n[info] Built: /home/tomasz/dev/clickstream-jobs/target/scala-2.12/clickstream-jobs-assembly-0.4.0.jar\n[info] Jar hash: 0b5e2c7a9d14f3e6b8a2c1d0e9f8a7b6c5d4e3f2\n[info] compiling 1 Scala source to /home/tomasz/dev/clickstream-jobs/target/scala-2.12/test-classes ...\n[info] SessionizeSpec:\n[info] sessionize\n[info] - should split sessions after 30 minutes of inactivity\n[info] - should keep the events of one user in order\n[info] - should drop bot user agents\n[info] Run completed in 7 seconds, 208 milliseconds.\n[info] Total number of tests run: 3\n[info] Suites: completed 1, aborted 0\n[info] Tests: succeeded 3, failed 0, canceled 0, ignored 0, pending 0\n[info] All tests passed.\n[success] Total time: 39 s, completed Mar 4, 2026, 10:27:40 AM\n-rw-r--r-- 1 tomasz tomasz 9.4M Mar  4 10:27 target/scala-2.12/clickstream-jobs-assembly-0.4.0.jar")
    s.say("Done: the build targets Scala 2.12.18, spark-sql is `provided`, the assembly dropped from 187 MB to 9.4 MB and the 3 tests pass. At some point Spark 4.0 might be worth a look since it's 2.13-only, but that's the platform team's call, not something for this job.")
    s.user("ok ill resubmit it. thx")
    s.keep("error", "NoSuchMethodError", id="e1")
    s.keep("fix", "2.12.18", fixes="e1")
    s.keep("fact", "3.5.1")
    s.keep("error", "object jdk is not a member", id="e2")
    s.keep("fix", "JavaConverters", fixes="e2")
    s.keep("decision", "stay on 2.12")
    s.keep("preference", "as provided")
    return s


@session
def kafka_consumer_rebalance():
    s = Session("kafka-consumer-rebalance", "/home/ines/src/payments-consumer", branch="fix/staging-rebalance",
                start="2026-02-10T08:41:00Z", version="2.0.22")
    s.user("Hi. I lead the payments team, so a couple of ground rules before you change anything in this repo. Every consumer we own commits offsets manually, after the record has been processed: enable.auto.commit=false, no exceptions. And every consumer gets a dead-letter topic named <topic>.DLT; a poison message goes there instead of blocking the partition.\n\nNow the actual problem: payment-events-consumer in staging keeps getting thrown out of its group. The pod logs are full of CommitFailedException and the lag only grows.")
    s.bash("kubectl -n payments-staging logs deploy/payment-events-consumer --since=30m | grep -E 'WARN|ERROR' | tail -6",
           "2026-02-10 08:12:03.417 WARN  [consumer-payments-1] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=consumer-payments-1, groupId=payments] consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time processing messages. You can address this either by increasing max.poll.interval.ms or by reducing the maximum size of batches returned in poll() with max.poll.records.\n2026-02-10 08:12:03.421 INFO  [consumer-payments-1] o.a.k.c.c.i.ConsumerCoordinator - [Consumer clientId=consumer-payments-1, groupId=payments] Member consumer-payments-1-7f3c2b1e sending LeaveGroup request to coordinator kafka-staging-2.internal:9093 (id: 2147483645 rack: null) due to consumer poll timeout has expired.\n2026-02-10 08:12:09.882 ERROR [consumer-payments-1] c.a.p.PaymentEventsConsumer - commit failed\norg.apache.kafka.clients.consumer.CommitFailedException: Offset commit cannot be completed since the consumer is not part of an active group for auto partition assignment; it is likely that the consumer was kicked out of the group.\n\tat org.apache.kafka.clients.consumer.internals.ConsumerCoordinator.sendOffsetCommitRequest(ConsumerCoordinator.java:1350)\n\tat com.acme.payments.PaymentEventsConsumer.run(PaymentEventsConsumer.java:58)")
    s.bash("cat src/main/resources/application-staging.properties",
           "bootstrap.servers=kafka-staging-1.internal:9093,kafka-staging-2.internal:9093\ngroup.id=payments\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"payments-svc\" password=\"kP9vR2mXq7tL4wZs\";\nenable.auto.commit=false\nmax.poll.records=500\nkey.deserializer=org.apache.kafka.common.serialization.StringDeserializer\nvalue.deserializer=org.apache.kafka.common.serialization.StringDeserializer")
    s.read("src/main/java/com/acme/payments/PaymentEventsConsumer.java", "    public void run() {\n        consumer.subscribe(List.of(\"payment-events\"));\n        while (running) {\n            ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));\n            for (ConsumerRecord<String, String> rec : records) {\n                ledgerClient.post(PaymentEvent.parse(rec.value()));   // ~700 ms per call in staging\n            }\n            try {\n                consumer.commitSync();\n            } catch (CommitFailedException e) {\n                log.error(\"commit failed\", e);\n            }\n        }\n    }")
    s.say("The loop processes a whole poll batch before calling poll() again. With max.poll.records=500 and the ledger call taking about 700 ms in staging, one batch can take ~350 s, past the default max.poll.interval.ms of 300 s. The coordinator evicts the member, the commit fails, the partitions get reassigned and the same batch is redone elsewhere, which is why lag only grows.\n\nOptions:\n1. Lower max.poll.records (e.g. 50) so one batch finishes well inside the interval.\n2. Raise max.poll.interval.ms to 15 minutes.\n3. Hand records to a worker pool and pause()/resume() the partitions while they run.")
    s.user("Lower the batch size, leave the interval alone: if a consumer hangs we want the group to notice within five minutes. The worker pool is overkill for this service.")
    s.edit("src/main/resources/application-staging.properties", "max.poll.records=500", "max.poll.records=50")
    s.edit("src/main/resources/application.properties", "max.poll.records=500", "max.poll.records=50")
    s.say("Auto-commit is already off and the commit happens after processing, so that rule holds. There is no dead-letter handling yet, though: a record that fails to parse throws out of the loop. I'll route failures to `payment-events.DLT` with a producer.")
    s.edit("src/main/java/com/acme/payments/PaymentEventsConsumer.java", "                ledgerClient.post(PaymentEvent.parse(rec.value()));   // ~700 ms per call in staging", "                try {\n                    ledgerClient.post(PaymentEvent.parse(rec.value()));\n                } catch (MalformedEventException | LedgerRejectedException e) {\n                    log.warn(\"sending offset {} to DLT: {}\", rec.offset(), e.getMessage());\n                    dltProducer.send(new ProducerRecord<>(\"payment-events.DLT\", rec.key(), rec.value()));\n                }")
    s.bash("mvn -q -v && mvn dependency:tree -Dincludes=org.apache.kafka | grep kafka", "Apache Maven 3.9.6 (bc0240f3c744dd6b6ec2920b3cd08dcc295161ae)\nMaven home: /usr/share/maven\nJava version: 21.0.2, vendor: Eclipse Adoptium, runtime: /opt/java/temurin-21\n[INFO] \\- org.apache.kafka:kafka-clients:jar:3.7.0:compile")
    s.bash("mvn -B test", "[INFO] Scanning for projects...\n[INFO] \n[INFO] -------------------< com.acme:payments-consumer >-------------------\n[INFO] Building payments-consumer 1.8.0\n[INFO] --------------------------------[ jar ]---------------------------------\n[INFO] --- compiler:3.12.1:compile (default-compile) @ payments-consumer ---\n[INFO] Compiling 14 source files with javac [debug target 21] to target/classes\n[INFO] --- surefire:3.2.5:test (default-test) @ payments-consumer ---\n[INFO] -------------------------------------------------------\n[INFO]  T E S T S\n[INFO] -------------------------------------------------------\n[INFO] Running com.acme.payments.PaymentEventsConsumerTest\n[INFO] Tests run: 5, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 1.873 s -- in com.acme.payments.PaymentEventsConsumerTest\n[INFO] Running com.acme.payments.PaymentEventTest\n[INFO] Tests run: 7, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.061 s -- in com.acme.payments.PaymentEventTest\n[INFO] \n[INFO] Results:\n[INFO] \n[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0\n[INFO] \n[INFO] ------------------------------------------------------------------------\n[INFO] BUILD SUCCESS\n[INFO] ------------------------------------------------------------------------\n[INFO] Total time:  6.412 s\n[INFO] Finished at: 2026-02-10T08:58:31Z\n[INFO] ------------------------------------------------------------------------")
    s.say("Build and all 12 tests pass. With 50 records per poll a batch takes ~35 s in the worst case, far inside the 5-minute interval. Failed records go to payment-events.DLT and their offsets are still committed after the batch.")
    s.user("Good. I'll get ops to create the DLT topic in staging before we deploy.")
    s.keep("error", "CommitFailedException", id="e1")
    s.keep("fix", "max.poll.records=50", fixes="e1")
    s.keep("decision", "Lower the batch size")
    s.keep("preference", "commits offsets manually")
    s.keep("preference", "dead-letter topic")
    s.keep("fact", "3.7.0")
    s.never("kP9vR2mXq7tL4wZs")
    return s


@session
def pnpm_turbo_shared_utils():
    s = Session("pnpm-turbo-shared-utils", "/Users/keiko/work/acme-web", branch="chore/shared-utils",
                start="2026-05-19T13:05:00Z", version="2.0.40")
    s.user("move the date helpers from apps/web/src/lib/date.ts into a new package packages/utils so apps/admin can use them too. build it with tsup")
    s.bash("pnpm --version && pnpm turbo --version && ls packages", "9.4.0\n2.0.6\neslint-config\ntsconfig\nui")
    s.read("turbo.json", "{\n  \"$schema\": \"https://turbo.build/schema.json\",\n  \"tasks\": {\n    \"build\": { \"dependsOn\": [\"^build\"], \"outputs\": [\"dist/**\", \".next/**\", \"!.next/cache/**\"] },\n    \"typecheck\": { \"dependsOn\": [\"^build\"] },\n    \"lint\": {},\n    \"test\": { \"dependsOn\": [\"^build\"] }\n  }\n}")
    s.write("packages/utils/package.json", "{\n  \"name\": \"@acme/utils\",\n  \"version\": \"0.0.0\",\n  \"private\": true,\n  \"type\": \"module\",\n  \"main\": \"./dist/index.js\",\n  \"types\": \"./dist/index.d.ts\",\n  \"scripts\": {\n    \"build\": \"tsup src/index.ts --format esm --dts\"\n  },\n  \"devDependencies\": {\n    \"tsup\": \"^8.1.0\",\n    \"typescript\": \"^5.4.5\"\n  }\n}")
    s.user("hm wait, actually scratch tsup. ui and the others are all built with plain tsc -b and project references, I'd rather the new one looks the same than have one odd package out")
    s.read("packages/ui/package.json", "{\n  \"name\": \"@acme/ui\",\n  \"version\": \"0.0.0\",\n  \"private\": true,\n  \"type\": \"module\",\n  \"main\": \"./dist/index.js\",\n  \"types\": \"./dist/index.d.ts\",\n  \"scripts\": {\n    \"build\": \"tsc -b\",\n    \"typecheck\": \"tsc -b --noEmit\"\n  },\n  \"devDependencies\": {\n    \"@acme/tsconfig\": \"workspace:*\",\n    \"typescript\": \"^5.4.5\"\n  }\n}")
    s.write("packages/utils/package.json", "{\n  \"name\": \"@acme/utils\",\n  \"version\": \"0.0.0\",\n  \"private\": true,\n  \"type\": \"module\",\n  \"main\": \"./dist/index.js\",\n  \"types\": \"./dist/index.d.ts\",\n  \"scripts\": {\n    \"build\": \"tsc -b\",\n    \"typecheck\": \"tsc -b --noEmit\"\n  },\n  \"devDependencies\": {\n    \"@acme/tsconfig\": \"workspace:*\",\n    \"typescript\": \"^5.4.5\"\n  }\n}")
    s.write("packages/utils/tsconfig.json", "{\n  \"extends\": \"@acme/tsconfig/library.json\",\n  \"compilerOptions\": { \"rootDir\": \"src\", \"outDir\": \"dist\", \"composite\": true },\n  \"include\": [\"src\"]\n}")
    s.bash("mkdir -p packages/utils/src && git mv apps/web/src/lib/date.ts packages/utils/src/date.ts && printf \"export * from './date.js';\\n\" > packages/utils/src/index.ts", "")
    s.edit("apps/web/src/app/orders/page.tsx", "import { formatDue, toLocalDay } from '@/lib/date';", "import { formatDue, toLocalDay } from '@acme/utils';")
    s.bash("pnpm turbo run typecheck --filter=web", "turbo 2.0.6\n\n\u2022 Packages in scope: web\n\u2022 Running typecheck in 1 packages\n\u2022 Remote caching disabled\nweb:typecheck: cache miss, executing 3b9c1e0f6a7d2e41\nweb:typecheck: \nweb:typecheck: > web@0.1.0 typecheck /Users/keiko/work/acme-web/apps/web\nweb:typecheck: > tsc --noEmit\nweb:typecheck: \nweb:typecheck: src/app/orders/page.tsx(3,37): error TS2307: Cannot find module '@acme/utils' or its corresponding type declarations.\nweb:typecheck:  ELIFECYCLE  Command failed with exit code 2.\nweb:typecheck: ERROR: command finished with error: command (/Users/keiko/work/acme-web/apps/web) /opt/homebrew/bin/pnpm run typecheck exited (2)\nweb#typecheck: command (/Users/keiko/work/acme-web/apps/web) /opt/homebrew/bin/pnpm run typecheck exited (2)\n\n Tasks:    0 successful, 1 total\nCached:    0 cached, 1 total\n  Time:    2.911s \nFailed:    web#typecheck\n\n ERROR  run failed: command  exited (2)", 2)
    s.say("web doesn't declare a dependency on the new package yet, so pnpm never linked it into apps/web/node_modules. Adding it to both apps:")
    s.bash("pnpm add @acme/utils@workspace:* --filter web --filter admin", "Scope: 2 of 8 workspace projects\nProgress: resolved 614, reused 590, downloaded 0, added 0, done\nDone in 1.9s")
    s.bash("pnpm turbo run typecheck build --filter=web...", "turbo 2.0.6\n\n\u2022 Packages in scope: @acme/tsconfig, @acme/ui, @acme/utils, web\n\u2022 Running typecheck, build in 4 packages\n\u2022 Remote caching disabled\n@acme/utils:build: cache miss, executing 9f2d8e1c0b7a6e53\n@acme/ui:build: cache hit, replaying logs 41c7a2e9d0f3b618\nweb:typecheck: cache miss, executing 0a6e3d2f1c9b8e74\nweb:build: cache miss, executing 6d1f0e9c8b7a2d35\n\n Tasks:    5 successful, 5 total\nCached:    1 cached, 5 total\n  Time:    38.207s ")
    s.say("Typecheck and build pass for web and everything it depends on. Since builds are now shared across packages, we could also turn on Turborepo remote caching so CI reuses the local artifacts.")
    s.user("not now, maybe when we have more packages. oh and btw internal packages are always referenced with workspace:*, never a version range, in every package.json here")
    s.user("""pushed it, CI is red:

Run pnpm install --frozen-lockfile
Scope: all 8 workspace projects
 ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date with <ROOT>/packages/utils/package.json

Note that in CI environments this setting is true by default. If you still need to run install in such cases, use "pnpm install --no-frozen-lockfile"

    Failure reason:
    specifiers in the lockfile ({}) don't match specs in package.json ({"@acme/tsconfig":"workspace:*","typescript":"^5.4.5"})
Error: Process completed with exit code 1.""")
    s.bash("git status --short", " M apps/admin/package.json\n M apps/web/package.json\n M pnpm-lock.yaml")
    s.say("The lockfile was updated by `pnpm add` but never committed, so CI still has the old one without packages/utils. Committing it:")
    s.bash("pnpm install --frozen-lockfile && git add pnpm-lock.yaml apps/web/package.json apps/admin/package.json && git commit -m 'utils: lockfile and workspace deps' && git push", "Scope: all 8 workspace projects\nLockfile is up to date, resolution step is skipped\nAlready up to date\nDone in 1.2s\n[chore/shared-utils 5e0a7c3] utils: lockfile and workspace deps\n 3 files changed, 27 insertions(+), 2 deletions(-)\nTo github.com:acme/acme-web.git\n   b19d4f2..5e0a7c3  chore/shared-utils -> chore/shared-utils")
    s.keep("fact", "9.4.0")
    s.keep("decision", "tsc -b")
    s.keep("error", "TS2307", id="e1")
    s.keep("fix", "@acme/utils@workspace:*", fixes="e1")
    s.keep("preference", "never a version range")
    s.keep("error", "ERR_PNPM_OUTDATED_LOCKFILE", id="e2")
    s.keep("fix", "pnpm-lock.yaml", fixes="e2")
    return s


@session
def vapor_dto_content():
    s = Session("vapor-dto-content", "/home/joao/dev/receitas-api", branch="feat/create-recipe",
                start="2026-01-19T14:20:00Z", version="2.0.14")
    s.user("Hello! I have a problem with my Vapor app. When I do swift build it give me a error about Decodable, I don't understand because I put Content in the model already. Can you look please?")
    s.bash("swift --version", "Swift version 5.10.1 (swift-5.10.1-RELEASE)\nTarget: x86_64-unknown-linux-gnu")
    s.bash("swift build", "Building for debugging...\n/home/joao/dev/receitas-api/Sources/App/Controllers/RecipeController.swift:19:35: error: instance method 'decode' requires that 'CreateRecipeDTO' conform to 'Decodable'\n        let dto = try req.content.decode(CreateRecipeDTO.self)\n                                  ^\n/home/joao/dev/receitas-api/.build/checkouts/vapor/Sources/Vapor/Content/ContentContainer.swift:29:10: note: where 'D' = 'CreateRecipeDTO'\n    func decode<D: Decodable>(_: D.Type) throws -> D\n         ^\n[6/13] Compiling App RecipeController.swift", 1)
    s.read("Sources/App/Controllers/RecipeController.swift", "import Fluent\nimport Vapor\n\nstruct RecipeController: RouteCollection {\n    func boot(routes: RoutesBuilder) throws {\n        let recipes = routes.grouped(\"recipes\")\n        recipes.get(use: index)\n        recipes.post(use: create)\n    }\n\n    func index(req: Request) async throws -> [Recipe] {\n        try await Recipe.query(on: req.db).all()\n    }\n\n    func create(req: Request) async throws -> Recipe {\n        let dto = try req.content.decode(CreateRecipeDTO.self)\n        let recipe = Recipe(title: dto.title, minutes: dto.minutes, ingredients: dto.ingredients)\n        try await recipe.save(on: req.db)\n        return recipe\n    }\n}\n\nstruct CreateRecipeDTO {\n    var title: String\n    var minutes: Int\n    var ingredients: [String]\n}")
    s.say("You're right that `Recipe` conforms to `Content`. But `create` decodes the body into `CreateRecipeDTO`, the small struct at the bottom of the controller, and that one has no conformance at all. `Content` includes `Codable`, so declaring `CreateRecipeDTO: Content` is enough.")
    s.user("Ah ok, I see it now! Then please put it in its own file. The DTOs live in Sources/App/DTOs, one file each, my colleague organised it like this.")
    s.write("Sources/App/DTOs/CreateRecipeDTO.swift", "import Vapor\n\nstruct CreateRecipeDTO: Content {\n    var title: String\n    var minutes: Int\n    var ingredients: [String]\n}")
    s.edit("Sources/App/Controllers/RecipeController.swift", "}\n\nstruct CreateRecipeDTO {\n    var title: String\n    var minutes: Int\n    var ingredients: [String]\n}", "}")
    s.bash("swift build", "Building for debugging...\n[9/9] Linking App\nBuild complete! (41.27s)")
    s.bash("swift test", "Building for debugging...\n[4/4] Linking receitas-apiPackageTests.xctest\nBuild complete! (9.72s)\nTest Suite 'All tests' started at 2026-01-19 14:41:07.552\nTest Suite 'receitas-apiPackageTests.xctest' started at 2026-01-19 14:41:07.553\nTest Suite 'AppTests' started at 2026-01-19 14:41:07.553\nTest Case 'AppTests.testCreateRecipe' started at 2026-01-19 14:41:07.553\n[ ERROR ] PSQLError(code: connectionError, underlying: NIOPosix.NIOConnectionError(host: \"localhost\", port: 5432, dnsAAAAError: nil, dnsAError: nil, connectionErrors: [NIOPosix.SingleConnectionFailure(target: [IPv4]localhost/127.0.0.1:5432, error: connection reset (error set): Connection refused (errno: 111))])) [request-id: 6B1E0C2A-4F7D-4E3B-9A85-1D2C3B4A5F60]\n/home/joao/dev/receitas-api/Tests/AppTests/AppTests.swift:31: error: AppTests.testCreateRecipe : XCTAssertEqual failed: (\"500 Internal Server Error\") is not equal to (\"200 OK\") - \nTest Case 'AppTests.testCreateRecipe' failed (0.218 seconds)\nTest Case 'AppTests.testHealth' started at 2026-01-19 14:41:07.771\nTest Case 'AppTests.testHealth' passed (0.004 seconds)\nTest Suite 'AppTests' failed at 2026-01-19 14:41:07.775\n\t Executed 2 tests, with 1 failure (0 unexpected) in 0.222 (0.222) seconds\nTest Suite 'receitas-apiPackageTests.xctest' failed at 2026-01-19 14:41:07.775\n\t Executed 2 tests, with 1 failure (0 unexpected) in 0.222 (0.222) seconds\nTest Suite 'All tests' failed at 2026-01-19 14:41:07.775\n\t Executed 2 tests, with 1 failure (0 unexpected) in 0.222 (0.222) seconds", 1)
    s.say("It compiles now. The remaining failure is different: the tests call the same `configure(app)` as the server, so they try Postgres on localhost:5432, and nothing is listening there. You can start the database with `docker compose up -d db` before testing, or the testing environment can use a different database.")
    s.user("I don't like that the tests need a Postgres running, my colleague has the same problem every time. For tests we use sqlite in memory, Postgres only for dev and production. Is possible?")
    s.say("Yes. I'll add fluent-sqlite-driver and pick the database in configure.swift from `app.environment`.")
    s.edit("Package.swift", "        .package(url: \"https://github.com/vapor/fluent-postgres-driver.git\", from: \"2.8.0\"),", "        .package(url: \"https://github.com/vapor/fluent-postgres-driver.git\", from: \"2.8.0\"),\n        .package(url: \"https://github.com/vapor/fluent-sqlite-driver.git\", from: \"4.6.0\"),")
    s.edit("Package.swift", "                .product(name: \"FluentPostgresDriver\", package: \"fluent-postgres-driver\"),", "                .product(name: \"FluentPostgresDriver\", package: \"fluent-postgres-driver\"),\n                .product(name: \"FluentSQLiteDriver\", package: \"fluent-sqlite-driver\"),")
    s.edit("Sources/App/configure.swift", "    app.databases.use(DatabaseConfigurationFactory.postgres(configuration: pgConfig), as: .psql)", "    if app.environment == .testing {\n        app.databases.use(.sqlite(.memory), as: .sqlite)\n    } else {\n        app.databases.use(DatabaseConfigurationFactory.postgres(configuration: pgConfig), as: .psql)\n    }")
    s.bash("swift package resolve", "Fetching https://github.com/vapor/fluent-sqlite-driver.git\nFetched https://github.com/vapor/fluent-sqlite-driver.git from cache (1.92s)\nFetching https://github.com/vapor/sqlite-kit.git\nFetching https://github.com/vapor/sqlite-nio.git\nFetched https://github.com/vapor/sqlite-kit.git from cache (0.88s)\nFetched https://github.com/vapor/sqlite-nio.git from cache (2.41s)\nComputing version for https://github.com/vapor/fluent-sqlite-driver.git\nComputed https://github.com/vapor/fluent-sqlite-driver.git at 4.7.4 (0.61s)\nComputing version for https://github.com/vapor/sqlite-kit.git\nComputed https://github.com/vapor/sqlite-kit.git at 4.5.2 (0.47s)\nComputing version for https://github.com/vapor/sqlite-nio.git\nComputed https://github.com/vapor/sqlite-nio.git at 1.10.1 (0.52s)\nCreating working copy for https://github.com/vapor/fluent-sqlite-driver.git\nWorking copy of https://github.com/vapor/fluent-sqlite-driver.git resolved at 4.7.4")
    s.bash("swift test 2>&1 | tail -4", "Test Case 'AppTests.testHealth' passed (0.003 seconds)\nTest Suite 'AppTests' passed at 2026-01-19 14:52:30.118\n\t Executed 2 tests, with 0 failures (0 unexpected) in 0.051 (0.051) seconds\nTest Suite 'All tests' passed at 2026-01-19 14:52:30.118")
    s.say("Both tests pass without a database running. `swift run` and production still use Postgres; only `.testing` uses the in-memory SQLite, and the migrations run on it automatically in the test setup.")
    s.user("Perfect, obrigado!")
    s.keep("fact", "Swift version 5.10.1")
    s.keep("error", "conform to 'Decodable'", id="e1")
    s.keep("fix", "CreateRecipeDTO: Content", fixes="e1")
    s.keep("preference", "Sources/App/DTOs")
    s.keep("error", "testCreateRecipe", id="e2")
    s.keep("fix", "configure.swift", fixes="e2")
    s.keep("decision", "sqlite in memory")
    s.keep("fact", "4.7.4")
    return s


@session
def godot_platformer_dash():
    s = Session("godot-platformer-dash", "/home/mika/games/mossy-ledge", branch="dash",
                start="2026-04-07T19:02:00Z", version="2.0.31")
    s.user("Hey! Back on my little platformer :) Two things. I added a dash to the player and now the game doesn't even start, there's some parse error in the output. And second, the player sometimes falls straight through the one-way platforms when dropping from high up. No idea why that one happens.")
    s.bash("godot --version", "4.2.2.stable.official.15073afe3")
    s.bash("godot --headless --quit 2>&1 | head", "Godot Engine v4.2.2.stable.official.15073afe3 - https://godotengine.org\n \nSCRIPT ERROR: Parse Error: Identifier \"dash_timer\" not declared in the current scope.\n          at: GDScript::reload (res://player/player.gd:18)\nERROR: Failed to load script \"res://player/player.gd\" with error \"Parse error\".\n   at: load (modules/gdscript/gdscript.cpp:2936)")
    s.read("player/player.gd", "extends CharacterBody2D\n\nconst SPEED: float = 220.0\nconst JUMP_VELOCITY: float = -380.0\nconst DASH_SPEED: float = 600.0\nconst DASH_TIME: float = 0.15\n\nvar _dash_timer: float = 0.0\nvar _facing: float = 1.0\nvar gravity: float = ProjectSettings.get_setting(\"physics/2d/default_gravity\")\n\n\nfunc _physics_process(delta: float) -> void:\n\tif not is_on_floor():\n\t\tvelocity.y += gravity * delta\n\n\tif Input.is_action_just_pressed(\"dash\") and _dash_timer <= 0.0:\n\t\tdash_timer = DASH_TIME\n\n\tif _dash_timer > 0.0:\n\t\t_dash_timer -= delta\n\t\tvelocity = Vector2(_facing * DASH_SPEED, 0.0)\n\telse:\n\t\tvar dir: float = Input.get_axis(\"move_left\", \"move_right\")\n\t\tif dir != 0.0:\n\t\t\t_facing = signf(dir)\n\t\tvelocity.x = dir * SPEED\n\n\tmove_and_slide()")
    s.say("The variable is declared as `_dash_timer` (with the underscore) but line 18 assigns to `dash_timer`, which GDScript treats as an undeclared identifier, so the whole script fails to load.")
    s.edit("player/player.gd", "\t\tdash_timer = DASH_TIME", "\t\t_dash_timer = DASH_TIME")
    s.say("About the platforms: a one-way collision shape only stops a body that is above its top edge at the start of the physics step. Gravity keeps accelerating the player with no cap, so after a long drop they move 25+ px per step at 60 ticks, and a thin platform can be skipped between two steps. A few ways to deal with it:\n\n1. Raise `one_way_collision_margin` on the platform shapes.\n2. Clamp the fall speed in `_physics_process`.\n3. Raise Physics Ticks per Second to 120 so each step moves half as far.")
    s.user("2! I wanted a max fall speed anyway, falling forever gets way too fast and feels floaty-then-rocket. And don't change the tick rate please, all my jump numbers are tuned for 60.")
    s.edit("player/player.gd", "const DASH_TIME: float = 0.15\n", "const DASH_TIME: float = 0.15\nconst MAX_FALL_SPEED: float = 900.0\n")
    s.edit("player/player.gd", "\t\tvelocity.y += gravity * delta\n", "\t\tvelocity.y = minf(velocity.y + gravity * delta, MAX_FALL_SPEED)\n")
    s.user("oh and everything statically typed please, like you did there. I have the untyped declaration warning set to error in the project settings")
    s.write("test/unit/test_player_fall.gd", "extends GutTest\n\nvar _player: CharacterBody2D\n\n\nfunc before_each() -> void:\n\t_player = preload(\"res://player/player.tscn\").instantiate()\n\tadd_child_autofree(_player)\n\n\nfunc test_fall_speed_is_capped() -> void:\n\t_player.position = Vector2(0.0, -5000.0)\n\tawait wait_physics_frames(120)\n\tassert_lte(_player.velocity.y, _player.MAX_FALL_SPEED)")
    s.bash("godot --headless -s addons/gut/gut_cmdln.gd -gdir=res://test/unit -gexit", "Godot Engine v4.2.2.stable.official.15073afe3 - https://godotengine.org\n \n--- GUT ---\nres://test/unit/test_player_dash.gd\n* test_dash_sets_horizontal_velocity\n* test_dash_has_cooldown\n* test_coyote_time_allows_jump\n    [Failed]:  [false] expected to be [true]:  jump allowed inside coyote window\n          at line 41\nres://test/unit/test_player_fall.gd\n* test_fall_speed_is_capped\n\n==============================================\n= Run Summary\n==============================================\n\nres://test/unit/test_player_dash.gd\n- test_coyote_time_allows_jump\n    [Failed]:  [false] expected to be [true]:  jump allowed inside coyote window\n          at line 41\n\nTotals\n------\nScripts               2\nTests                 4\n  Passing             3\n  Failing             1\nAsserts               6\nTime              2.318s\n\n---- 1 failing tests ----", 1)
    s.say("The new fall-speed test passes. `test_coyote_time_allows_jump` failed, but it doesn't touch anything I changed; it waits a wall-clock 0.1 s and then checks the jump. Running the suite again without changes:")
    s.bash("godot --headless -s addons/gut/gut_cmdln.gd -gdir=res://test/unit -gexit 2>&1 | tail -12", "Totals\n------\nScripts               2\nTests                 4\n  Passing             4\n  Failing             0\nAsserts               6\nTime              2.294s\n\n---- All tests passed! ----")
    s.say("All 4 pass on the second run, so the coyote test is timing-dependent: it mixes `wait_seconds` with physics frames and sometimes lands one frame outside the window.")
    s.user("yeah that one's been flaky for a while, I'll rewrite it with physics frames some day. thanks!!")
    s.keep("fact", "4.2.2.stable")
    s.keep("error", "\"dash_timer\" not declared", id="e1")
    s.keep("fix", "player.gd", fixes="e1")
    s.keep("decision", "max fall speed")
    s.keep("decision", "don't change the tick rate")
    s.keep("preference", "statically typed")
    s.keep("error", "test_coyote_time_allows_jump")
    return s


@session
def perl_rotate_logs():
    s = Session("perl-rotate-logs", "/srv/ops/scripts", branch="master", start="2026-06-02T06:48:00Z", version="1.0.98")
    s.user("rotate_logs.pl broke since i added the gzip archving. cron mails me errors every nite. fix pls")
    s.bash("perl -v | sed -n 2p", "This is perl 5, version 36, subversion 0 (v5.36.0) built for x86_64-linux-gnu-thread-multi")
    s.bash("perl -c bin/rotate_logs.pl", "Can't locate File/Slurp.pm in @INC (you may need to install the File::Slurp module) (@INC contains: /etc/perl /usr/local/lib/x86_64-linux-gnu/perl/5.36.0 /usr/local/share/perl/5.36.0 /usr/lib/x86_64-linux-gnu/perl5/5.36 /usr/share/perl5 /usr/lib/x86_64-linux-gnu/perl-base /usr/lib/x86_64-linux-gnu/perl/5.36 /usr/share/perl/5.36 /usr/local/lib/site_perl) at bin/rotate_logs.pl line 9.\nBEGIN failed--compilation aborted at bin/rotate_logs.pl line 9.", 2)
    s.say("File::Slurp isn't installed on this host. I could install it with `cpanm File::Slurp`, or drop the module, since it's only used to read the state file.")
    s.user("no cpanm on the ops boxes. core modules only, plus whatever we have in lib/")
    s.grep("^sub ", "lib/Ops/Util.pm", "lib/Ops/Util.pm:14:sub slurp {\nlib/Ops/Util.pm:27:sub log_msg {\nlib/Ops/Util.pm:41:sub lock_or_exit {")
    s.edit("bin/rotate_logs.pl", "use File::Slurp qw(read_file);", "use FindBin qw($Bin);\nuse lib \"$Bin/../lib\";\nuse Ops::Util qw(slurp log_msg);")
    s.edit("bin/rotate_logs.pl", "my $state = read_file($state_file);", "my $state = slurp($state_file);")
    s.bash("perl -c bin/rotate_logs.pl", "Global symbol \"$archive_dir\" requires explicit package name (did you forget to declare \"my $archive_dir\"?) at bin/rotate_logs.pl line 58.\nGlobal symbol \"$archive_dir\" requires explicit package name (did you forget to declare \"my $archive_dir\"?) at bin/rotate_logs.pl line 59.\nbin/rotate_logs.pl had compilation errors.", 255)
    s.read("bin/rotate_logs.pl", "for my $log (glob \"$log_root/*.log\") {\n    next if -M $log < $max_age_days;\n    if ($opts{gzip}) {\n        my $archive_dir = \"$log_root/archive/\" . strftime('%Y-%m', localtime);\n        make_path($archive_dir) unless -d $archive_dir;\n    }\n    my $target = \"$archive_dir/\" . basename($log) . \".gz\";\n    gzip $log => $target or die \"gzip failed for $log: $GzipError\\n\";\n    unlink $log unless $opts{'dry-run'};\n}")
    s.say("`my $archive_dir` is declared inside the `if` block, so it's out of scope on the next two lines. Declaring it before the block:")
    s.edit("bin/rotate_logs.pl", "    if ($opts{gzip}) {\n        my $archive_dir = \"$log_root/archive/\" . strftime('%Y-%m', localtime);\n        make_path($archive_dir) unless -d $archive_dir;\n    }", "    my $archive_dir = \"$log_root/archive/\" . strftime('%Y-%m', localtime);\n    make_path($archive_dir) unless -d $archive_dir || $opts{'dry-run'};")
    s.bash("perl -c bin/rotate_logs.pl && perl bin/rotate_logs.pl --gzip --dry-run", "bin/rotate_logs.pl syntax OK\n[dry-run] /var/log/acme/api.log -> /var/log/acme/archive/2026-06/api.log.gz\n[dry-run] /var/log/acme/worker.log -> /var/log/acme/archive/2026-06/worker.log.gz\n[dry-run] /var/log/acme/cron.log -> /var/log/acme/archive/2026-06/cron.log.gz")
    s.user("nice. honestly should we just rewrite all these in python at some point? half the team grumbles about perl")
    s.say("It's doable, there are 23 scripts in bin/. Python would be easier for newer people, but these scripts are small, they've been stable for years, and the ops hosts already have perl 5.36 with nothing extra installed. If it were me I'd port a script only when it needs a substantial change anyway.")
    s.user("yeah no. leave them in perl, not worth it for stuff that just works")
    s.bash("git add bin/rotate_logs.pl && git commit -m 'rotate_logs: use Ops::Util slurp, fix archive_dir scope'", "[master 2c81f0a] rotate_logs: use Ops::Util slurp, fix archive_dir scope\n 1 file changed, 6 insertions(+), 5 deletions(-)")
    s.keep("fact", "v5.36.0")
    s.keep("error", "Can't locate File/Slurp.pm", id="e1")
    s.keep("fix", "Ops::Util", fixes="e1")
    s.keep("preference", "core modules only")
    s.keep("error", "requires explicit package name", id="e2")
    s.keep("fix", "my $archive_dir", fixes="e2")
    s.keep("decision", "leave them in perl")
    return s


@session
def fortran_cmake_lapack():
    s = Session("fortran-cmake-lapack", "/home/aylin/research/heat2d", branch="cmake",
                start="2026-02-24T15:30:00Z", version="2.0.22")
    s.user("I'm moving our 2D heat-equation solver from the hand-written Makefile to CMake. Configure works, but the link step fails. The implicit step calls LAPACK (dgtsv) for the tridiagonal solves. Could you sort out CMakeLists.txt? Please don't delete the old Makefile yet, Peter still uses it this week.")
    s.bash("cmake --version", "cmake version 3.28.3\n\nCMake suite maintained and supported by Kitware (kitware.com/cmake).")
    s.read("CMakeLists.txt", "cmake_minimum_required(VERSION 3.20)\nproject(heat2d LANGUAGES Fortran)\n\nset(CMAKE_Fortran_MODULE_DIRECTORY ${CMAKE_BINARY_DIR}/mod)\n\nadd_executable(heat2d\n  src/kinds.f90\n  src/grid.f90\n  src/solver.f90\n  src/io.f90\n  src/main.f90)\n\ntarget_compile_options(heat2d PRIVATE -O2 -Wall)\n\nenable_testing()\nadd_test(NAME conservation COMMAND heat2d --test conservation)\nadd_test(NAME analytic_gaussian COMMAND heat2d --test gaussian)")
    s.bash("cmake --build build", "[ 16%] Building Fortran object CMakeFiles/heat2d.dir/src/kinds.f90.o\n[ 33%] Building Fortran object CMakeFiles/heat2d.dir/src/grid.f90.o\n[ 50%] Building Fortran object CMakeFiles/heat2d.dir/src/solver.f90.o\n[ 66%] Building Fortran object CMakeFiles/heat2d.dir/src/io.f90.o\n[ 83%] Building Fortran object CMakeFiles/heat2d.dir/src/main.f90.o\n[100%] Linking Fortran executable heat2d\n/usr/bin/ld: CMakeFiles/heat2d.dir/src/solver.f90.o: in function `__solver_MOD_implicit_step':\nsolver.f90:(.text+0x3c1): undefined reference to `dgtsv_'\ncollect2: error: ld returned 1 exit status\ngmake[2]: *** [CMakeFiles/heat2d.dir/build.make:161: heat2d] Error 1\ngmake[1]: *** [CMakeFiles/Makefile2:100: CMakeFiles/heat2d.dir/all] Error 2\ngmake: *** [Makefile:101: all] Error 2", 2)
    s.say("Nothing links a LAPACK library yet; the Makefile had `-llapack` on its link line, CMake needs `find_package(LAPACK)` and the imported target. Before I add it: FindLAPACK takes whichever implementation it finds first, and this machine has two.")
    s.bash("ldconfig -p | grep -E 'liblapack|libopenblas'", "\tlibopenblas.so.0 (libc6,x86-64) => /lib/x86_64-linux-gnu/libopenblas.so.0\n\tliblapack.so.3 (libc6,x86-64) => /lib/x86_64-linux-gnu/liblapack.so.3")
    s.user("OpenBLAS. It's the module everybody loads on the cluster, and the reference LAPACK was about 3x slower in Peter's benchmark.")
    s.edit("CMakeLists.txt", "set(CMAKE_Fortran_MODULE_DIRECTORY ${CMAKE_BINARY_DIR}/mod)\n", "set(CMAKE_Fortran_MODULE_DIRECTORY ${CMAKE_BINARY_DIR}/mod)\n\nset(BLA_VENDOR OpenBLAS)\nfind_package(LAPACK REQUIRED)\n")
    s.edit("CMakeLists.txt", "target_compile_options(heat2d PRIVATE -O2 -Wall)", "target_compile_options(heat2d PRIVATE -O2 -Wall)\ntarget_link_libraries(heat2d PRIVATE LAPACK::LAPACK)")
    s.bash("cmake -S . -B build && cmake --build build", "-- Looking for Fortran sgemm\n-- Looking for Fortran sgemm - found\n-- Found BLAS: /usr/lib/x86_64-linux-gnu/libopenblas.so  \n-- Looking for Fortran cheev\n-- Looking for Fortran cheev - found\n-- Found LAPACK: /usr/lib/x86_64-linux-gnu/libopenblas.so;-lm;-ldl  \n-- Configuring done (1.3s)\n-- Generating done (0.0s)\n-- Build files have been written to: /home/aylin/research/heat2d/build\n[ 16%] Linking Fortran executable heat2d\n[100%] Built target heat2d")
    s.bash("cd build && ctest", "Test project /home/aylin/research/heat2d/build\n    Start 1: conservation\n1/2 Test #1: conservation .....................   Passed    0.41 sec\n    Start 2: analytic_gaussian\n2/2 Test #2: analytic_gaussian ................***Failed    0.38 sec\n\n50% tests passed, 1 tests failed out of 2\n\nTotal Test time (real) =   0.80 sec\n\nThe following tests FAILED:\n\t  2 - analytic_gaussian (Failed)\nErrors while running CTest\nOutput from these tests are in: /home/aylin/research/heat2d/build/Testing/Temporary/LastTest.log\nUse \"--rerun-failed --output-on-failure\" to re-run the failed tests.", 8)
    s.bash("cd build && ctest --rerun-failed --output-on-failure", "Test project /home/aylin/research/heat2d/build\n    Start 2: analytic_gaussian\n1/1 Test #2: analytic_gaussian ................***Failed    0.37 sec\n gaussian test: nx=256 dt=1.0E-04 steps=2000\n max abs error   3.0517578E-02  tolerance   1.0000000E-03\n FAIL\n\n0% tests passed, 1 tests failed out of 1\n\nTotal Test time (real) =   0.38 sec\n\nThe following tests FAILED:\n\t  2 - analytic_gaussian (Failed)\nErrors while running CTest", 8)
    s.bash("grep -n FFLAGS Makefile && grep -nE '^\\s*real(,| ::)' src/*.f90", "4:FFLAGS = -O2 -Wall -fdefault-real-8 -fdefault-double-8\nsrc/grid.f90:9:    real, allocatable :: x(:), y(:)\nsrc/grid.f90:10:    real :: dx, dy\nsrc/io.f90:22:    real :: t_out")
    s.say("That's it: the Makefile compiles with `-fdefault-real-8`, which silently promotes every default `real` to double. Most of the code already uses `real(wp)` from kinds.f90, but grid.f90 and io.f90 still have plain `real`, so under CMake the grid spacing is single precision and the error lands around 3e-2. Either I add the same flag to target_compile_options, or I fix those declarations.")
    s.user("Not the flag please. It changes every literal behind your back and hides exactly this kind of bug. New code should always declare real(wp) from kinds.f90 explicitly, so fix the declarations.")
    s.edit("src/grid.f90", "    real, allocatable :: x(:), y(:)\n    real :: dx, dy", "    real(wp), allocatable :: x(:), y(:)\n    real(wp) :: dx, dy")
    s.edit("src/grid.f90", "module grid\n    implicit none", "module grid\n    use kinds, only: wp\n    implicit none")
    s.edit("src/io.f90", "    real :: t_out", "    real(wp) :: t_out")
    s.bash("cmake --build build && cd build && ctest", "[ 20%] Building Fortran object CMakeFiles/heat2d.dir/src/grid.f90.o\n[ 40%] Building Fortran object CMakeFiles/heat2d.dir/src/io.f90.o\n[ 60%] Building Fortran object CMakeFiles/heat2d.dir/src/solver.f90.o\n[ 80%] Building Fortran object CMakeFiles/heat2d.dir/src/main.f90.o\n[100%] Linking Fortran executable heat2d\n[100%] Built target heat2d\nTest project /home/aylin/research/heat2d/build\n    Start 1: conservation\n1/2 Test #1: conservation .....................   Passed    0.40 sec\n    Start 2: analytic_gaussian\n2/2 Test #2: analytic_gaussian ................   Passed    0.39 sec\n\n100% tests passed, 0 tests failed out of 2\n\nTotal Test time (real) =   0.80 sec")
    s.say("Both tests pass with the CMake build, linked against OpenBLAS, and without `-fdefault-real-8`. The Makefile is untouched. The explicit sweep in solver.f90 might benefit from OpenMP later, but I haven't measured anything, so I've left it alone.")
    s.keep("fact", "3.28.3")
    s.keep("error", "dgtsv_", id="e1")
    s.keep("fix", "LAPACK::LAPACK", fixes="e1")
    s.keep("decision", "OpenBLAS")
    s.keep("error", "analytic_gaussian", id="e2")
    s.keep("fix", "grid.f90", fixes="e2")
    s.keep("preference", "real(wp)")
    return s


@session
def bicep_invoice_storage():
    s = Session("bicep-invoice-storage", "/home/rafael/src/invoicing-infra", branch="feat/pdf-storage",
                start="2026-07-14T09:10:00Z", version="2.0.44")
    s.user("Need blob storage for the invoice PDFs. Add a storage account and a private container 'invoices' to the Bicep, deploy to rg-invoicing-dev, and give the web app access to it.")
    s.bash("az bicep version && az group show -n rg-invoicing-dev --query location -o tsv", "Bicep CLI version 0.28.1 (ba1e9f8c1e)\nwesteurope")
    s.read("infra/main.bicep", "targetScope = 'resourceGroup'\n\nparam env string\nparam location string = resourceGroup().location\n\nmodule plan 'modules/plan.bicep' = {\n  name: 'plan'\n  params: { name: 'asp-invoicing-${env}', location: location }\n}\n\nmodule web 'modules/webapp.bicep' = {\n  name: 'web'\n  params: { name: 'app-invoicing-${env}', location: location, planId: plan.outputs.id }\n}")
    s.write("infra/modules/storage.bicep", "param name string\nparam location string\n\nresource st 'Microsoft.Storage/storageAccounts@2023-05-01' = {\n  name: name\n  location: location\n  sku: { name: 'Standard_LRS' }\n  kind: 'StorageV2'\n  properties: {\n    allowBlobPublicAccess: false\n    minimumTlsVersion: 'TLS1_2'\n  }\n}\n\nresource blobs 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {\n  parent: st\n  name: 'default'\n}\n\nresource invoices 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {\n  parent: blobs\n  name: 'invoices'\n  properties: { publicAccess: 'None' }\n}\n\noutput id string = st.id")
    s.edit("infra/main.bicep", "module web 'modules/webapp.bicep' = {", "module storage 'modules/storage.bicep' = {\n  name: 'storage'\n  params: { name: 'st-invoicing-${env}', location: location }\n}\n\nmodule web 'modules/webapp.bicep' = {")
    s.bash("az deployment group create -g rg-invoicing-dev -f infra/main.bicep -p env=dev -o none", "ERROR: {\"status\":\"Failed\",\"error\":{\"code\":\"DeploymentFailed\",\"target\":\"/subscriptions/5c1e2a3b-7d4f-4e6a-9b8c-0d1e2f3a4b5c/resourceGroups/rg-invoicing-dev/providers/Microsoft.Resources/deployments/main\",\"message\":\"At least one resource deployment operation failed. Please list deployment operations for details. Please see https://aka.ms/arm-deployment-operations for usage details.\",\"details\":[{\"code\":\"ResourceDeploymentFailure\",\"target\":\"/subscriptions/5c1e2a3b-7d4f-4e6a-9b8c-0d1e2f3a4b5c/resourceGroups/rg-invoicing-dev/providers/Microsoft.Resources/deployments/storage\",\"message\":\"The resource write operation failed to complete successfully, because it reached terminal provisioning state 'Failed'.\",\"details\":[{\"code\":\"AccountNameInvalid\",\"message\":\"st-invoicing-dev is not a valid storage account name. Storage account name must be between 3 and 24 characters in length and use numbers and lower-case letters only.\"}]}]}}", 1)
    s.say("Storage account names can't contain hyphens (lower-case letters and digits only, 3-24 chars), and they're globally unique. I can use `stinvoicing${env}` and append `take(uniqueString(resourceGroup().id), 6)` so it can't collide with someone else's account.")
    s.user("squash it, fine, but no random suffix, we want to recognise it in the portal. stinvoicingdev. and for the record, naming in this repo is <abbr>-<app>-<env> everywhere, only the resource types azure won't allow hyphens for get the squashed version")
    s.edit("infra/main.bicep", "  params: { name: 'st-invoicing-${env}', location: location }", "  params: { name: 'stinvoicing${env}', location: location }")
    s.bash("az deployment group create -g rg-invoicing-dev -f infra/main.bicep -p env=dev --query properties.provisioningState -o tsv", "Succeeded")
    s.bash("az storage account show-connection-string -g rg-invoicing-dev -n stinvoicingdev -o tsv", "DefaultEndpointsProtocol=https;EndpointSuffix=core.windows.net;AccountName=stinvoicingdev;AccountKey=q7Vn2LxR9tB4mKc8WzY1pD6sHf3Gj0aE5uN7iOlT2rXbQ9vM4kZc8yW1eS6dF3hJ0gA5nP7tL2xR9uB4mKc8Ww==;BlobEndpoint=https://stinvoicingdev.blob.core.windows.net/")
    s.say("The account and the `invoices` container exist. For the web app there are two ways: put this connection string into its app settings as `STORAGE_CONNECTION_STRING`, or grant the app's system-assigned identity the Storage Blob Data Contributor role on the account and give it only the blob endpoint URL, so no key is stored anywhere.")
    s.user("managed identity, no account keys in app settings. and switch off shared key access on the account while you're in there")
    s.edit("infra/modules/storage.bicep", "    allowBlobPublicAccess: false\n", "    allowBlobPublicAccess: false\n    allowSharedKeyAccess: false\n")
    s.edit("infra/modules/storage.bicep", "output id string = st.id", "param readerPrincipalId string\n\n// Storage Blob Data Contributor\nresource blobContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {\n  scope: st\n  name: guid(st.id, readerPrincipalId, 'ba92f5b4-2d11-453d-a403-e96b0029c9fe')\n  properties: {\n    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', 'ba92f5b4-2d11-453d-a403-e96b0029c9fe')\n    principalId: readerPrincipalId\n    principalType: 'ServicePrincipal'\n  }\n}\n\noutput id string = st.id\noutput blobEndpoint string = st.properties.primaryEndpoints.blob")
    s.edit("infra/main.bicep", "  params: { name: 'stinvoicing${env}', location: location }", "  params: { name: 'stinvoicing${env}', location: location, readerPrincipalId: web.outputs.principalId }")
    s.bash("az deployment group create -g rg-invoicing-dev -f infra/main.bicep -p env=dev --query properties.provisioningState -o tsv", "Succeeded")
    s.say("Deployed: `stinvoicingdev` in westeurope with shared key access disabled, the private `invoices` container, and a Storage Blob Data Contributor assignment for app-invoicing-dev's identity. The app should use `DefaultAzureCredential` with the blob endpoint `https://stinvoicingdev.blob.core.windows.net/`. The connection string I printed earlier no longer works now that shared key access is off.")
    s.keep("fact", "0.28.1")
    s.keep("fact", "westeurope")
    s.keep("error", "AccountNameInvalid", id="e1")
    s.keep("fix", "stinvoicing${env}", fixes="e1")
    s.keep("preference", "<abbr>-<app>-<env>")
    s.keep("decision", "managed identity")
    s.never("q7Vn2LxR9tB4mKc8WzY1pD6sHf3Gj0aE5uN7iOlT2rXbQ9vM4kZc8yW1eS6dF3hJ0gA5nP7tL2xR9uB4mKc8Ww==")
    return s


@session
def chrome_ext_mv3_notes():
    s = Session("chrome-ext-mv3-notes", "/home/lina/code/tab-notes", branch="mv3",
                start="2026-08-03T20:15:00Z", version="2.0.44")
    s.user("so I've got this little chrome extension that lets you stick notes on tabs. it was MV2 and chrome keeps nagging that MV2 is going away, so tonight I bumped manifest_version to 3 and changed background.scripts to background.service_worker like the migration guide says. now nothing works lol. chrome://extensions shows \"Service worker registration failed. Status code: 15\" and under Errors: \"Uncaught ReferenceError: window is not defined\". any idea?")
    s.read("manifest.json", "{\n  \"manifest_version\": 3,\n  \"name\": \"Tab Notes\",\n  \"version\": \"0.3.0\",\n  \"permissions\": [\"tabs\", \"storage\"],\n  \"background\": { \"service_worker\": \"background.js\" },\n  \"browser_action\": { \"default_popup\": \"popup.html\", \"default_title\": \"Tab Notes\" }\n}")
    s.read("background.js", "const store = window.localStorage;\n\nfunction loadNotes() {\n  return JSON.parse(store.getItem('notes') || '{}');\n}\n\nchrome.tabs.onUpdated.addListener((tabId, info, tab) => {\n  if (info.status !== 'complete') return;\n  const note = loadNotes()[tab.url];\n  chrome.browserAction.setBadgeText({ tabId, text: note ? '\u2022' : '' });\n});\n\nchrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {\n  if (msg.type === 'save') {\n    const notes = loadNotes();\n    notes[msg.url] = msg.text;\n    store.setItem('notes', JSON.stringify(notes));\n    sendResponse({ ok: true });\n  }\n});")
    s.say("In MV3 the background page is a service worker, and a worker has no `window`, no DOM and no `localStorage`. The very first line throws while the worker is being evaluated, which is what \"Status code: 15\" means. Two more MV3 changes bite right after that: `chrome.browserAction` became `chrome.action`, and the manifest key `browser_action` became `action`.\n\nFor storage the replacement is `chrome.storage`, either `.local` (per machine, large quota) or `.sync` (follows the user's Chrome profile across devices, but about 100 KB in total and 8 KB per item). Which do you want?")
    s.user("storage.local. people paste whole articles into their notes, sync would hit the quota within a week")
    s.edit("manifest.json", "  \"browser_action\": { \"default_popup\": \"popup.html\", \"default_title\": \"Tab Notes\" }", "  \"action\": { \"default_popup\": \"popup.html\", \"default_title\": \"Tab Notes\" }")
    s.write("background.js", "async function loadNotes() {\n  const { notes = {} } = await chrome.storage.local.get('notes');\n  return notes;\n}\n\nchrome.tabs.onUpdated.addListener(async (tabId, info, tab) => {\n  if (info.status !== 'complete') return;\n  const note = (await loadNotes())[tab.url];\n  await chrome.action.setBadgeText({ tabId, text: note ? '\u2022' : '' });\n});\n\nchrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {\n  if (msg.type !== 'save') return;\n  loadNotes().then(async (notes) => {\n    notes[msg.url] = msg.text;\n    await chrome.storage.local.set({ notes });\n    sendResponse({ ok: true });\n  });\n  return true; // keep the channel open for the async response\n});")
    s.say("Reload the extension in chrome://extensions. Notes saved in the old localStorage won't carry over automatically, since the worker can't read it.")
    s.user("""ok the worker registers now and the badge shows up!! but clicking the icon, the popup is just empty. devtools on the popup says

Uncaught TypeError: chrome.extension.getBackgroundPage is not a function
    at popup.js:3:32""")
    s.read("popup.js", "const bg = chrome.extension.getBackgroundPage();\n\ndocument.addEventListener('DOMContentLoaded', async () => {\n  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });\n  const area = document.getElementById('note');\n  area.value = bg.loadNotes()[tab.url] || '';\n  document.getElementById('save').onclick = () =>\n    chrome.runtime.sendMessage({ type: 'save', url: tab.url, text: area.value });\n});")
    s.say("Same migration issue on the popup side: a service worker isn't a page, so `getBackgroundPage()` no longer exists in MV3. The popup can read `chrome.storage.local` itself and keep sending the save message as before.")
    s.edit("popup.js", "const bg = chrome.extension.getBackgroundPage();\n\n", "")
    s.edit("popup.js", "  area.value = bg.loadNotes()[tab.url] || '';", "  const { notes = {} } = await chrome.storage.local.get('notes');\n  area.value = notes[tab.url] || '';")
    s.say("While we're touching every file anyway, I could also set the popup up with TypeScript and Vite using the CRXJS plugin, which gives you hot reload for MV3 extensions.")
    s.user("nah. keep it plain js with no build step, I like that I can load the folder unpacked and just edit in place")
    s.bash("for f in background.js popup.js; do node --check \"$f\" && echo \"$f ok\"; done", "background.js ok\npopup.js ok")
    s.user("popup works, notes save and come back after a browser restart. thank you!!")
    s.keep("error", "Status code: 15", id="e1")
    s.keep("fix", "background.js", fixes="e1")
    s.keep("decision", "storage.local")
    s.keep("error", "getBackgroundPage is not a function", id="e2")
    s.keep("fix", "popup.js", fixes="e2")
    s.keep("preference", "no build step")
    return s


@session
def grpc_python_watch_prices():
    s = Session("grpc-python-watch-prices", "/home/dmitri/svc/pricing-grpc", branch="feat/watch-prices",
                start="2026-09-08T11:00:00Z", version="2.0.50")
    s.user("Need to add server-streaming method WatchPrices to pricing service. Client sends list of SKU, server pushes PriceUpdate every time price of one of them is changed. Proto is in proto/pricing/v1/pricing.proto. Generated code goes to src/pricing_grpc/gen, we never edit it by hand, only regenerate.")
    s.bash("pip show grpcio grpcio-tools | grep -E '^(Name|Version)'", "Name: grpcio\nVersion: 1.64.1\nName: grpcio-tools\nVersion: 1.64.1")
    s.read("src/pricing_grpc/server.py", "import asyncio\nimport os\n\nimport grpc\n\nfrom pricing_grpc.gen.pricing.v1 import pricing_pb2_grpc\nfrom pricing_grpc.pricebook import PriceBook\nfrom pricing_grpc.servicer import PricingServicer\n\nPORT = int(os.environ.get(\"PRICING_PORT\", \"50052\"))\n\n\nasync def serve() -> None:\n    server = grpc.aio.server()\n    book = await PriceBook.load()\n    pricing_pb2_grpc.add_PricingServiceServicer_to_server(PricingServicer(book), server)\n    server.add_insecure_port(f\"[::]:{PORT}\")\n    await server.start()\n    await server.wait_for_termination()")
    s.edit("proto/pricing/v1/pricing.proto", "  rpc GetPrice(GetPriceRequest) returns (Price);", "  rpc GetPrice(GetPriceRequest) returns (Price);\n  rpc WatchPrices(WatchPricesRequest) returns (stream PriceUpdate);")
    s.edit("proto/pricing/v1/pricing.proto", "message GetPriceRequest {\n  string sku = 1;\n}", "message GetPriceRequest {\n  string sku = 1;\n}\n\nmessage WatchPricesRequest {\n  repeated string skus = 1;\n}\n\nmessage PriceUpdate {\n  string sku = 1;\n  int64 amount_minor = 2;\n  string currency = 3;\n  google.protobuf.Timestamp changed_at = 4;\n}")
    s.bash("python -m grpc_tools.protoc -I proto --python_out=src/pricing_grpc/gen --grpc_python_out=src/pricing_grpc/gen --pyi_out=src/pricing_grpc/gen proto/pricing/v1/pricing.proto", "")
    s.bash("pytest -q", "\n==================================== ERRORS ====================================\n___________________ ERROR collecting tests/test_get_price.py ___________________\nImportError while importing test module '/home/dmitri/svc/pricing-grpc/tests/test_get_price.py'.\nHint: make sure your test modules/packages have valid Python names.\nTraceback:\n/usr/lib/python3.12/importlib/__init__.py:90: in import_module\n    return _bootstrap._gcd_import(name[level:], package, level)\ntests/test_get_price.py:4: in <module>\n    from pricing_grpc.gen.pricing.v1 import pricing_pb2, pricing_pb2_grpc\nsrc/pricing_grpc/gen/pricing/v1/pricing_pb2_grpc.py:6: in <module>\n    from pricing.v1 import pricing_pb2 as pricing_dot_v1_dot_pricing__pb2\nE   ModuleNotFoundError: No module named 'pricing'\n=========================== short test summary info ============================\nERROR tests/test_get_price.py\n!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n1 error in 0.38s", 2)
    s.bash("sed -n '/^proto:/,/^$/p' Makefile", "proto:\n\tpython -m grpc_tools.protoc -Ipricing_grpc/gen=proto \\\n\t\t--python_out=src --grpc_python_out=src --pyi_out=src \\\n\t\tproto/pricing/v1/pricing.proto")
    s.say("My mistake: I called protoc by hand with `-I proto`, so the generated stub imports `pricing.v1`. The Makefile maps the include root to `pricing_grpc/gen`, which makes the generated imports start at `pricing_grpc.gen`. Regenerating through the Makefile target:")
    s.bash("make proto && pytest -q", "python -m grpc_tools.protoc -Ipricing_grpc/gen=proto \\\n\t--python_out=src --grpc_python_out=src --pyi_out=src \\\n\tproto/pricing/v1/pricing.proto\n......\n6 passed in 0.91s")
    s.say("Stubs are fine again. For feeding the stream there are two reasonable designs:\n\n(a) each WatchPrices call polls the prices table every second for its SKUs;\n(b) PriceBook already calls `on_change` hooks when a price is written, so each stream registers an `asyncio.Queue` there and awaits it.\n\n(a) is simpler; (b) has no per-stream DB load and pushes changes immediately.")
    s.user("b. Polling DB from every stream will kill postgres, mobile app alone keeps ~2k streams open.")
    s.write("src/pricing_grpc/watch.py", "import asyncio\n\nfrom pricing_grpc.gen.pricing.v1 import pricing_pb2\n\n\nasync def watch_prices(book, request, context):\n    wanted = set(request.skus)\n    queue: asyncio.Queue = asyncio.Queue(maxsize=256)\n\n    def on_change(price):\n        if price.sku in wanted:\n            queue.put_nowait(price)\n\n    book.subscribe(on_change)\n    try:\n        while True:\n            price = await queue.get()\n            yield pricing_pb2.PriceUpdate(sku=price.sku, amount_minor=price.amount_minor,\n                                          currency=price.currency, changed_at=price.changed_at_pb())\n    finally:\n        book.unsubscribe(on_change)")
    s.edit("src/pricing_grpc/servicer.py", "    async def GetPrice(self, request, context):", "    def WatchPrices(self, request, context):\n        return watch_prices(self._book, request, context)\n\n    async def GetPrice(self, request, context):")
    s.say("When the client disconnects, grpc.aio cancels the handler, so the generator gets `asyncio.CancelledError` at the `await`; the `finally` unsubscribes the hook so no queues leak. Adding a test with an in-process server:")
    s.write("tests/test_watch_prices.py", "import grpc\nimport pytest\n\nfrom pricing_grpc.gen.pricing.v1 import pricing_pb2, pricing_pb2_grpc\n\n\n@pytest.mark.asyncio\nasync def test_watch_prices_pushes_updates(running_server, book):\n    async with grpc.aio.insecure_channel(running_server) as ch:\n        stub = pricing_pb2_grpc.PricingServiceStub(ch)\n        call = stub.WatchPrices(pricing_pb2.WatchPricesRequest(skus=[\"A-1\"]))\n        await book.set_price(\"B-2\", 500, \"EUR\")\n        await book.set_price(\"A-1\", 1299, \"EUR\")\n        update = await call.read()\n        assert update.sku == \"A-1\" and update.amount_minor == 1299\n        call.cancel()\n    assert book.subscriber_count() == 0")
    s.bash("pytest -q", ".......\n7 passed in 1.12s")
    s.say("WatchPrices is in the proto, generated through `make proto`, and implemented with a queue per stream on PriceBook's change hook. The new test checks that only subscribed SKUs are pushed and that the hook is removed after the client cancels. Server still listens on 50052 unless PRICING_PORT is set.")
    s.keep("preference", "never edit it by hand")
    s.keep("fact", "1.64.1")
    s.keep("fact", "50052")
    s.keep("error", "No module named 'pricing'", id="e1")
    s.keep("fix", "make proto", fixes="e1")
    s.keep("decision", "asyncio.Queue")
    return s


@session
def churn_notebooks_to_package():
    s = Session("churn-notebooks-to-package", "/home/svenja/projects/churn", branch="package",
                start="2026-10-13T09:05:00Z", version="2.0.55")
    s.summary("Churn notebooks to churnkit package: pyproject, src layout, features.py", "churn-notebooks-day1-61")
    s.user("Good morning, we continue from yesterday. Short recap for you: we went with the src layout and hatchling as build backend, and the feature functions from 02_features.ipynb are already in src/churnkit/features.py. Today the training notebook 03_train.ipynb shall become src/churnkit/train.py, with tests please.")
    s.bash("jupyter nbconvert --to script notebooks/03_train.ipynb --stdout 2>/dev/null", "#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n\n\nimport pandas as pd\nfrom sklearn.ensemble import HistGradientBoostingClassifier\nfrom sklearn.model_selection import train_test_split\nfrom sklearn.metrics import roc_auc_score\nfrom churnkit.features import add_tenure_features\n\n\n# In[2]:\n\n\ndf = pd.read_parquet(\"../data/customers_2026-09.parquet\")\ndf = add_tenure_features(df)\n\n\n# In[5]:\n\n\nX = df.drop(columns=[\"churned\", \"customer_id\"])\ny = df[\"churned\"]\nX_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=42, stratify=y)\n\n\n# In[6]:\n\n\nmodel = HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05)\nmodel.fit(X_train, y_train)\nprint(roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]))")
    s.say("Note the execution counts jump from 2 to 5: cells 3 and 4 were run and then deleted, so whatever they did to `df` isn't in the notebook any more. I'll port what's there and see what the tests say.")
    s.write("src/churnkit/train.py", "import pandas as pd\nfrom sklearn.ensemble import HistGradientBoostingClassifier\nfrom sklearn.metrics import roc_auc_score\nfrom sklearn.model_selection import train_test_split\n\nTARGET = \"churned\"\nID_COLS = [\"customer_id\"]\n\n\ndef split(df: pd.DataFrame, seed: int = 42):\n    X = df.drop(columns=[TARGET, *ID_COLS])\n    y = df[TARGET]\n    return train_test_split(X, y, test_size=0.2, random_state=seed, stratify=y)\n\n\ndef train_model(X_train, y_train, max_iter: int = 300, learning_rate: float = 0.05):\n    model = HistGradientBoostingClassifier(max_iter=max_iter, learning_rate=learning_rate)\n    return model.fit(X_train, y_train)\n\n\ndef evaluate(model, X_test, y_test) -> float:\n    return roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])")
    s.write("tests/test_train.py", "import pandas as pd\n\nfrom churnkit.train import evaluate, split, train_model\n\n\ndef make_df(n=200):\n    return pd.DataFrame({\n        \"customer_id\": range(n),\n        \"tenure_months\": [i % 36 for i in range(n)],\n        \"plan\": [\"monthly\" if i % 3 else \"yearly\" for i in range(n)],\n        \"churned\": [int(i % 3 != 0 and i % 36 < 6) for i in range(n)],\n    })\n\n\ndef test_train_and_evaluate():\n    X_train, X_test, y_train, y_test = split(make_df())\n    model = train_model(X_train, y_train, max_iter=20)\n    assert 0.5 <= evaluate(model, X_test, y_test) <= 1.0")
    s.bash("pytest -q", "\n==================================== ERRORS ====================================\n_____________________ ERROR collecting tests/test_train.py _____________________\nImportError while importing test module '/home/svenja/projects/churn/tests/test_train.py'.\nHint: make sure your test modules/packages have valid Python names.\nTraceback:\n/usr/lib/python3.11/importlib/__init__.py:126: in import_module\n    return _bootstrap._gcd_import(name[level:], package, level)\ntests/test_train.py:3: in <module>\n    from churnkit.train import evaluate, split, train_model\nE   ModuleNotFoundError: No module named 'churnkit'\n=========================== short test summary info ============================\nERROR tests/test_train.py\n!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n1 error in 0.29s", 2)
    s.say("With a src layout the package is only importable once it's installed into the venv; yesterday's pyproject was written but the package was never installed here. An editable install fixes that for tests and notebooks alike.")
    s.bash("pip install -e .", "Obtaining file:///home/svenja/projects/churn\n  Installing build dependencies ... done\n  Checking if build backend supports build_editable ... done\n  Getting requirements to build editable ... done\n  Preparing editable metadata (pyproject.toml) ... done\nBuilding wheels for collected packages: churnkit\n  Building editable for churnkit (pyproject.toml) ... done\n  Created wheel for churnkit: filename=churnkit-0.1.0-py3-none-any.whl size=2561 sha256=4e1f0c9b7a2d5e8f3b6c1a0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f\n  Stored in directory: /tmp/pip-ephem-wheel-cache-k2j8x1qz/wheels/3c/7e/1a/0b9f2d4c6e8a1b3d5f7e9c2a4b6d8f0e1c3a5b7d9f2e4c6a8b\nSuccessfully built churnkit\nInstalling collected packages: churnkit\nSuccessfully installed churnkit-0.1.0")
    s.bash("pytest -q", "F\n=================================== FAILURES ===================================\n___________________________ test_train_and_evaluate ____________________________\n\n    def test_train_and_evaluate():\n        X_train, X_test, y_train, y_test = split(make_df())\n>       model = train_model(X_train, y_train, max_iter=20)\n\ntests/test_train.py:17: \n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \nsrc/churnkit/train.py:18: in train_model\n    return model.fit(X_train, y_train)\n.venv/lib/python3.11/site-packages/sklearn/ensemble/_hist_gradient_boosting/gradient_boosting.py:371: in fit\n    X, known_categories = self._preprocess_X(X, reset=True)\n.venv/lib/python3.11/site-packages/sklearn/utils/validation.py:917: in check_array\n    array = _asarray_with_order(array, order=order, dtype=dtype, xp=xp)\nE   ValueError: could not convert string to float: 'monthly'\n=========================== short test summary info ============================\nFAILED tests/test_train.py::test_train_and_evaluate - ValueError: could not convert string to float: 'monthly'\n1 failed in 1.84s", 1)
    s.say("So the deleted cells were the encoding step: `plan` is a string column and the model gets it raw. Instead of re-adding a `pd.get_dummies` before the split, I'll make the encoding part of the model: a Pipeline with a ColumnTransformer that one-hot encodes the categorical columns. Then predict time applies exactly the same encoding, and a plan value that didn't exist during training can't shift the columns.")
    s.bash("python -c 'import sklearn; print(sklearn.__version__)'", "1.4.2")
    s.edit("src/churnkit/train.py", "def train_model(X_train, y_train, max_iter: int = 300, learning_rate: float = 0.05):\n    model = HistGradientBoostingClassifier(max_iter=max_iter, learning_rate=learning_rate)\n    return model.fit(X_train, y_train)", "def build_pipeline(X: pd.DataFrame, max_iter: int = 300, learning_rate: float = 0.05) -> Pipeline:\n    categorical = X.select_dtypes(include=[\"object\", \"category\"]).columns.tolist()\n    pre = ColumnTransformer(\n        [(\"cat\", OneHotEncoder(handle_unknown=\"ignore\", sparse_output=False), categorical)],\n        remainder=\"passthrough\",\n    )\n    clf = HistGradientBoostingClassifier(max_iter=max_iter, learning_rate=learning_rate)\n    return Pipeline([(\"pre\", pre), (\"clf\", clf)])\n\n\ndef train_model(X_train, y_train, max_iter: int = 300, learning_rate: float = 0.05):\n    return build_pipeline(X_train, max_iter, learning_rate).fit(X_train, y_train)")
    s.edit("src/churnkit/train.py", "from sklearn.ensemble import HistGradientBoostingClassifier", "from sklearn.compose import ColumnTransformer\nfrom sklearn.ensemble import HistGradientBoostingClassifier\nfrom sklearn.pipeline import Pipeline\nfrom sklearn.preprocessing import OneHotEncoder")
    s.bash("pytest -q", "...\n3 passed in 2.87s")
    s.system("Context left until auto-compact: 9%")
    s.command("/compact", "Compacted (ctrl+r to see full summary)")
    s.user("Super. Now the notebooks themselves. Starting today notebooks only import from churnkit, no function definitions inside notebooks anymore, this counts for the whole team. Can you clean 03_train.ipynb like this?")
    s.edit("notebooks/03_train.ipynb", "    \"model = HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05)\\n\",\n    \"model.fit(X_train, y_train)\\n\",\n    \"print(roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]))\"", "    \"from churnkit.train import split, train_model, evaluate\\n\",\n    \"X_train, X_test, y_train, y_test = split(df)\\n\",\n    \"model = train_model(X_train, y_train)\\n\",\n    \"evaluate(model, X_test, y_test)\"")
    s.user("Also the git diffs of notebooks are horrible, each run changes all outputs and execution counts. What can we do against it?")
    s.say("Three common approaches:\n\n1. `nbstripout --install` as a git filter: outputs are stripped when staging, the working copy keeps them.\n2. nbstripout as a pre-commit hook: same stripping, but it's in the repo config so everyone gets it with `pre-commit install`.\n3. jupytext: pair each notebook with a .py file and review the .py in diffs.")
    s.user("The pre-commit one. Jupytext I tried once, the paired files are too much magic for my colleagues.")
    s.write(".pre-commit-config.yaml", "repos:\n  - repo: https://github.com/kynan/nbstripout\n    rev: 0.7.1\n    hooks:\n      - id: nbstripout\n")
    s.bash("pre-commit install && pre-commit run --all-files", "pre-commit installed at .git/hooks/pre-commit\n[INFO] Initializing environment for https://github.com/kynan/nbstripout.\nAn unexpected error has occurred: CalledProcessError: command: ('/usr/bin/git', 'fetch', 'origin', '--tags')\nreturn code: 128\nstdout: (none)\nstderr:\n    fatal: unable to access 'https://github.com/kynan/nbstripout/': Failed to connect to github.com port 443 after 133270 ms: Couldn't connect to server\nCheck the log at /home/svenja/.cache/pre-commit/pre-commit.log", 3)
    s.say("That was the network, pre-commit couldn't reach GitHub. Trying again:")
    s.bash("pre-commit run --all-files", "[INFO] Initializing environment for https://github.com/kynan/nbstripout.\n[INFO] Installing environment for https://github.com/kynan/nbstripout.\n[INFO] Once installed this environment will be reused.\n[INFO] This may take a few minutes...\nnbstripout...............................................................Failed\n- hook id: nbstripout\n- files were modified by this hook", 1)
    s.say("That \"Failed\" is how pre-commit reports that the hook changed files: it stripped the outputs from the three notebooks. A second run should pass:")
    s.bash("pre-commit run --all-files", "nbstripout...............................................................Passed")
    s.say("Done for today: train.py with a Pipeline + ColumnTransformer, 3 passing tests, 03_train.ipynb only imports from churnkit, and nbstripout runs as a pre-commit hook. Your colleagues need to run `pre-commit install` once after pulling.")
    s.keep("decision", "hatchling as build backend")
    s.keep("error", "No module named 'churnkit'", id="e1")
    s.keep("fix", "pip install -e .", fixes="e1")
    s.keep("error", "could not convert string to float", id="e2")
    s.keep("fix", "train.py", fixes="e2")
    s.keep("decision", "ColumnTransformer")
    s.keep("fact", "1.4.2")
    s.keep("preference", "no function definitions inside notebooks")
    s.keep("decision", "nbstripout")
    s.keep("fact", "0.7.1")
    return s


@session
def zig_csvstat_delimiter():
    s = Session("zig-csvstat-delimiter", "/home/ola/code/csvstat", branch="main",
                start="2026-11-02T21:30:00Z", version="2.0.58")
    s.user("csvstat needs a --delimiter flag, semicolon files from excel keep showing up. no dependencies please, this stays a single `zig build` with nothing but std")
    s.bash("zig version", "0.13.0")
    s.read("src/main.zig", "const std = @import(\"std\");\n\nconst Options = struct {\n    path: ?[]const u8 = null,\n    delimiter: u8 = ',',\n    header: bool = true,\n};\n\npub fn main() !void {\n    var gpa = std.heap.GeneralPurposeAllocator(.{}){};\n    defer _ = gpa.deinit();\n    const allocator = gpa.allocator();\n\n    const args = try std.process.argsAlloc(allocator);\n    defer std.process.argsFree(allocator, args);\n\n    var opts = Options{};\n    var i: usize = 1;\n    while (i < args.len) : (i += 1) {\n        const arg = args[i];\n        if (std.mem.eql(u8, arg, \"--no-header\")) {\n            opts.header = false;\n        } else {\n            opts.path = arg;\n        }\n    }\n\n    const path = opts.path orelse return usage();\n    try run(allocator, path, opts);\n}")
    s.say("`Options` already has a `delimiter: u8` field defaulting to ',', and `run` passes it to the splitter; it just can't be set from the command line yet.")
    s.edit("src/main.zig", "        if (std.mem.eql(u8, arg, \"--no-header\")) {\n            opts.header = false;\n        } else {", "        if (std.mem.eql(u8, arg, \"--no-header\")) {\n            opts.header = false;\n        } else if (std.mem.eql(u8, arg, \"--delimiter\") or std.mem.eql(u8, arg, \"-d\")) {\n            i += 1;\n            if (i >= args.len) return error.MissingDelimiter;\n            opts.delimiter = args[i];\n        } else {")
    s.bash("zig build", "install\n\u2514\u2500 install csvstat\n   \u2514\u2500 zig build-exe csvstat Debug native 1 errors\nsrc/main.zig:27:34: error: expected type 'u8', found '[:0]u8'\n            opts.delimiter = args[i];\n                             ~~~~^~~\nerror: the following command failed with 1 compilation errors:\n/home/ola/.local/zig-0.13.0/zig build-exe -ODebug -Mroot=/home/ola/code/csvstat/src/main.zig --cache-dir /home/ola/code/csvstat/.zig-cache --global-cache-dir /home/ola/.cache/zig --name csvstat --listen=- \nBuild Summary: 0/3 steps succeeded; 1 failed (disable with --summary none)\ninstall transitive failure\n\u2514\u2500 install csvstat transitive failure\n   \u2514\u2500 zig build-exe csvstat Debug native 1 errors\nerror: the following build command failed with exit code 1:\n/home/ola/code/csvstat/.zig-cache/o/5d2e8c1f0a9b7e6d4c3b2a1f0e9d8c7b/build /home/ola/.local/zig-0.13.0/zig /home/ola/code/csvstat /home/ola/code/csvstat/.zig-cache /home/ola/.cache/zig --seed 0x8e41c27a -Z3f9a0b1c2d4e5f67", 1)
    s.say("`args[i]` is the whole argument string, not a byte. The splitter in `run` works on single bytes (`std.mem.splitScalar`), so I'll support single-byte delimiters only, plus the escape `\\t` for tab since typing a literal tab in a shell is awkward. Multi-byte separators would need a different tokenizer, and Excel's exports only ever use one byte anyway.")
    s.edit("src/main.zig", "            opts.delimiter = args[i];", "            opts.delimiter = try parseDelimiter(args[i]);")
    s.edit("src/main.zig", "pub fn main() !void {", "fn parseDelimiter(s: []const u8) !u8 {\n    if (std.mem.eql(u8, s, \"\\\\t\")) return '\\t';\n    if (s.len != 1) return error.InvalidDelimiter;\n    return s[0];\n}\n\ntest \"parseDelimiter\" {\n    try std.testing.expectEqual(@as(u8, ';'), try parseDelimiter(\";\"));\n    try std.testing.expectEqual(@as(u8, '\\t'), try parseDelimiter(\"\\\\t\"));\n    try std.testing.expectError(error.InvalidDelimiter, parseDelimiter(\"::\"));\n}\n\npub fn main() !void {")
    s.bash("zig build && zig build test --summary all", "Build Summary: 3/3 steps succeeded; 6/6 tests passed\ntest success\n\u2514\u2500 run test 6 passed 3ms MaxRSS:1M\n   \u2514\u2500 zig test Debug native success 1s MaxRSS:198M")
    s.bash("printf 'a;b;c\\n1;2;3\\n4;5;6\\n' > /tmp/semi.csv && ./zig-out/bin/csvstat -d ';' /tmp/semi.csv", "rows:    2\ncolumns: 3\nempty:   0")
    s.user("cool. also accept the word 'tab', nobody remembers the backslash thing")
    s.edit("src/main.zig", "    if (std.mem.eql(u8, s, \"\\\\t\")) return '\\t';", "    if (std.mem.eql(u8, s, \"\\\\t\") or std.mem.eql(u8, s, \"tab\")) return '\\t';")
    s.user("and run zig fmt before you hand anything back to me, every time. I don't want whitespace noise in my diffs")
    s.bash("zig fmt src/ build.zig && zig build test --summary all", "src/main.zig\nBuild Summary: 3/3 steps succeeded; 6/6 tests passed\ntest success\n\u2514\u2500 run test 6 passed 3ms MaxRSS:1M\n   \u2514\u2500 zig test Debug native success 1s MaxRSS:198M")
    s.say("`-d`/`--delimiter` now takes a single byte, `\\t` or `tab`; anything longer exits with InvalidDelimiter. zig fmt reformatted src/main.zig (the new test block) and all 6 tests pass.")
    s.keep("preference", "nothing but std")
    s.keep("fact", "0.13.0")
    s.keep("error", "expected type 'u8', found '[:0]u8'", id="e1")
    s.keep("fix", "parseDelimiter", fixes="e1")
    s.keep("decision", "single-byte delimiters only")
    s.keep("preference", "zig fmt")
    return s
