"""What a dataset adapter is: `DatasetAdapter`, one frozen object per dataset, declared at the end of the dataset's
own module (`aitw.ADAPTER`, ...) and listed once in `tasks.datasets.registry.ADAPTERS`.

Code that behaves differently per dataset reads the adapter's fields and methods, never the dataset's name:

- naming: `name` (canonical, what `DatasetEpisode.dataset` holds), `title`, `aliases` (`matches`, `keys`);
- loading: `load` (`iter_episodes` / `iter_questions`), `episodic`; `load_kwargs(LoadRequest)` maps the options
  every command has (split file and label, images folder, languages, whether pixels are needed) onto the
  loader's own keywords (`split_options`, `images_option`, `langs_option`, `need_images_option`);
- actions: `decode` / `encode` (record <-> unified action; `to_unified` / `from_unified` add the error context),
  `action_fields`, `size_fields` (`size_template`: the screen size an encoded record needs);
- the official metric: `metric` names the metric family (`"aitw"`, `"odyssey"`, `"agentcpm"`, `"screenqa"`;
  `harness.eval.metric_kinds` maps it to the offline collector, its rules and its renderer), `metric_dialect`
  (how that metric reads this dataset's records), `breakdown` (the groups an episode's figures are reported by);
- predictions files and per-episode figures: `episode_key` / `prediction_key` / `lookup_keys`
  (`"<lang>/<episode_id>"` when `lang_in_key`: AndroidLens has one id per language), `action_fields`.

Milestones (AndroidLens) need no field: `DatasetEpisode.to_task()` reads whatever milestones the steps record
(`tasks.datasets.milestones`), and replay marks them with the same state map.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from harness.actions import Action

from .base import DatasetEpisode, DatasetStep
from .errors import DatasetError, FieldError


def normalize_name(name: str) -> str:
    """The comparison key of a dataset name or alias: lower case, no `-` / `_` ("GUI-Odyssey" -> "guiodyssey")."""
    return name.lower().replace("-", "").replace("_", "")


def no_groups(episode: DatasetEpisode) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class LoadRequest:
    """The loading options every command offers, whatever the dataset (`DatasetAdapter.load_kwargs` maps them)."""

    split: str | None = None  # a split file (AitW: {label: [episode ids]}; GUI Odyssey: *_split.json)
    split_label: str | None = None
    images: str | None = None  # a screenshots folder
    langs: tuple[str, ...] = ("en", "zh")
    need_images: bool = True  # False: actions only (pixels dropped / missing screenshots accepted where possible)
    skip_bad: bool = False


@dataclass(frozen=True)
class DatasetAdapter:
    """One dataset: its loader, action codec, official metric and prediction-file conventions (module docstring)."""

    name: str
    title: str
    load: Callable[..., Iterator[Any]]
    metric: str  # the official metric family; harness.eval maps it to the offline collector, rules and renderer
    aliases: tuple[str, ...] = ()
    episodic: bool = True  # yields DatasetEpisode (False: ScreenQA's questions, harness.eval.qa_offline)
    decode: Callable[[dict[str, Any]], Action | None] | None = None  # a step record -> unified action
    encode: Callable[..., dict[str, Any]] | None = None  # (action, template_raw=None, **options) -> step record
    action_fields: tuple[str, ...] = ()  # the record fields that encode the action
    size_fields: tuple[str, str] | None = None  # the record fields of the screenshot's (width, height)
    metric_dialect: str | None = None  # how the metric reads this dataset's records (AgentCPM: "aitz" / "androidlens")
    lang_in_key: bool = False  # one episode id per language: episodes are keyed "<lang>/<episode_id>"
    breakdown: Callable[[DatasetEpisode], dict[str, Any]] = no_groups  # an episode's groups in the figures
    split_options: Callable[[str, str | None], dict[str, Any]] | None = None  # (file, label) -> loader kwargs
    images_option: str | None = None  # the loader's keyword for a screenshots folder
    langs_option: str | None = None  # the loader's keyword for the languages to read
    need_images_option: str | None = None  # the loader's keyword saying whether pixels are needed

    # --- naming ---------------------------------------------------------------------------------------------
    def keys(self) -> tuple[str, ...]:
        """The normalized name and aliases this adapter answers to."""
        return tuple(dict.fromkeys(normalize_name(n) for n in (self.name, *self.aliases)))

    def matches(self, name: str) -> bool:
        return normalize_name(name) in self.keys()

    # --- loading --------------------------------------------------------------------------------------------
    @property
    def supports_split(self) -> bool:
        return self.split_options is not None

    def load_kwargs(self, request: LoadRequest, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The loader's keyword arguments for `request`; `extra` (loader-specific options) is applied first, so the
        request's split / images / languages win over it and its `need_images` only fills a gap."""
        kw: dict[str, Any] = {"skip_bad": request.skip_bad, **(extra or {})}
        if request.split is not None:
            if self.split_options is None:
                raise DatasetError(f"a split file is not supported for {self.name} (select episodes by folder)")
            kw.update(self.split_options(str(request.split), request.split_label))
        if request.images is not None and self.images_option is not None:
            kw[self.images_option] = str(request.images)
        if self.langs_option is not None:
            kw[self.langs_option] = tuple(request.langs)
        if self.need_images_option is not None:
            kw.setdefault(self.need_images_option, request.need_images)
        return kw

    def open(self, path: Any, **kw: Any) -> Iterator[Any]:
        """Stream the dataset at `path` (keyword options go to the loader)."""
        return self.load(path, **kw)

    # --- actions --------------------------------------------------------------------------------------------
    def _codec_missing(self) -> DatasetError:
        return DatasetError(f"{self.name}: no action records (not an episodic dataset)")

    def to_unified(self, raw_step: dict[str, Any]) -> Action | None:
        """A step record -> unified action (None when the record's action is not representable); DatasetError
        naming the dataset and the field."""
        if self.decode is None:
            raise self._codec_missing()
        try:
            return self.decode(raw_step)
        except FieldError as exc:
            raise DatasetError(f"{self.name} record: {exc}") from exc
        except ValueError as exc:  # pydantic validation of the built action
            raise DatasetError(f"{self.name} record: {exc}") from exc

    def from_unified(
        self, action: Action, template_raw: dict[str, Any] | None = None, **options: Any
    ) -> dict[str, Any]:
        """Unified action -> step record (the template's fields with the action fields rewritten)."""
        if self.encode is None:
            raise self._codec_missing()
        return self.encode(action, template_raw, **options)

    def record_action_fields(self, raw_step: Mapping[str, Any]) -> dict[str, Any]:
        """The part of a record that encodes the action (what a template-free round trip rewrites)."""
        return {k: raw_step[k] for k in self.action_fields if k in raw_step}

    def size_template(self, step: DatasetStep) -> dict[str, Any]:
        """The record fields holding the step's screen size (1000 x 1000 when unknown), for `from_unified`."""
        if self.size_fields is None:
            return {}
        w, h = self.size_fields
        return {w: step.width or 1000, h: step.height or 1000}

    # --- episode keys (predictions files, per-episode figures) -----------------------------------------------
    def episode_key(self, episode: DatasetEpisode) -> str:
        return f"{episode.lang}/{episode.episode_id}" if self.lang_in_key else str(episode.episode_id)

    def prediction_key(self, episode_id: Any, lang: Any = None) -> str:
        """The episode key of a predictions line (`episode_id`, and `lang` where episodes are keyed by it)."""
        return f"{lang}/{episode_id}" if self.lang_in_key and lang else str(episode_id)

    def lookup_keys(self, episode: DatasetEpisode) -> tuple[str, ...]:
        """The keys a prediction for `episode` may be filed under, most specific first (a line without `lang`
        matches an AndroidLens episode by its id alone)."""
        return tuple(dict.fromkeys((self.episode_key(episode), str(episode.episode_id))))
