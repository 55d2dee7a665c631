"""A small grammar of agent-configuration prose: the vocabulary and sentence templates the generator fills.

Templates are grouped by the five item types the classifiers learn (C constraint, P procedure, B belief/fact,
F preference, E episodic note) and sections are biased towards the types real files put under them, so the
synthetic corpus exercises segmentation, tagging, dedupe and classification rather than repeating one text.
Templates are parsed once into literal/slot pieces so filling them is a handful of list look-ups.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ---- project ecosystems: (language, frameworks, package managers, test, build, lint, file extension) --------
ECOSYSTEMS: tuple[tuple, ...] = (
    ("TypeScript", ("Next.js", "React", "Express", "NestJS", "Remix", "SvelteKit", "Vue 3", "Astro", "Hono"),
     ("pnpm", "npm", "yarn", "bun"), ("pnpm test", "npm test", "yarn test", "bun test", "npx vitest run", "npx jest"),
     ("pnpm build", "npm run build", "yarn build", "bun run build", "npx tsc --noEmit"),
     ("pnpm lint", "npm run lint", "npx eslint .", "npx biome check ."), "ts"),
    ("JavaScript", ("React", "Express", "Vue", "Electron", "Node.js"), ("npm", "yarn", "pnpm"),
     ("npm test", "yarn test", "npx jest --watch=false"), ("npm run build", "yarn build"),
     ("npm run lint", "npx eslint . --fix", "npx prettier --check ."), "js"),
    ("Python", ("FastAPI", "Django", "Flask", "PyTorch", "Typer", "pandas", "Pydantic", "Celery"),
     ("uv", "pip", "poetry"), ("pytest", "pytest -x -q", "uv run pytest", "python -m pytest tests/", "tox -e py311"),
     ("uv sync", "pip install -e .", "poetry install", "make build"),
     ("ruff check .", "uv run ruff check --fix", "mypy src", "black --check ."), "py"),
    ("Go", ("Gin", "Echo", "chi", "Cobra", "gRPC", "net/http"), ("go",),
     ("go test ./...", "go test -race ./...", "make test"), ("go build ./...", "make build"),
     ("golangci-lint run", "go vet ./..."), "go"),
    ("Rust", ("Axum", "Tokio", "Actix", "Bevy", "Tauri", "clap"), ("cargo",),
     ("cargo test", "cargo nextest run", "cargo test --all-features"), ("cargo build --release", "cargo build"),
     ("cargo clippy -- -D warnings", "cargo fmt --check"), "rs"),
    ("Java", ("Spring Boot", "Quarkus", "Micronaut"), ("gradle", "maven"), ("./gradlew test", "mvn test"),
     ("./gradlew build", "mvn package -DskipTests"), ("./gradlew spotlessCheck", "mvn checkstyle:check"), "java"),
    ("Ruby", ("Rails", "Sinatra", "Hanami"), ("bundler",), ("bundle exec rspec", "bin/rails test"),
     ("bundle install", "bin/setup"), ("bundle exec rubocop",), "rb"),
    ("C#", (".NET 8", "ASP.NET Core", "Unity", "Blazor"), ("dotnet",), ("dotnet test",), ("dotnet build",),
     ("dotnet format --verify-no-changes",), "cs"),
    ("PHP", ("Laravel", "Symfony", "WordPress"), ("composer",), ("php artisan test", "vendor/bin/phpunit"),
     ("composer install",), ("vendor/bin/phpstan analyse", "vendor/bin/pint --test"), "php"),
    ("Swift", ("SwiftUI", "Vapor", "UIKit"), ("swiftpm",), ("swift test", "xcodebuild test -scheme App"),
     ("swift build",), ("swiftlint",), "swift"),
    ("Kotlin", ("Ktor", "Jetpack Compose", "Android"), ("gradle",), ("./gradlew test",),
     ("./gradlew assembleDebug",), ("./gradlew ktlintCheck",), "kt"),
)
ECOSYSTEM_WEIGHTS = (30, 8, 24, 9, 7, 5, 3, 4, 3, 3, 4)

DATABASES = ("PostgreSQL", "SQLite", "MySQL", "MongoDB", "Redis", "DynamoDB", "Supabase", "ClickHouse", "DuckDB")
DIRS = ("src", "src/lib", "src/api", "src/components", "app", "lib", "internal", "pkg", "cmd", "core", "server",
        "client", "packages/ui", "packages/core", "services/auth", "services/billing", "scripts", "tests", "e2e",
        "docs", "migrations", "infra", "config", "src/utils", "src/hooks", "src/routes", "backend", "frontend")
GENERATED_DIRS = ("dist", "build", "node_modules", "vendor", "generated", ".next", "target", "out", "coverage")
MODULES = ("auth", "billing", "payments", "search", "notifications", "users", "orders", "inventory", "analytics",
           "ingest", "scheduler", "cache", "gateway", "reports", "webhooks", "sync", "editor", "parser", "importer",
           "exporter", "metrics", "sessions", "checkout", "catalog", "feeds", "uploads", "permissions", "audit")
TOOLS = ("Docker", "docker compose", "Terraform", "GitHub Actions", "Kubernetes", "Makefile", "pre-commit",
         "Playwright", "Storybook", "Sentry", "OpenTelemetry", "Prisma", "Drizzle", "Alembic", "Tailwind CSS",
         "Zod", "tRPC", "GraphQL", "Redux", "Zustand", "Vite", "Webpack", "Turborepo", "Nx", "Bazel")
STYLES = ("camelCase", "snake_case", "PascalCase", "kebab-case")
QUALITIES = ("small", "focused", "pure", "well-named", "typed", "documented", "idempotent", "testable")
THINGS_A = ("composition", "early returns", "named exports", "async/await", "dataclasses", "interfaces",
            "immutable data", "explicit types", "small modules", "plain functions", "integration tests",
            "server components", "structured logging", "dependency injection", "table-driven tests")
THINGS_B = ("inheritance", "nested conditionals", "default exports", "raw promises", "dicts", "abstract classes",
            "global state", "type inference everywhere", "large files", "classes", "mocks", "client components",
            "print debugging", "singletons", "copy-pasted tests")
ACTIONS = ("refactor", "rename", "delete", "move", "reformat", "rewrite", "upgrade")
EVENTS = ("Migrated {mod} from {b} to {a}", "Fixed a flaky test in {mod}; root cause was a timezone assumption",
          "Upgraded {fw} to the latest major version", "Switched the CI runner to {tool}",
          "Removed the legacy {mod} endpoint", "Split {mod} out of the monolith", "Added retries to the {mod} client",
          "Moved configuration into environment variables", "Introduced {tool} for {mod}",
          "Dropped support for the old {mod} API", "Cut build time in half by caching {tool} layers",
          "Found a memory leak in {mod} under load", "Renamed {dir} to keep module names consistent")
PROJECT_WORDS = ("atlas", "beacon", "cinder", "delta", "ember", "falcon", "garnet", "harbor", "iris", "juniper",
                 "kestrel", "lumen", "meridian", "nimbus", "orbit", "pylon", "quartz", "raven", "sierra", "tundra",
                 "umbra", "vertex", "willow", "xenon", "yarrow", "zephyr", "acorn", "bramble", "comet", "dune",
                 "echo", "fjord", "glacier", "helix", "ion", "jade", "koi", "lattice", "mosaic", "nova", "onyx",
                 "prism", "quill", "ripple", "sable", "tessera", "unity", "vortex", "wren", "yeti", "zenith")
PROJECT_KINDS = ("api", "app", "web", "cli", "sdk", "bot", "server", "dashboard", "engine", "kit", "studio", "ui",
                 "service", "worker", "docs", "site", "tools", "agent", "core", "platform", "mobile", "infra")
OWNER_SYLLABLES = ("ka", "lo", "mi", "ra", "ten", "vo", "zu", "be", "da", "fi", "go", "hu", "jo", "ke", "li",
                   "ma", "no", "pe", "qu", "ri", "sa", "to", "ul", "vi", "we", "xi", "ya", "ze", "an", "el")
FIRST_NAMES = ("alex", "sam", "jordan", "maria", "wei", "priya", "lukas", "sofia", "omar", "yuki", "ana", "ivan",
               "chen", "fatima", "noah", "emma", "diego", "lea", "arjun", "nina")

# ---- section catalogue: heading variants and the item-type mix under them --------------------------------
# (headings, weights of C, P, B, F, E)
SECTIONS: tuple[tuple[tuple[str, ...], tuple[int, int, int, int, int]], ...] = (
    (("Rules", "Ground Rules", "Hard Rules", "Do's and Don'ts", "Important Rules"), (8, 1, 1, 1, 0)),
    (("Security", "Secrets & Security", "Safety"), (8, 1, 2, 0, 0)),
    (("Conventions", "Coding Conventions", "Code Conventions"), (5, 1, 2, 3, 0)),
    (("Build", "Build & Run", "Commands", "Common Commands", "Development Commands", "Setup"), (1, 8, 1, 0, 0)),
    (("Testing", "Tests", "Running Tests"), (3, 6, 2, 1, 0)),
    (("Architecture", "Project Structure", "Architecture Overview", "Codebase Map"), (1, 1, 8, 0, 0)),
    (("Project Overview", "Overview", "About", "Context"), (0, 0, 8, 1, 1)),
    (("Code Style", "Style", "Style Guide", "Formatting"), (3, 1, 1, 6, 0)),
    (("Preferences", "Working Style", "How I Like to Work"), (1, 1, 0, 8, 0)),
    (("Git Workflow", "Git", "Pull Requests", "Commits"), (5, 4, 1, 2, 0)),
    (("Changelog", "Recent Changes", "History", "Session Notes", "Lessons Learned"), (0, 0, 1, 0, 9)),
    (("Known Issues", "Gotchas", "Pitfalls"), (3, 1, 4, 0, 4)),
    (("Dependencies", "Tech Stack", "Stack"), (1, 1, 7, 2, 0)),
    (("Deployment", "Release", "CI/CD"), (3, 5, 2, 0, 1)),
)

# ---- bullet templates by type -------------------------------------------------------------------------
TEMPLATES: dict[str, tuple[str, ...]] = {
    "C": (
        "Never commit secrets, API keys or `.env` files to the repository.",
        "Do not modify files under `{gen}/`; they are generated.",
        "Always run `{test}` before pushing.",
        "NEVER use `--force` when pushing to `main`.",
        "You must not add new dependencies without asking first.",
        "Do not edit `{dir}/{mod}.{ext}` directly; change the generator instead.",
        "All public functions must have type annotations.",
        "Every new endpoint requires an integration test.",
        "Direct database access from request handlers is forbidden; go through the `{mod}` repository layer.",
        "Commits straight to `main` are not allowed.",
        "Migrations are never edited after they have been merged.",
        "If you change the `{mod}` schema, regenerate the client with `{build}`.",
        "If a test fails, fix the code, not the test.",
        "Only use {db} through the shared connection pool.",
        "Don't use `any` in TypeScript code.",
        "Avoid breaking the public API of `{mod}` without a deprecation period.",
        "Logs must never contain personal data or tokens.",
        "Changes to `{dir}/` have to be reviewed by the {mod} owners.",
        "Do not {action} code outside the scope of the task.",
        "The `{mod}` module is off-limits for automated edits.",
        "Secrets are loaded from the environment, never hard-coded.",
        "Use {style} for all identifiers in `{dir}`.",
        "When unsure, ask before deleting files.",
        "Files in `{dir}` should not exceed {n}00 lines.",
        "Under no circumstances disable the linter with inline comments.",
        "Do not run destructive commands such as `rm -rf` or `DROP TABLE` without confirmation.",
        "Keep `{dir}` free of side effects at import time.",
        "Run `{lint}` and fix every warning before committing.",
        "Tests must not call external services; stub the {mod} client.",
        "Pull requests need one approving review before merge.",
    ),
    "P": (
        "Run `{test}` to execute the test suite.",
        "Build with `{build}`.",
        "Lint with `{lint}`.",
        "Start the dev server: `{pm} run dev`.",
        "To add a migration: `{pm} run migrate:create <name>`, then `{pm} run migrate`.",
        "Run a single test file with `{test} {dir}/{mod}_test.{ext}`.",
        "Regenerate types after schema changes: `{build}`.",
        "Spin up dependencies with `docker compose up -d {dbl}`.",
        "Format the code: `{lint}`.",
        "1) create a branch, 2) make the change, 3) run `{test}`, 4) open a PR.",
        "Seed the local database with `{pm} run seed`.",
        "Check types with `{build}` before committing.",
        "Release: bump the version, tag it `v{n}.{n2}.0`, and push the tag.",
        "Reproduce CI locally with `make ci`.",
    ),
    "B": (
        "This is a {fw} {kind} written in {lang}.",
        "The {mod} logic lives in `{dir}/{mod}`.",
        "We use {db} for persistence and {tool} for local development.",
        "`{dir}/` contains the {mod} module; `{dir2}/` holds shared helpers.",
        "The project targets {lang} with {fw} on the backend.",
        "Authentication is handled by the `{mod}` service.",
        "Configuration is read from environment variables at start-up.",
        "The API is versioned under `/api/v{n}`.",
        "{tool} runs on every pull request.",
        "The monorepo is managed with {tool}; each package has its own tests.",
        "State is kept in {db}; caches expire after {n}0 minutes.",
        "The frontend talks to the backend through a typed {tool} client.",
        "Background jobs for {mod} run on a queue backed by {db}.",
        "Most of the business rules are in `{dir}/{mod}.{ext}`.",
    ),
    "F": (
        "Prefer {a} over {b}.",
        "We like {q} functions and {q2} modules.",
        "Favor readability over cleverness.",
        "Keep pull requests small; one concern per PR.",
        "I prefer concise answers without long explanations.",
        "Use {a} where possible.",
        "Prefer editing existing files to creating new ones.",
        "Comments should explain why, not what.",
        "Lean towards {a} rather than {b} in new code.",
        "When in doubt, choose the boring solution.",
        "Please explain trade-offs briefly before large refactors.",
        "Name things in {style}.",
    ),
    "E": (
        "{date}: {event}.",
        "{date} - {event}.",
        "({date}) {event}.",
        "Last session ({date}): {event}.",
        "As of {date}, {event_lc}.",
        "Note from {date}: {event}.",
    ),
}

INIT_HEADER = ("This file provides guidance to Claude Code (claude.ai/code) when working with code in this "
               "repository.")
POINTERS = ("@AGENTS.md\n", "@AGENTS.md\n", "@AGENTS.md\n", "See @AGENTS.md\n", "Read AGENTS.md.\n",
            "@CLAUDE.md\n")

_SLOT = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Template:
    parts: tuple[str, ...]  # literal, slot, literal, slot, ..., literal


def compile_template(text: str) -> Template:
    return Template(tuple(_SLOT.split(text)))


COMPILED: dict[str, tuple[Template, ...]] = {k: tuple(compile_template(t) for t in v) for k, v in TEMPLATES.items()}
COMPILED_EVENTS: tuple[Template, ...] = tuple(compile_template(e) for e in EVENTS)
