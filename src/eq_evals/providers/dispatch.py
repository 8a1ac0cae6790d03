"""One Inspect provider name (``eq_evals``) for several backends, chosen by the model name."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput
from inspect_ai.tool import ToolChoice, ToolInfo

from eq_evals.errors import EqEvalsError


class EqEvalsModelAPI(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, config=config)
        if model_name in ("smollm2", "gguf"):
            from eq_evals.providers.local_gguf import LocalGGUF

            self.backend: Any = LocalGGUF(model_name, **model_args)
        elif model_name == "scripted" or model_name.startswith("scripted-"):
            from eq_evals.providers.scripted import Scripted

            mode = model_name.partition("-")[2] or str(model_args.pop("mode", "echo"))
            self.backend = Scripted(mode, **model_args)
        else:
            raise EqEvalsError(
                f"unknown eq_evals model {model_name!r}: use eq_evals/scripted[-<mode>], "
                "eq_evals/smollm2 or eq_evals/gguf -M model_path=FILE"
            )

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        return await self.backend.generate(self.model_name, input, config)

    def max_connections(self) -> int:
        return self.backend.max_connections

    def should_retry(self, ex: Exception) -> bool:
        return False
