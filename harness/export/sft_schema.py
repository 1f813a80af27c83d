"""The record of one supervised fine-tuning sample (`droidharness export --format sft`), one JSON line each, and
the validation of a written file. docs/export.md describes every field; `sft_sample.schema.json` next to this
module is the same schema as a JSON Schema file (`SFTSample.model_json_schema()`, checked by the tests).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .episodes import ExportError

SFT_SCHEMA = "droidharness.sft/1"
SCHEMA_FILE = "sft_sample.schema.json"
OutputFormat = Literal["json", "agentcpm", "uitars", "qwen"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TextPart(_Strict):
    type: Literal["text"]
    text: str


class ImagePart(_Strict):
    type: Literal["image"]
    image: str = Field(description="the screenshot file, relative to the JSONL's folder (images/<sha256>.<ext>)")


class Message(_Strict):
    role: Literal["system", "user", "assistant"]
    content: str | list[TextPart | ImagePart]


class Source(_Strict):
    kind: Literal["run", "dataset"]
    name: str = Field(description="the run id, or the dataset's name")
    episode: str = Field(description="the run's episode folder (<task_id>__<lang>), or the dataset's episode id")
    step: int = Field(ge=1, description="1-based step of the episode")
    task_id: str | None = None
    lang: str


class EpisodeOutcome(_Strict):
    """The episode's result as scoring reads it (a run's episodes); null fields for a dataset's demonstrations."""

    status: str | None = None
    success: bool | None = None
    progress: float | None = Field(None, ge=0, le=1)


class SFTSample(_Strict):
    schema_: Literal["droidharness.sft/1"] = Field("droidharness.sft/1", alias="schema")
    id: str
    source: Source
    output_format: OutputFormat
    coordinate_space: Literal["image_pixels", "relative_1000"]
    images: list[str] = Field(min_length=1, description="the screenshots the messages show, relative paths")
    image_size: tuple[int, int] = Field(description="(width, height) of the image file: the device screen")
    resize_to: tuple[int, int] = Field(
        description="(width, height) the prompt and any pixel coordinates refer to: resize the image to it"
    )
    messages: list[Message] = Field(min_length=3, description="system, user (text + image), assistant (the target)")
    action: dict[str, Any] = Field(description="the unified action the target text means (harness.actions JSON)")
    recorded_action: dict[str, Any] = Field(description="the action as recorded, before the format's lowering")
    episode: EpisodeOutcome = EpisodeOutcome()
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a sample line."""
    return SFTSample.model_json_schema(by_alias=True)


def shipped_schema() -> dict[str, Any]:
    """The JSON Schema file shipped in the package."""
    text = (resources.files("harness.export") / SCHEMA_FILE).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def validate_file(path: str | Path) -> int:
    """Check every line of the JSONL at `path` against `SFTSample` and that each image it names exists next to
    it; the number of samples, or an ExportError naming the file, the line and the field."""
    p = Path(path)
    try:
        f = open(p, encoding="utf-8")
    except OSError as exc:
        raise ExportError(f"{p}: cannot read: {exc.strerror or exc}") from None
    n = 0
    with f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                sample = SFTSample.model_validate_json(line)
            except ValidationError as exc:
                first = exc.errors()[0]
                loc = ".".join(str(x) for x in first["loc"]) or "line"
                raise ExportError(f"{p}:{lineno}: {loc}: {first['msg']}") from None
            for name in sample.images:
                if Path(name).is_absolute() or ".." in Path(name).parts or not (p.parent / name).is_file():
                    raise ExportError(f"{p}:{lineno}: images: {name!r} is not a file next to the JSONL")
            n += 1
    return n


__all__ = ["SFT_SCHEMA", "SFTSample", "Message", "Source", "EpisodeOutcome", "json_schema", "validate_file"]
