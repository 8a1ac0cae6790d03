"""The 62-label emotion taxonomy and the five crisis levels (FACET App. C.1), read from
``datasets/facet/taxonomy.yaml`` so prompts, parsers and validators share one source."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from eq_evals.resources import load_yaml, resource

LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class Taxonomy:
    labels: tuple[dict, ...]  # {group, en, zh, zh_confirmed}
    crisis_levels: tuple[dict, ...]  # {level, en, zh, definition_en, definition_zh}

    def names(self, language: str) -> list[str]:
        return [entry[language] for entry in self.labels]

    def groups(self, language: str) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for entry in self.labels:
            out.setdefault(entry["group"], []).append(entry[language])
        return out

    def translate(self, label: str, source: str, target: str) -> str | None:
        for entry in self.labels:
            if entry[source] == label:
                return entry[target]
        return None


@cache
def taxonomy() -> Taxonomy:
    path = resource("datasets", "facet/taxonomy.yaml")
    data = load_yaml("datasets", "facet/taxonomy.yaml")
    labels = tuple(data["emotion_labels"])
    if len(labels) != 62:
        raise ValueError(f"{path}: expected 62 emotion labels, found {len(labels)}")
    for language in LANGUAGES:
        names = [str(entry[language]).casefold() for entry in labels]
        if len(set(names)) != 62:
            raise ValueError(f"{path}: {language} labels are not distinct")
    return Taxonomy(labels=labels, crisis_levels=tuple(data["crisis_levels"]))
