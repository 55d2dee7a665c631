"""Each job's options are declared once, on its options dataclass: the `aac` command's options and the Prefect flow's
parameters are derived from those fields, so a field cannot reach one front end and miss the other (drift fails
here)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass, fields, is_dataclass

import pytest
import typer
from typer.testing import CliRunner

import aac.jobs
from aac.cli import app
from aac.cli.options import job_options
from aac.jobs.build import BuildOptions
from aac.jobs.classify import ClassifyOptions
from aac.jobs.crawl import CrawlOptions
from aac.jobs.demo import DemoOptions
from aac.jobs.options import as_parameters, option, option_specs, options_from, takes_fields_of
from aac.jobs.process import ProcessOptions
from aac.jobs.publish import PublishOptions
from aac.jobs.refresh import RefreshOptions

# options class -> (CLI command path, "module:flow" or None when the job has no flow)
JOBS = {
    CrawlOptions: (("crawl",), "aac.flows.crawl:crawl"),
    ProcessOptions: (("process",), "aac.flows.process:process"),
    ClassifyOptions: (("classify",), "aac.flows.classify:classify_corpus"),
    RefreshOptions: (("refresh",), "aac.flows.refresh:refresh_corpus"),
    PublishOptions: (("publish",), "aac.flows.publish:publish_corpus"),
    BuildOptions: (("build",), "aac.flows.build:build"),
    DemoOptions: (("demo",), None),
}


def _cli_params(path: tuple[str, ...]) -> dict:
    cmd = typer.main.get_command(app)
    for name in path:
        cmd = cmd.commands[name]
    return {p.name: p for p in cmd.params}


def _flow(ref: str):
    module, name = ref.split(":")
    return getattr(importlib.import_module(module), name)


def test_every_options_class_of_the_jobs_is_checked_here():
    found = set()
    for mod in pkgutil.iter_modules(aac.jobs.__path__):
        module = importlib.import_module(f"aac.jobs.{mod.name}")
        found |= {obj for name, obj in vars(module).items() if name.endswith("Options") and is_dataclass(obj)
                  and obj.__module__ == module.__name__}
    assert found == set(JOBS)


@pytest.mark.parametrize("cls", list(JOBS), ids=lambda c: c.__name__)
def test_the_command_has_one_option_per_field_as_declared(cls):
    params = _cli_params(JOBS[cls][0])
    for spec in option_specs(cls):
        if not spec.in_cli:  # the command derives it (publish: --repo-id without --dry-run uploads)
            assert spec.name not in params
            continue
        p = params[spec.name]
        flags = {f for flag in spec.cli_flags for f in flag.split("/")}  # --x/--no-x: both spellings
        assert flags <= set(p.opts) | set(p.secondary_opts), spec.name
        assert p.help == spec.help and p.default == spec.default, spec.name


@pytest.mark.parametrize("cls", [c for c, (_, flow) in JOBS.items() if flow], ids=lambda c: c.__name__)
def test_the_flow_has_one_parameter_per_field_with_its_default_and_help(cls):
    flow = _flow(JOBS[cls][1])
    params = inspect.signature(flow.fn).parameters
    schema = flow.parameters.properties
    for spec in option_specs(cls):
        assert params[spec.name].default == spec.default, spec.name
        assert schema[spec.name]["description"] == " ".join(spec.help.split()), spec.name


@dataclass(frozen=True)
class ToyOptions:
    corpus: str = option("data", "Corpus folder.", "--corpus")
    names: tuple[str, ...] | None = option(None, "Names (repeatable).", "--name", "-n")
    depth: int = option(2, "A field added later: it reaches both front ends.", "--depth", min=1)


def test_a_field_added_to_an_options_class_reaches_the_command_and_the_flow_parameters():
    got = []
    toy = typer.Typer()

    @toy.command()
    @job_options(ToyOptions)
    def run(options: ToyOptions, loud: bool = typer.Option(False, "--loud")) -> None:
        got.append((options, loud))

    result = CliRunner().invoke(toy, ["--name", "a", "-n", "b", "--depth", "5", "--loud"])
    assert result.exit_code == 0, result.output
    assert got == [(ToyOptions(names=("a", "b"), depth=5), True)]
    assert CliRunner().invoke(toy, ["--depth", "0"]).exit_code == 2  # the field's bound holds on the command line
    assert "A field added later" in CliRunner().invoke(toy, ["--help"]).output

    @takes_fields_of(ToyOptions, document=True)
    def flow_like(options: ToyOptions, extra: int = 0) -> tuple:
        return options, extra

    assert list(inspect.signature(flow_like).parameters) == ["corpus", "names", "depth", "extra"]
    assert flow_like(depth=3, names=["x"]) == (ToyOptions(names=("x",), depth=3), 0)
    assert "depth: A field added later" in flow_like.__doc__
    assert flow_like(**as_parameters(ToyOptions(depth=4))) == (ToyOptions(depth=4), 0)


def test_a_field_not_declared_as_an_option_is_refused():
    @dataclass(frozen=True)
    class Bare:
        corpus: str = "data"

    with pytest.raises(TypeError, match="Bare.corpus"):
        option_specs(Bare)


def test_front_end_values_become_the_field_types():
    assert options_from(CrawlOptions, {"platforms": []}).platforms is None  # a repeatable option given nothing
    assert options_from(CrawlOptions, {"platforms": ["cursor"]}).platforms == ("cursor",)
    assert [f.name for f in fields(BuildOptions)][:2] == ["corpus", "api_url"]  # the crawl's options, then process'
    build = BuildOptions(corpus="c", platforms=("cursor",), workers=3)
    assert build.crawl_options() == CrawlOptions(corpus="c", platforms=("cursor",))
    assert build.process_options() == ProcessOptions(corpus="c", workers=3)
