"""The `openai` agent's options: one record, read by the agent, the SFT export (the same prompts and image sizes)
and `rerun` (the default model). Unknown names are refused."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

OutputFormat = Literal["json", "agentcpm", "uitars", "qwen"]


class OpenAIAgentOptions(BaseModel):
    """Options of the `openai` agent (unknown names are refused)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    model: str = "gpt-4o"
    base_url: str | None = None  # default: env OPENAI_BASE_URL, else the OpenAI API
    api_key: SecretStr | None = None  # default: env OPENAI_API_KEY
    output_format: OutputFormat = "json"
    coordinate_space: Literal["image_pixels", "relative_1000"] = "image_pixels"  # uitars / qwen only
    max_image_side: int = Field(1344, ge=64, le=8192)
    image_format: Literal["png", "jpeg"] = "png"
    jpeg_quality: int = Field(85, ge=1, le=100)
    set_of_marks: bool = False
    include_elements: bool = True
    max_elements_chars: int = Field(8000, ge=200)
    max_history: int = Field(8, ge=0, le=200)
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int = Field(1024, ge=16)
    seed: int | None = None
    timeout: float = Field(60.0, gt=0)
    max_retries: int = Field(4, ge=0, le=20)
    backoff_base: float = Field(1.0, ge=0)
    backoff_max: float = Field(30.0, ge=0)
    retry_seed: int | None = None  # seeds the jitter (tests)
    max_repairs: int = Field(1, ge=0, le=10)
    swipe_distance: float = Field(0.3, gt=0, le=1)
    cassette: str | None = None
    cassette_mode: Literal["record", "playback"] = "record"
    system_prompt: str | None = None  # path of a prompt file replacing the built-in one for the format
    language: str | None = None  # language of the thought (uitars prompt); default: the episode's
