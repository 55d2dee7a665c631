"""Synthetic snapshots with the shape of real agent-configuration data, streamed and seeded.

Shape (each a property later stages and benchmarks rely on):
- platform mix over the registry's paths, heavy on Claude / AGENTS.md / Cursor / Copilot, incl. nested monorepo
  paths, ``.mdc`` rules with YAML front matter, ``.aider.conf.yml``, slash commands, sub-agents, pointer files
  that only say ``@AGENTS.md`` and the Claude Code ``/init`` boilerplate header;
- many one-file repositories and a few monorepos with hundreds of files; power-law stars; a license mix with
  MIT/Apache/BSD/GPL/AGPL/none/proprietary;
- sizes log-normal around ~1.2 KB with a thin tail past GitHub's 384 KB index limit;
- exact and near copies across repositories (template culture);
- planted FAKE secrets and emails, made from random characters at run time and listed in ``_planted``
  (``[{"kind", "value"}]``) so the secrets stage can be checked for catching every one.

Text comes from :mod:`.grammar`. 400,000 records take well under a minute (one RNG stream, no per-record
re-seeding, templates pre-split into slots).
"""

from __future__ import annotations

import base64
import bisect
import itertools
import math
import random
import string
from collections.abc import Iterator
from dataclasses import dataclass

from . import grammar as G

# platform -> weight; names are those of aac.core.platforms.PLATFORMS
PLATFORM_WEIGHTS: dict[str, float] = {
    "claude": 24, "universal": 16, "cursor": 15, "copilot": 12, "claude_commands": 6, "claude_agents": 4,
    "windsurf": 4, "gemini": 4, "cline": 3, "aider": 3, "continue": 2, "roo": 2, "kiro": 1.5, "junie": 1,
    "amazonq": 1, "trae": 1, "codeium": 0.5, "zed": 1,
}
LICENSE_WEIGHTS: dict[str | None, float] = {
    "MIT": 38, None: 30, "Apache-2.0": 12, "GPL-3.0": 5, "BSD-3-Clause": 3, "BSD-2-Clause": 1, "AGPL-3.0": 2,
    "LicenseRef-Proprietary": 3, "MPL-2.0": 1, "Unlicense": 2, "GPL-2.0": 1, "ISC": 1, "CC-BY-NC-4.0": 1,
}
MEDIAN_BYTES = 1200
SIGMA = 0.85
HUGE_RATE = 0.0006  # files past the 384 KB index limit
EXACT_COPY_RATE = 0.07
NEAR_COPY_RATE = 0.06
SECRET_RATE = 0.004
EMAIL_RATE = 0.01
POOL_SIZE = 64
VARIANTS = 256  # distinct fills kept per context-free template

_ALNUM = string.ascii_letters + string.digits
_UPPER_DIGITS = string.ascii_uppercase + string.digits
_LOWER_DIGITS = string.ascii_lowercase + string.digits
_B64 = string.ascii_letters + string.digits + "+/"


class _Weighted:
    """Weighted choice by bisecting a cumulative table with one uniform draw."""

    def __init__(self, items: dict | list[tuple]):
        pairs = list(items.items()) if isinstance(items, dict) else list(items)
        self.values = [v for v, _ in pairs]
        self.cum = list(itertools.accumulate(w for _, w in pairs))

    def pick(self, r: float):
        return self.values[bisect.bisect_right(self.cum, r * self.cum[-1])]


_PLATFORMS = _Weighted(PLATFORM_WEIGHTS)
_LICENSES = _Weighted(LICENSE_WEIGHTS)
_ECOS = _Weighted(list(zip(G.ECOSYSTEMS, G.ECOSYSTEM_WEIGHTS)))
_SECTIONS = [(heads, _Weighted(list(zip("CPBFE", w)))) for heads, w in G.SECTIONS]


@dataclass
class _Ctx:
    """What one repository's files agree on: project name, stack, commands."""
    project: str
    lang: str
    fw: str
    pm: str
    test: str
    build: str
    lint: str
    ext: str
    db: str
    tool: str
    kind: str


class _Generator:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.r = self.rng.random
        self.repo_names: set[str] = set()
        self.orgs = [self._owner_name() for _ in range(200)]
        self.pool: dict[tuple[str, str], list[tuple[str, list[dict]]]] = {}
        self.variants: dict[G.Template, list[str]] = {}
        self.slot_fns = {
            "test": lambda c: c.test, "build": lambda c: c.build, "lint": lambda c: c.lint, "pm": lambda c: c.pm,
            "fw": lambda c: c.fw, "lang": lambda c: c.lang, "ext": lambda c: c.ext, "db": lambda c: c.db,
            "dbl": lambda c: c.db.lower(), "kind": lambda c: c.kind, "tool": lambda c: self.pick(G.TOOLS),
            "ci": lambda c: self.pick(G.CI_TOOLS), "mono": lambda c: self.pick(G.MONOREPO_TOOLS),
            "devtool": lambda c: self.pick(G.DEV_TOOLS), "api": lambda c: self.pick(G.API_TOOLS),
            "dir": lambda c: self.pick(G.DIRS), "dir2": lambda c: self.pick(G.DIRS), "gen": lambda c: self.pick(G.GENERATED_DIRS),
            "mod": lambda c: self.pick(G.MODULES), "n": lambda c: str(1 + int(self.r() * 9)),
            "n2": lambda c: str(int(self.r() * 20)), "a": lambda c: self.pick(G.THINGS_A),
            "b": lambda c: self.pick(G.THINGS_B), "q": lambda c: self.pick(G.QUALITIES),
            "q2": lambda c: self.pick(G.QUALITIES), "style": lambda c: self.pick(G.STYLES),
            "action": lambda c: self.pick(G.ACTIONS), "date": lambda c: self.date(),
            "event": lambda c: self.fill(self.pick(G.COMPILED_EVENTS), c),
            "event_lc": lambda c: self._lc(self.fill(self.pick(G.COMPILED_EVENTS), c)),
        }

    # ---- small helpers -------------------------------------------------------------------------------
    def pick(self, seq):
        return seq[int(self.r() * len(seq))]

    def chars(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choices(alphabet, k=n))

    def date(self) -> str:
        return f"{2023 + int(self.r() * 3)}-{1 + int(self.r() * 12):02d}-{1 + int(self.r() * 28):02d}"

    @staticmethod
    def _lc(s: str) -> str:
        return s[:1].lower() + s[1:]

    def fill(self, tpl: G.Template, ctx: _Ctx) -> str:
        """Fill a template's slots. Templates that use no repository slot are filled at most VARIANTS times and
        then drawn from those fills: still thousands of distinct sentences, at a fraction of the cost."""
        parts = tpl.parts
        if len(parts) == 1:
            return parts[0]
        if tpl.context_free:
            seen = self.variants.get(tpl)
            if seen is None:
                seen = self.variants[tpl] = []
            if len(seen) >= VARIANTS:
                return seen[int(self.r() * VARIANTS)]
            text = self._fill(parts, ctx)
            seen.append(text)
            return text
        return self._fill(parts, ctx)

    def _fill(self, parts: tuple[str, ...], ctx: _Ctx) -> str:
        out = [parts[0]]
        for i in range(1, len(parts), 2):
            out.append(self.slot_fns[parts[i]](ctx))
            out.append(parts[i + 1])
        return "".join(out)

    # ---- repositories --------------------------------------------------------------------------------
    def _owner_name(self) -> str:
        r = self.r()
        if r < 0.4:
            return f"{self.pick(G.FIRST_NAMES)}{self.pick(G.OWNER_SYLLABLES)}{int(self.r() * 1000)}"
        if r < 0.7:
            return "".join(self.pick(G.OWNER_SYLLABLES) for _ in range(2 + int(self.r() * 3)))
        return f"{self.pick(G.PROJECT_WORDS)}-{self.pick(('labs', 'hq', 'dev', 'io', 'team', 'oss', 'ai'))}"

    def _repo(self) -> tuple[str, _Ctx, dict]:
        owner = self.orgs[int(len(self.orgs) * self.r() ** 3)] if self.r() < 0.15 else self._owner_name()
        project = f"{self.pick(G.PROJECT_WORDS)}-{self.pick(G.PROJECT_KINDS)}"
        name = f"{owner}/{project}"
        while name in self.repo_names:
            name = f"{owner}/{project}-{self.chars(_LOWER_DIGITS, 3)}"
        self.repo_names.add(name)
        lang, fws, pms, tests, builds, lints, ext = _ECOS.pick(self.r())
        pm = self.pick(pms)
        if lang in ("TypeScript", "JavaScript"):  # commands agree with the package manager
            tests = (f"{pm} test", f"{pm} run test", "npx vitest run", "npx jest")
            builds = (f"{pm} run build", "npx tsc --noEmit")
            lints = (f"{pm} run lint", "npx eslint .", "npx biome check .")
        ctx = _Ctx(project, lang, self.pick(fws), pm, self.pick(tests), self.pick(builds),
                   self.pick(lints), ext, self.pick(G.DATABASES), self.pick(G.TOOLS), project.split("-")[1])
        spdx = _LICENSES.pick(self.r())
        meta = {
            "license_spdx": spdx,
            "license_file": None if spdx is None else ("COPYING" if spdx.startswith("GPL") and self.r() < 0.5
                                                        else self.pick(("LICENSE", "LICENSE", "LICENSE.md"))),
            "stars": min(250_000, int(self.rng.paretovariate(0.75)) - 1),
            "language": lang,
            "commit": "%040x" % self.rng.getrandbits(160),
            "pushed_at": f"{self.date()}T{int(self.r() * 24):02d}:{int(self.r() * 60):02d}:{int(self.r() * 60):02d}Z",
        }
        return name, ctx, meta

    def _files_in_repo(self) -> int:
        r = self.r()
        if r < 0.66:
            return 1
        if r < 0.83:
            return 2
        if r < 0.91:
            return 3
        if r < 0.96:
            return 4 + int(self.r() * 3)
        if r < 0.994:
            return 7 + int(self.r() * 14)
        return min(300, 21 + int((self.rng.paretovariate(1.3) - 1) * 25))

    # ---- paths ---------------------------------------------------------------------------------------
    def _slug(self) -> str:
        return self.pick(G.MODULES) + self.pick(("", "", "-rules", "-guide", "-conventions", "-style", "-review"))

    def _path(self, platform: str) -> tuple[str, str]:
        """(repository-relative path, content form) for a file of ``platform``."""
        r, slug = self.r(), self._slug()
        match platform:
            case "claude":
                return ("CLAUDE.local.md" if r < 0.04 else "CLAUDE.md"), "md"
            case "universal":
                return "AGENTS.md", "md"
            case "cursor":
                return (".cursorrules", "md") if r < 0.4 else (f".cursor/rules/{slug}.mdc", "mdc")
            case "copilot":
                return ((".github/copilot-instructions.md", "md") if r < 0.75
                        else (f".github/instructions/{slug}.instructions.md", "copilot_scoped"))
            case "claude_commands":
                sub = self.pick(("", "", "", "git/", "dev/", "review/"))
                verb = self.pick(("review", "commit", "fix-issue", "plan", "test", "refactor", "release", "explain",
                                  "pr", "changelog", "deploy", "debug", "docs", "migrate", "audit"))
                return f".claude/commands/{sub}{verb}.md", "slash_command"
            case "claude_agents":
                who = self.pick(("code-reviewer", "test-runner", "debugger", "architect", "security-auditor",
                                 "docs-writer", "planner", "refactorer", "db-expert", "frontend-dev"))
                return f".claude/agents/{who}.md", "sub_agent"
            case "windsurf":
                return (".windsurfrules", "md") if r < 0.5 else (f".windsurf/rules/{slug}.md", "md")
            case "gemini":
                return ("GEMINI.md", "md") if r < 0.8 else (".gemini/styleguide.md", "md")
            case "cline":
                return (".clinerules", "md") if r < 0.5 else (f".clinerules/{slug}.md", "md")
            case "aider":
                return (".aider.conf.yml", "aider_yaml") if r < 0.6 else ("CONVENTIONS.md", "md")
            case "continue":
                return (".continuerules", "md") if r < 0.4 else (f".continue/rules/{slug}.md", "md")
            case "roo":
                if r < 0.3:
                    return ".roorules", "md"
                mode = self.pick(("", "", "-code", "-architect", "-debug"))
                return f".roo/rules{mode}/{slug}.md", "md"
            case "kiro":
                return f".kiro/steering/{self.pick(('product', 'tech', 'structure', slug))}.md", "md"
            case "junie":
                return ".junie/guidelines.md", "md"
            case "amazonq":
                return f".amazonq/rules/{slug}.md", "md"
            case "trae":
                return f".trae/rules/{slug}.md", "md"
            case "codeium":
                return f".codeium/{slug}.md", "md"
            case "zed":
                return ".rules", "md"
        raise ValueError(f"no path generator for platform {platform!r}")

    def _unique_path(self, platform: str, taken: set[str], monorepo: bool) -> tuple[str, str]:
        for attempt in range(6):
            path, form = self._path(platform)
            if (monorepo and attempt > 0 or attempt > 2) and platform != "zed":
                path = f"{self.pick(('packages', 'apps', 'services', 'libs'))}/{self.pick(G.MODULES)}/{path}"
            if path not in taken:
                return path, form
        path, form = self._path(platform)
        return f"packages/{self.chars(_LOWER_DIGITS, 6)}/{path}", form

    # ---- text ------------------------------------------------------------------------------------------
    def _target_size(self) -> int:
        if self.r() < HUGE_RATE:
            return 393_216 + int(self.r() * 250_000)
        return max(12, int(math.exp(self.rng.gauss(math.log(MEDIAN_BYTES), SIGMA))))

    def _item(self, kind: str, ctx: _Ctx, marker: str = "- ") -> list[str]:
        if kind == "P" and self.r() < 0.35:
            lang = self.pick(("bash", "bash", "sh", "shell", "console", ""))
            cmds = [self.pick((ctx.test, ctx.build, ctx.lint, f"{ctx.pm} install", "git status",
                               f"docker compose up -d {ctx.db.lower()}", "make dev"))
                    for _ in range(1 + int(self.r() * 3))]
            if self.r() < 0.4:
                cmds.insert(0, self.pick(("# run the checks", "# local setup", "# before opening a PR",
                                          "# full test run")))
            return [f"```{lang}", *cmds, "```"]
        return [marker + self.fill(self.pick(G.COMPILED[kind]), ctx)]

    def _sections(self, ctx: _Ctx, budget: int, level: str = "##") -> list[str]:
        # the hot loop of the generator: locals instead of attribute look-ups
        r, fill, compiled, item = self.r, self.fill, G.COMPILED, self._item
        said: set[str] = set()  # real files rarely repeat a sentence
        lines: list[str] = []
        size = 0
        while size < budget:
            heads, mix = _SECTIONS[int(r() * len(_SECTIONS))]
            block = ["", f"{level} {heads[int(r() * len(heads))]}", ""]
            marker = "- " if r() < 0.75 else ("* ", "", "1. ")[int(r() * 3)]
            for i in range(1, 3 + int(r() * 6)):
                kind = mix.pick(r())
                if kind == "P" and r() < 0.35:
                    block.extend(item(kind, ctx))
                    continue
                templates = compiled[kind]
                text = fill(templates[int(r() * len(templates))], ctx)
                if text in said:
                    continue
                said.add(text)
                block.append((f"{i}. " if marker == "1. " else marker) + text)
            size += sum(map(len, block)) + len(block)
            lines.extend(block)
        return lines

    def _title(self, path: str, ctx: _Ctx) -> str:
        base = path.rsplit("/", 1)[-1]
        return self.pick((f"# {base}", f"# {ctx.project}", f"# Guidelines for {ctx.project}",
                          "# Project instructions", f"# {ctx.project}: agent guide", "# Development Guidelines"))

    def _markdown(self, path: str, ctx: _Ctx, budget: int) -> list[str]:
        lines = [self._title(path, ctx)]
        if path.endswith(("CLAUDE.md", "CLAUDE.local.md")) and self.r() < 0.35:
            lines += ["", G.INIT_HEADER]
        elif self.r() < 0.5:
            lines += ["", f"{ctx.project} is a {ctx.fw} {ctx.kind} written in {ctx.lang}."]
        return lines + self._sections(ctx, budget - 60)

    def _body(self, form: str, path: str, ctx: _Ctx, budget: int) -> list[str]:
        if form == "mdc":
            glob = self.pick((f"**/*.{ctx.ext}", f"src/**/*.{ctx.ext}", "**/*.test.*", ""))
            head = ["---", f"description: {self.pick(G.MODULES)} {self.pick(('rules', 'conventions', 'guidelines'))}",
                    f"globs: {glob}", f"alwaysApply: {self.pick(('true', 'false'))}", "---"]
            return head + self._sections(ctx, budget - 80, self.pick(("#", "##")))[1:]
        if form == "copilot_scoped":
            return ["---", f'applyTo: "**/*.{ctx.ext}"', "---"] + self._sections(ctx, budget - 40)[1:]
        if form == "slash_command":
            verb = path.rsplit("/", 1)[-1][:-3]
            head = ["---", f"description: {verb.replace('-', ' ').capitalize()} for {ctx.project}"]
            if self.r() < 0.5:
                head.append(f"allowed-tools: Bash({ctx.test.split()[0]}:*), Bash(git status:*), Read, Edit")
            if self.r() < 0.4:
                head.append("argument-hint: [issue-number]")
            head += ["---", "", f"{verb.replace('-', ' ').capitalize()} the following: $ARGUMENTS", ""]
            steps = [f"{i}. {self.fill(self.pick(G.COMPILED['P']), ctx)}" for i in range(1, 3 + int(self.r() * 4))]
            return head + steps + self._sections(ctx, max(0, budget - 400), "##")
        if form == "sub_agent":
            who = path.rsplit("/", 1)[-1][:-3]
            head = ["---", f"name: {who}",
                    f"description: Use this agent to {self.pick(('review', 'test', 'debug', 'plan', 'document'))} "
                    f"changes in the {self.pick(G.MODULES)} module.",
                    f"tools: {self.pick(('Read, Grep, Glob', 'Read, Edit, Bash', 'Read, Grep, Glob, Bash'))}",
                    f"model: {self.pick(('sonnet', 'opus', 'haiku', 'inherit'))}", "---", "",
                    f"You are a {who.replace('-', ' ')} for {ctx.project}."]
            return head + self._sections(ctx, budget - 300)
        if form == "aider_yaml":
            return self._aider(ctx)
        return self._markdown(path, ctx, budget)

    def _aider(self, ctx: _Ctx) -> list[str]:
        lines = ["# aider configuration for " + ctx.project,
                 f"model: {self.pick(('sonnet', 'gpt-4o', 'anthropic/claude-sonnet-4', 'deepseek/deepseek-chat', 'o3-mini'))}",
                 f"edit-format: {self.pick(('diff', 'whole', 'udiff', 'architect'))}",
                 f"auto-commits: {self.pick(('true', 'false'))}",
                 f"map-tokens: {self.pick(('1024', '2048', '4096'))}", "read:",
                 f"  - {self.pick(('CONVENTIONS.md', 'AGENTS.md', 'CLAUDE.md', 'docs/architecture.md'))}"]
        if self.r() < 0.6:
            lines += [f"lint-cmd: {ctx.lint}", f"test-cmd: {ctx.test}", "auto-test: true"]
        if self.r() < 0.3:
            lines += ["# " + self.fill(self.pick(G.COMPILED["C"]), ctx)]
        return lines

    def _huge(self, lines: list[str], target: int, ctx: _Ctx) -> str:
        """Files past the index limit: a long session log appended to a normal body (cheap: chunks repeat)."""
        chunk = "\n".join(["", "## Session Log", ""] + [f"- {self.fill(self.pick(G.COMPILED['E']), ctx)}"
                                                       for _ in range(60)]) + "\n"
        text = "\n".join(lines) + "\n"
        reps = max(1, (target - len(text)) // len(chunk) + 1)
        return text + chunk * reps

    # ---- secrets (fake, random at run time) ------------------------------------------------------------
    def _secret(self) -> tuple[str, str, str]:
        """(kind, value, line to embed)."""
        kind = self.pick(("aws_access_key_id", "github_token", "openai_api_key", "slack_token", "private_key",
                          "password_in_url"))
        if kind == "aws_access_key_id":
            v = "AK" + "IA" + self.chars(_UPPER_DIGITS, 16)
            return kind, v, self.pick((f"export AWS_ACCESS_KEY_ID={v}", f"- AWS key for staging: `{v}`"))
        if kind == "github_token":
            v = "gh" + "p_" + self.chars(_ALNUM, 36)
            return kind, v, self.pick((f"GITHUB_TOKEN={v}", f"- Use token `{v}` for the release bot."))
        if kind == "openai_api_key":
            marker = base64.b64encode(b"OpenAI").decode()  # the fixed infix of classic OpenAI keys
            v = "s" + "k-" + self.chars(_ALNUM, 20) + marker + self.chars(_ALNUM, 20)
            return kind, v, self.pick((f"OPENAI_API_KEY={v}", f"- The OpenAI key is `{v}`"))
        if kind == "slack_token":
            v = "xo" + "xb-" + self.chars(string.digits, 11) + "-" + self.chars(string.digits, 12) + "-" + \
                self.chars(_LOWER_DIGITS, 24)
            return kind, v, self.pick((f"SLACK_BOT_TOKEN={v}", f"- Notifications go out with `{v}`"))
        if kind == "private_key":
            body = [self.chars(_B64, 64) for _ in range(6)] + [self.chars(_B64, 28) + "=="]
            label = "RSA PRIVATE" + " KEY"
            v = "\n".join(["-----BEGIN " + label + "-----", *body, "-----END " + label + "-----"])
            return kind, v, "```\n" + v + "\n```"
        pw = self.chars(_ALNUM, 14)
        user = self.pick(("admin", "deploy", "app", "postgres", "root"))
        url = f"{self.pick(('postgres', 'mysql', 'mongodb', 'redis'))}://{user}:{pw}@db.internal.example:5432/app"
        return kind, pw, self.pick((f"DATABASE_URL={url}", f"- Staging database: `{url}`"))

    def _email(self) -> tuple[str, str, str]:
        v = f"{self.pick(G.FIRST_NAMES)}.{self.chars(string.ascii_lowercase, 5)}@{self.pick(G.PROJECT_WORDS)}.example.com"
        return "email", v, self.pick((f"- Maintainer: {v}", f"Questions go to {v}.", f"- Contact {v} before releases."))

    def _plant(self, lines: list[str], form: str) -> list[dict]:
        planted = []
        start = lines.index("---", 1) + 1 if lines and lines[0] == "---" and "---" in lines[1:] else 1  # keep YAML intact
        for rate, make in ((SECRET_RATE, self._secret), (EMAIL_RATE, self._email)):
            if self.r() < rate:
                kind, value, line = make()
                if form == "aider_yaml":
                    line = "\n".join("# " + s for s in line.split("\n"))
                lines.insert(start + int(self.r() * max(1, len(lines) - start)), line)
                planted.append({"kind": kind, "value": value})
        return planted

    # ---- copies ------------------------------------------------------------------------------------------
    def _near_copy(self, content: str, planted: list[dict], ctx: _Ctx) -> tuple[str, list[dict]]:
        """A template adapted by its new owner: a bullet dropped or added (never inside front matter or code)."""
        lines = content.split("\n")
        for _ in range(1 + int(self.r() * 2)):
            bullets = [i for i, line in enumerate(lines) if line.startswith(("- ", "* "))]
            if not bullets:
                lines.append("# " + self.fill(self.pick(G.COMPILED["C"]), ctx))
            elif len(bullets) > 2 and self.r() < 0.5:
                del lines[self.pick(bullets)]
            else:
                at = self.pick(bullets) + 1
                lines[at:at] = [lines[at - 1][:2] + self.fill(self.pick(G.COMPILED[self.pick("CPBFE")]), ctx)]
        text = "\n".join(lines)
        return text, [p for p in planted if p["value"] in text]

    def _content(self, platform: str, path: str, form: str, ctx: _Ctx) -> tuple[str, list[dict]]:
        pool = self.pool.setdefault((platform, form), [])
        r = self.r()
        if pool and r < EXACT_COPY_RATE:
            content, planted = self.pick(pool)
            return content, list(planted)
        if pool and r < EXACT_COPY_RATE + NEAR_COPY_RATE:
            return self._near_copy(*self.pick(pool), ctx)
        if form == "md" and not path.endswith(("AGENTS.md", "CONVENTIONS.md")) and self.r() < 0.05:
            return self.pick(G.POINTERS), []
        target = self._target_size()
        lines = self._body(form, path, ctx, min(target, 12_000))
        planted = self._plant(lines, form)
        text = self._huge(lines, target, ctx) if target > 12_000 else "\n".join(lines).lstrip("\n") + "\n"
        if len(text) < 100_000:
            if len(pool) < POOL_SIZE:
                pool.append((text, planted))
            elif self.r() < 0.05:
                pool[int(self.r() * POOL_SIZE)] = (text, planted)
        return text, planted

    # ---- records -----------------------------------------------------------------------------------------
    def records(self, n_files: int) -> Iterator[dict]:
        made = 0
        while made < n_files:
            name, ctx, meta = self._repo()
            k = min(self._files_in_repo(), n_files - made)
            taken: set[str] = set()
            for _ in range(k):
                platform = _PLATFORMS.pick(self.r())
                if platform == "zed" and ".rules" in taken:  # Zed reads only the root .rules
                    platform = "claude"
                path, form = self._unique_path(platform, taken, k > 6)
                taken.add(path)
                content, planted = self._content(platform, path, form, ctx)
                rec = {"repo": name, "path": path, "platform": platform, **meta,
                       "size_bytes": len(content.encode("utf-8")), "content": content}
                if planted:
                    rec["_planted"] = planted
                yield rec
                made += 1


def generate_snapshot(n_files: int, seed: int) -> Iterator[dict]:
    """Stream ``n_files`` synthetic snapshot records; the same seed gives the same records."""
    if n_files < 0:
        raise ValueError(f"n_files must be >= 0, got {n_files}")
    return _Generator(seed).records(n_files)
