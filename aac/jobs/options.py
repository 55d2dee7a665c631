"""A job's options, declared once: each field of an options dataclass carries its help text and CLI spelling.

The two front ends derive their parameters from these declarations with :func:`takes_fields_of`: the ``aac``
command's Typer options (``aac.cli.options``) and the Prefect flows' parameters (their names, types, defaults and
descriptions). A field added to an options class therefore appears in both without being written again, and
``tests/jobs/test_options_front_ends.py`` fails when a front end stops covering a field.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, TypeVar

_KEY = "aac_option"
T = TypeVar("T")


@dataclass(frozen=True)
class OptionSpec:
    """One option as the front ends see it."""

    name: str  # the dataclass field, the flow parameter and the CLI function parameter
    type: Any  # the field's type, resolved
    default: Any
    help: str
    flags: tuple[str, ...]  # the CLI spelling (default: --field-name)
    cli: Mapping[str, Any]  # further Typer arguments: min, max, envvar
    in_cli: bool = True  # False: the command derives the value from its own flags (its help says how)

    @property
    def cli_flags(self) -> tuple[str, ...]:
        return self.flags or (f"--{self.name.replace('_', '-')}",)


def option(default: Any, help: str, *flags: str, in_cli: bool = True, **cli: Any) -> Any:
    """Declare a field of a job's options: its default, the help both front ends show, its CLI flags (default
    ``--field-name``; a bool may give ``--x/--no-x``) and further Typer arguments (``min``, ``max``, ``envvar``)."""
    return field(default=default, metadata={_KEY: {"help": help, "flags": flags, "cli": cli, "in_cli": in_cli}})


def corpus_option(help: str = "Corpus folder (Parquet tables + aac.duckdb).") -> Any:
    """The ``--corpus`` option every job that works on a corpus has (``AAC_CORPUS`` sets it on the CLI)."""
    return option("data", help, "--corpus", envvar="AAC_CORPUS")


def declared(name: str, type_: Any, declaration: Any) -> OptionSpec:
    """The spec of one :func:`option` declaration outside an options class (a command that runs no job)."""
    meta = declaration.metadata[_KEY]
    return OptionSpec(name, type_, declaration.default, meta["help"], tuple(meta["flags"]), dict(meta["cli"]),
                      meta["in_cli"])


@functools.cache
def option_specs(cls: type) -> tuple[OptionSpec, ...]:
    """The options of a job's options dataclass, in field order; a field not declared with :func:`option` is an
    error (it would be missing from a front end)."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in fields(cls):
        meta = f.metadata.get(_KEY)
        if meta is None or f.default is MISSING:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with aac.jobs.options.option(default, help)")
        out.append(declared(f.name, hints[f.name], f))
    return tuple(out)


def _is_tuple(tp: Any) -> bool:
    return any(typing.get_origin(a) is tuple for a in (typing.get_args(tp) if _is_union(tp) else (tp,)))


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def options_from(cls: type[T], values: Mapping[str, Any]) -> T:
    """An options object from front-end values: a list given for a tuple field becomes a tuple, and an empty one
    the field's default ``None`` (a CLI's repeatable option given no value, a flow's ``[]``)."""
    kwargs = {}
    for spec in option_specs(cls):
        if spec.name not in values:
            continue
        value = values[spec.name]
        if _is_tuple(spec.type) and isinstance(value, (list, tuple)):
            value = tuple(value) if value or spec.default is not None else None
        kwargs[spec.name] = value
    return cls(**kwargs)


def project(options: Any, cls: type[T]) -> T:
    """The options of ``cls`` taken from ``options`` (a build's crawl and process options)."""
    return cls(**{spec.name: getattr(options, spec.name) for spec in option_specs(cls)})


def plain_parameter(spec: OptionSpec) -> inspect.Parameter:
    """A flow parameter: the field's name, type and default."""
    return inspect.Parameter(spec.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=spec.default,
                             annotation=spec.type)


def takes_fields_of(cls: type, parameter_of: Callable[[OptionSpec], inspect.Parameter | None] = plain_parameter,
                    name: str = "options", document: bool = False) -> Callable[[Callable], Callable]:
    """Decorate ``fn(options: cls, *own parameters)`` so that it is called with the fields of ``cls`` as separate
    parameters (built by ``parameter_of``; None leaves a field out: it keeps its default) between its own without
    and with a default; it
    receives one ``cls`` object. ``document``: add the fields' help to the docstring's ``Args:`` (Prefect shows
    them as the parameters' descriptions)."""

    def decorate(fn: Callable) -> Callable:
        raw = inspect.signature(fn)
        if name not in raw.parameters:
            raise TypeError(f"{fn.__name__} takes no {name!r} parameter")
        namespace = {**getattr(fn, "__globals__", {}), cls.__name__: cls}  # the options class may be a local name
        own = [p.replace(annotation=_resolved(p.annotation, namespace)) for p in raw.parameters.values()
               if p.name != name]
        sig = raw.replace(return_annotation=_resolved(raw.return_annotation, namespace))
        fields_as = [(s, parameter_of(s)) for s in option_specs(cls)]
        specs = tuple(s for s, p in fields_as if p is not None)
        clash = {p.name for p in own} & {s.name for s in option_specs(cls)}
        if clash:
            raise TypeError(f"{fn.__name__}: parameters {sorted(clash)} are already fields of {cls.__name__}")
        required = [p for p in own if p.default is inspect.Parameter.empty]  # e.g. a Typer context: first
        flat = sig.replace(parameters=required + [p for _, p in fields_as if p is not None]
                           + [p for p in own if p not in required])

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = flat.bind(*args, **kwargs)
            bound.apply_defaults()
            values = dict(bound.arguments)
            opts = options_from(cls, {s.name: values.pop(s.name) for s in specs})
            return fn(**{name: opts}, **values)

        wrapper.__signature__ = flat  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in flat.parameters.values()
                                   if p.annotation is not inspect.Parameter.empty}
        if flat.return_annotation is not inspect.Signature.empty:
            wrapper.__annotations__["return"] = flat.return_annotation
        if document:
            wrapper.__doc__ = _with_args(fn.__doc__ or "", specs)
        return wrapper

    return decorate


def _resolved(annotation: Any, namespace: dict[str, Any]) -> Any:
    """A string annotation (``from __future__ import annotations``) as the object it names."""
    return eval(annotation, namespace) if isinstance(annotation, str) else annotation  # noqa: S307 - own source


def _with_args(doc: str, specs: tuple[OptionSpec, ...]) -> str:
    lines = [inspect.cleandoc(doc), "", "Args:"] if doc else ["Args:"]
    return "\n".join(lines + [f"    {s.name}: {' '.join(s.help.split())}" for s in specs])


def as_parameters(options: Any) -> dict[str, Any]:
    """An options object as the keyword arguments of a front end derived from its class (a flow called by a flow)."""
    return {spec.name: getattr(options, spec.name) for spec in option_specs(type(options))}
