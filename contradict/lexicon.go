package contradict

import "strings"

// toolKind is a tool's kind and its canonical name.
type toolKind struct{ kind, name string }

// tools maps a tool's spellings (lower case, one or two words) to its
// kind: tools of one kind are alternatives — a project formats its Python
// with one formatter, runs its JavaScript tests with one runner — so two
// memories of one subject naming two of them disagree unless the new one
// keeps the old. General knowledge of the ecosystems a coding assistant
// meets, written once; a kind holds only true alternatives (a unit-test
// runner and a browser-test driver are two kinds).
var tools = map[string]toolKind{}

// products are the names whose version a memory may pin (Node 20,
// python:3.12-slim, nodejs16.x) that are not in tools, by spelling.
var products = map[string]string{}

func init() {
	kinds := map[string][]string{
		// JavaScript and TypeScript
		"js-package-manager": {"npm", "pnpm", "yarn", "bun"},
		"js-bundler":         {"webpack", "vite", "rollup", "parcel", "esbuild", "turbopack", "rspack", "browserify", "snowpack"},
		"js-test":            {"jest", "vitest", "mocha", "jasmine", "ava", "karma"},
		"browser-test":       {"cypress", "playwright", "selenium", "puppeteer", "webdriverio", "testcafe", "nightwatch"},
		"js-format":          {"prettier", "dprint"},
		"js-lint":            {"eslint", "tslint", "jshint", "jslint", "oxlint"},
		"js-date":            {"moment|momentjs", "date-fns", "dayjs", "luxon"},
		"js-http-client":     {"axios", "superagent", "node-fetch"},
		"js-server":          {"express|expressjs", "fastify", "koa", "hapi", "nestjs"},
		"ui-framework":       {"react|reactjs", "vue|vuejs", "angular", "svelte", "solidjs", "preact"},
		"js-meta-framework":  {"next.js|nextjs", "nuxt", "remix", "sveltekit", "gatsby", "astro"},
		"js-state":           {"redux", "mobx", "zustand", "recoil", "jotai", "pinia", "vuex"},
		"css-framework":      {"tailwind|tailwindcss", "bulma"},
		"css-in-js":          {"styled-components", "vanilla-extract"},
		"js-logger":          {"pino", "winston", "bunyan"},
		"js-orm":             {"prisma", "typeorm", "sequelize", "drizzle", "knex", "mikro-orm", "objection"},
		"monorepo-tool":      {"nx", "turborepo", "lerna"},
		"node-version-tool":  {"nvm", "fnm", "volta"},
		// Python
		"py-package-manager": {"pip", "pipenv", "poetry", "uv", "pdm", "conda"},
		"py-test":            {"pytest", "unittest", "nose", "nose2"},
		"py-format":          {"black", "yapf", "autopep8", "ruff format"},
		"py-lint":            {"flake8", "pylint", "ruff", "pyflakes"},
		"py-typecheck":       {"mypy", "pyright", "pyre", "pytype"},
		"py-web":             {"django", "flask", "fastapi", "starlette", "tornado", "pyramid", "bottle", "sanic"},
		"py-http-client":     {"httpx", "aiohttp", "urllib3"},
		"py-task-queue":      {"celery", "rq", "dramatiq", "huey", "arq"},
		"py-orm":             {"sqlalchemy", "peewee"},
		"py-logger":          {"structlog", "loguru"},
		// Go, Rust, JVM, Ruby, .NET, mobile
		"go-lint":        {"golint", "golangci-lint"},
		"go-logger":      {"zerolog", "logrus", "log/slog"},
		"go-router":      {"gin", "gorilla/mux", "httprouter"},
		"go-orm":         {"gorm", "sqlx", "sqlc"},
		"jvm-build":      {"gradle", "maven", "sbt"},
		"java-test":      {"junit", "testng", "spock"},
		"ruby-job-queue": {"sidekiq", "resque", "delayed_job", "good_job", "sucker_punch"},
		"ruby-test":      {"rspec", "minitest"},
		"js-job-queue":   {"bullmq", "bee-queue"},
		"ios-deps":       {"cocoapods", "carthage", "swift package manager|spm"},
		"mobile-framework": {
			"react native", "flutter", "xamarin", "cordova", "kotlin multiplatform"},
		// data stores, queues, infrastructure
		"sql-database":     {"postgres|postgresql|psql", "mysql", "mariadb", "sqlite|sqlite3", "mssql|sql server", "cockroachdb"},
		"document-store":   {"mongodb|mongo", "couchdb", "dynamodb", "firestore", "cosmosdb"},
		"cache-store":      {"redis", "memcached", "valkey", "keydb", "dragonfly"},
		"message-broker":   {"kafka", "rabbitmq", "sqs", "nats", "pulsar", "kinesis", "pubsub|pub/sub", "activemq", "eventbridge"},
		"search-engine":    {"elasticsearch", "opensearch", "solr", "algolia", "meilisearch", "typesense"},
		"schema-migration": {"alembic", "flyway", "liquibase", "goose", "golang-migrate", "dbmate"},
		"ci": {"github actions", "gitlab ci|gitlab-ci|.gitlab-ci.yml", "circleci", "travis|travis ci", "jenkins", "buildkite",
			"azure pipelines", "teamcity", "bitbucket pipelines"},
		"cloud":              {"aws", "gcp|google cloud", "azure", "digitalocean", "heroku", "fly.io", "linode", "hetzner", "vercel", "netlify"},
		"orchestrator":       {"kubernetes|k8s", "nomad", "ecs", "docker swarm", "mesos"},
		"infra-as-code":      {"terraform", "pulumi", "cloudformation", "cdk", "opentofu"},
		"k8s-packaging":      {"helm", "kustomize", "jsonnet"},
		"gitops":             {"argocd|argo cd", "fluxcd", "spinnaker"},
		"secret-store":       {"vault", "secrets manager", "doppler", "1password", "sops", "parameter store", "key vault", "infisical"},
		"container-registry": {"ghcr|ghcr.io", "ecr", "docker hub|dockerhub", "gcr|gcr.io", "quay.io", "artifact registry"},
		"base-image":         {"alpine", "debian", "ubuntu", "distroless", "centos", "amazonlinux|amazon linux", "fedora", "rhel"},
		"reverse-proxy":      {"nginx", "httpd", "caddy", "traefik", "haproxy"},
		"object-storage":     {"s3", "gcs", "minio", "azure blob", "r2", "backblaze"},
		"cdn":                {"cloudfront", "fastly", "akamai", "cloudflare"},
		"workflow-engine":    {"airflow", "dagster", "prefect", "luigi", "argo workflows", "step functions"},
		"error-tracking":     {"sentry", "rollbar", "bugsnag", "honeybadger", "airbrake", "raygun"},
		"log-platform":       {"datadog", "splunk", "loggly", "papertrail", "logdna", "new relic|newrelic", "sumo logic", "graylog", "loki"},
		"metrics-store":      {"prometheus", "graphite", "influxdb", "statsd", "victoriametrics"},
		"tracing":            {"jaeger", "zipkin"},
		"paging":             {"pagerduty", "opsgenie", "victorops", "incident.io"},
		"chat":               {"slack", "microsoft teams", "discord", "mattermost", "zulip"},
		"issue-tracker":      {"jira", "github issues", "asana", "youtrack"},
		"feature-flags":      {"launchdarkly", "unleash", "flagsmith", "growthbook", "configcat", "split.io", "statsig"},
		"email-provider":     {"postmark", "sendgrid", "mailgun", "mailchimp", "mandrill", "sparkpost"},
		"auth-provider":      {"auth0", "okta", "cognito", "keycloak", "firebase auth", "supertokens"},
		"password-hash":      {"bcrypt", "argon2|argon2id|argon2i", "scrypt", "pbkdf2"},
		"jwt-algorithm":      {"rs256", "hs256", "es256", "ps256", "eddsa"},
		"ml-framework":       {"pytorch|torch", "tensorflow", "jax", "mxnet"},
		"ml-serving":         {"triton", "torchserve", "tensorflow serving", "bentoml", "seldon", "kserve", "ray serve", "vllm"},
		"experiment-track":   {"mlflow", "wandb|weights & biases|w&b", "comet", "neptune"},
		"float-precision":    {"fp32", "fp16", "bf16", "tf32", "fp8"},
		"doc-site":           {"sphinx", "mkdocs", "docusaurus", "jekyll", "vitepress", "gitbook"},
		"optimizer":          {"adamw", "adam", "sgd", "rmsprop", "adagrad", "adafactor", "lion"},
		"cpp-build":          {"cmake", "meson", "bazel"},
	}
	for kind, names := range kinds {
		for _, group := range names {
			spellings := strings.Split(group, "|")
			for _, s := range spellings {
				tools[s] = toolKind{kind, spellings[0]}
			}
		}
	}
	for _, group := range []string{"node|nodejs|node.js", "python|python3|py", "go|golang", "java|jdk|openjdk", "ruby", "rails",
		"php", "rust|rustc", "kotlin", "swift", "scala", "dotnet|.net", "elixir", "erlang", "dart",
		"typescript|ts", "javascript|js", "yaml|yml", "json", "toml", "xcode", "ios", "android", "docker", "cuda", "numpy", "pandas", "openssl", "gcc", "clang", "llvm", "electron",
		"chrome", "safari", "firefox", "windows", "macos", "laravel", "symfony", "tls",
		"mongoose", "protobuf"} {
		spellings := strings.Split(group, "|")
		for _, s := range spellings {
			products[s] = spellings[0]
		}
	}
}

// toolOf finds the tool a word names: as written, or before its first dot
// (moment.js, jest.config.ts, webpack.config.js).
func toolOf(w string) (toolKind, bool) {
	if k, ok := tools[w]; ok {
		return k, true
	}
	if i := strings.IndexByte(w, '.'); i > 0 {
		if k, ok := tools[w[:i]]; ok {
			return k, true
		}
	}
	if p := productName(w); p != w {
		if k, ok := tools[p]; ok {
			return k, true
		}
	}
	return toolKind{}, false
}
