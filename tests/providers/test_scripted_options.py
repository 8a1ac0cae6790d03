"""The scripted model's -M options (issue 22): `fail_while=PATH` alone fails every prompt while PATH exists, and a
misspelt option is an error naming it and the valid ones instead of a run that silently injects nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

import eq_evals._registry  # noqa: F401  (the eq_evals/ model provider)
from eq_evals.errors import EqEvalsError
from eq_evals.providers.scripted import COMMON_OPTIONS, Scripted, ScriptedFailure


def reply(model: Scripted, text: str = "How are you?") -> str:
    output = asyncio.run(model.generate("scripted-echo", [ChatMessageUser(content=text)], GenerateConfig()))
    return output.completion


def test_fail_while_alone_fails_every_prompt_while_the_file_exists(tmp_path: Path) -> None:
    outage = tmp_path / "outage"
    outage.touch()
    model = Scripted("echo", fail_while=str(outage))
    for text in ("one", "two", "three", "four"):
        with pytest.raises(ScriptedFailure, match=f"while {outage} exists"):
            reply(model, text)
    outage.unlink()  # the outage ends
    assert reply(model, "one") == "[scripted] one"


def test_fail_every_with_fail_while_fails_the_same_share_only_during_the_outage(tmp_path: Path) -> None:
    outage = tmp_path / "outage"
    outage.touch()
    model = Scripted("echo", fail_every=2, fail_while=str(outage))
    texts = [f"prompt {i}" for i in range(20)]
    failed = set()
    for text in texts:
        try:
            reply(model, text)
        except ScriptedFailure:
            failed.add(text)
    assert 0 < len(failed) < len(texts)
    outage.unlink()
    assert all(reply(model, text) for text in failed)


def test_a_misspelt_option_is_an_error_naming_it_and_the_valid_ones() -> None:
    with pytest.raises(EqEvalsError) as error:
        Scripted("oracle", fial_every=2)
    message = str(error.value)
    assert "unknown -M option 'fial_every' for eq_evals/scripted-oracle (did you mean fail_every?)" in message
    # FACET's modes add -M items=PATH to the options every mode takes
    assert message.endswith("valid options: " + ", ".join(sorted({*COMMON_OPTIONS, "items"})))
    # the same through Inspect, as `--model eq_evals/scripted-oracle -M fial_every=2` reaches it
    with pytest.raises(EqEvalsError, match="unknown -M option 'fial_every'"):
        get_model("eq_evals/scripted-oracle", fial_every=2)


def test_a_mode_accepts_its_own_options_only() -> None:
    Scripted("sage-user", changes="10,-5", garble="emotion", garble_at=2, goodbye_at=3, delay=0)
    with pytest.raises(EqEvalsError, match=r"unknown -M option 'changes' for eq_evals/scripted-oracle"):
        Scripted("oracle", changes=5)
    with pytest.raises(
        EqEvalsError,
        match=r"valid options: changes, delay, fail_every, fail_while, garble, garble_at, "
        r"goodbye_at$",
    ):
        Scripted("sage-user", goodby_at=2)
    with pytest.raises(EqEvalsError, match=r"-M fail_every='often': expected a number >= 0"):
        Scripted("echo", fail_every="often")
