"""Solvers that task declarations can name."""

from __future__ import annotations

from functools import cache
from typing import Any, Callable

from inspect_ai.model import ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

from eq_evals.resources import display_path, load_yaml, resource

CONTEXTS: dict[str, Callable[[str], dict[str, str]]] = {}


def template_context(name: str) -> Callable:
    """Register a named provider of template variables (per language), e.g. taxonomy label lists."""

    def register(fn: Callable[[str], dict[str, str]]) -> Callable[[str], dict[str, str]]:
        CONTEXTS[name] = fn
        return fn

    return register


@cache
def load_template_file(file: str) -> dict[str, Any]:
    data = load_yaml("solvers", file)
    where = display_path(resource("solvers", file))
    if not isinstance(data.get("templates"), dict):
        raise ValueError(f"{where}: needs a 'templates' mapping")
    if data.get("context") and data["context"] not in CONTEXTS:
        raise ValueError(f"{where}: context {data['context']!r} is not one of {sorted(CONTEXTS)}")
    for var, spec in (data.get("vars") or {}).items():
        if not isinstance(spec, dict) or "by" not in spec or not isinstance(spec.get("values"), dict):
            raise ValueError(f"{where}: vars.{var} needs 'by' (a metadata field) and 'values'")
    return data


def render(file: str, template: str, metadata: dict[str, Any], text: str) -> str:
    """Render ``templates.<template>.<language>`` with the item text, metadata, vars and context."""
    data = load_template_file(file)
    language = metadata.get("language", "en")
    if template not in data["templates"]:
        raise ValueError(f"{file} has no template {template!r}")
    variants = data["templates"][template]
    if language not in variants:
        raise ValueError(f"{file}: template {template!r} has no {language!r} version")
    values: dict[str, Any] = dict(metadata)
    if data.get("context"):
        values.update(CONTEXTS[data["context"]](language))
    for var, spec in (data.get("vars") or {}).items():
        choice = spec["values"].get(str(metadata.get(spec["by"])))
        if choice is not None:
            values[var] = choice[language] if isinstance(choice, dict) else choice
    values["input"] = text
    try:
        return variants[language].format_map(values).strip()
    except KeyError as ex:
        raise ValueError(
            f"{file}: template {template!r} uses {{{ex.args[0]}}}, which this sample does not provide"
        ) from None


@solver
def prompt_template(file: str, template: str | None = None, template_by: str | None = None) -> Solver:
    """Replace the user prompt with a template from ``solvers/<file>`` in the sample's language: the one
    named ``template``, or the one named by the sample's metadata field ``template_by``."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        name = template if template is not None else str(state.metadata.get(template_by or ""))
        prompt = render(file, name, state.metadata, state.input_text)
        state.messages = [m for m in state.messages if m.role == "system"] + [ChatMessageUser(content=prompt)]
        return state

    return solve


def prerender(samples: list, file: str, template: str | None = None, template_by: str | None = None) -> list:
    """The samples with ``prompt_template``'s prompt rendered into their input, as the step would at run time
    (system messages kept, the user prompt replaced). The engine applies a declaration's leading
    ``prompt_template`` step this way when the task is built (issue 14, harness overhead): the log's input is
    then the exact prompt the model saw, and each sample saves a solver step (its span, state snapshots and
    state event) and the attachment of the unrendered text. The item's own fields stay in its metadata."""
    out = []
    for sample in samples:
        name = template if template is not None else str((sample.metadata or {}).get(template_by or ""))
        if isinstance(sample.input, str):
            text, system = sample.input, []
        else:
            text = next((m.text for m in reversed(sample.input) if m.role == "user"), "")
            system = [m for m in sample.input if m.role == "system"]
        prompt = render(file, name, sample.metadata or {}, text)
        out.append(
            sample.model_copy(update={"input": system + [ChatMessageUser(content=prompt)] if system else prompt})
        )
    return out


def _validate_prompt(file: str, template: str | None = None, template_by: str | None = None) -> None:
    data = load_template_file(file)
    if (template is None) == (template_by is None):
        raise ValueError("give exactly one of 'template' and 'template_by'")
    if template is not None and template not in data["templates"]:
        raise ValueError(f"{file} has no template {template!r}; it has {sorted(data['templates'])}")


def _validate_samples(samples: list, file: str, template: str | None = None, template_by: str | None = None) -> None:
    """Every sample's template exists in its language (checked when the task is built, before any model call:
    a template file lacking one dimension's template would otherwise fail sample by sample at run time)."""
    data = load_template_file(file)
    missing: dict[str, list[str]] = {}
    for sample in samples:
        md = sample.metadata or {}
        name = template if template is not None else str(md.get(template_by or ""))
        language = md.get("language", "en")
        if name not in data["templates"]:
            missing.setdefault(f"template {name!r}", []).append(str(sample.id))
        elif language not in data["templates"][name]:
            missing.setdefault(f"template {name!r} in {language!r}", []).append(str(sample.id))
    if missing:
        where = display_path(resource("solvers", file))
        raise ValueError(
            f"{where} lacks "
            + "; ".join(f"{what} (needed by {len(ids)} sample(s), e.g. {ids[0]})" for what, ids in missing.items())
            + f"; it has {sorted(data['templates'])}"
        )


def _validate_with_dataset(
    dataset_args: dict[str, Any], file: str, template: str | None = None, template_by: str | None = None
) -> None:
    """At load time: when the template is chosen by a metadata field (``template_by: dimension``) and the dataset
    arguments list that field's values literally (``dimensions: [...]``), each value must name a template."""
    values = dataset_args.get(f"{template_by}s") if template_by else None
    if not isinstance(values, list):
        return  # not knowable before the data is read: checked per sample when the task is built
    data = load_template_file(file)
    missing = [str(v) for v in values if str(v) not in data["templates"]]
    if missing:
        raise ValueError(
            f"{file} has no template for {template_by} {', '.join(missing)} (dataset {template_by}s "
            f"{values}); it has {sorted(data['templates'])}"
        )


prompt_template.validate_declaration = _validate_prompt  # type: ignore[attr-defined]
prompt_template.validate_with_dataset = _validate_with_dataset  # type: ignore[attr-defined]
prompt_template.validate_samples = _validate_samples  # type: ignore[attr-defined]
# as a task's first solver step it is applied when the task is built (engine.build_task)
prompt_template.at_build = prerender  # type: ignore[attr-defined]
