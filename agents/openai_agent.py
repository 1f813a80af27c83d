"""An agent backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, SGLang, LM Studio, ...).

Each step sends the system prompt of the output format (a file in `harness/modelio/prompts/`), then one user message
with the instruction, a compact history, the numbered element list (`UITree.to_prompt`) and the screenshot (resized
so its long side <= `max_image_side`; smart-resized to multiples of 28 for formats answering in image pixels;
optionally with a set-of-marks overlay). The reply is parsed by `harness.modelio.parsers` for `output_format`:
`json` (ours), `agentcpm`, `uitars`, `qwen`. Points come back normalized through `harness.coords`; the
`ScreenMapping` used is recorded in `AgentStep.meta["screen_mapping"]`.

Failures:
- 429 / 5xx / timeouts / connection errors / malformed bodies: retried here (the client's own retries are off so
  every retry is visible and counted) with exponential backoff and jitter, at most `max_retries` times; then
  `EndpointError` naming the endpoint and the step. Other 4xx (bad key, bad request) fail at once with an
  `EndpointError`. An `EndpointError` is an infrastructure failure: the runner retries the episode and, if it
  persists, lists it and leaves it out of SR / ATP.
- unparseable or invalid output: up to `max_repairs` follow-up messages quoting the error; then
  `AgentStep(action=None, invalid=True, error=...)`.
The API key is never logged or recorded; error texts pass through `redact`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import string
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from pydantic import ValidationError

from harness.actions import Action, Answer
from harness.agent import (
    AgentError,
    AgentStep,
    EpisodeContext,
    HistoryItem,
    Usage,
)
from harness.errors import ActionValidationError, ConfigError, EndpointError
from harness.modelio.imaging import draw_marks, encode_image, prepare_image
from harness.modelio.options import OpenAIAgentOptions, OutputFormat
from harness.modelio.parsers import PIXEL_FORMATS, ParseContext, parse_output
from harness.modelio.prompting import SYSTEM_PROMPTS, PromptSet, history_line, language_name
from harness.scrub import redact, register_secret, register_url

from .cassette import Cassette, request_key

log = logging.getLogger(__name__)


class OpenAIAgent:
    """The `openai` agent. Options: see `OpenAIAgentOptions`; `sleep` is injectable for tests."""

    def __init__(self, *, sleep: Callable[[float], None] = time.sleep, **options: Any) -> None:
        try:
            self.options = OpenAIAgentOptions(**options)
        except ValidationError as exc:
            msgs = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'options'}: {e['msg']}" for e in exc.errors(include_url=False)
            )
            raise ConfigError(f"openai agent: invalid option(s): {msgs}") from None
        o = self.options
        self.name = "openai"
        self._sleep = sleep
        self._rng = random.Random(o.retry_seed)
        self._key = o.api_key.get_secret_value() if o.api_key else os.environ.get("OPENAI_API_KEY")
        base_url = o.base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        register_secret(self._key)  # never written anywhere: trajectories, reports, cassettes (harness.scrub)
        register_url(base_url)
        # a query in the base URL (Azure-style `?api-version=...&api-key=...`) is sent as the client's default
        # query: the client appends paths to the base URL, which must not hold one
        parts = urlsplit(base_url)
        self._default_query = dict(parse_qsl(parts.query)) or None
        self._base_url = urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
        self._shown_url = urlunsplit((parts.scheme, parts.netloc.rsplit("@", 1)[-1], parts.path, "", ""))  # messages
        self._cassette = Cassette(o.cassette, o.cassette_mode) if o.cassette else None
        if not self._key and not (self._cassette and self._cassette.mode == "playback"):
            raise ConfigError(
                "openai agent: no API key: set OPENAI_API_KEY or pass api_key "
                "(any non-empty value for endpoints without authentication)"
            )
        self._prompts = PromptSet.load(o.output_format, o.system_prompt)
        self._system, self._user = self._prompts.system, self._prompts.user
        self._elements_block, self._repair = self._prompts.elements_block, self._prompts.repair
        self.prompt_hash = self._prompt_hash()
        self._client: Any = None
        self._ctx: EpisodeContext | None = None
        self._step = 0

    # --- setup -----------------------------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        """Everything that decides what this agent sends and how it reads the answers, for a run's manifest (what
        `droidharness run --like` re-runs): the model, the endpoint's scheme, host and path (no credentials, no
        query), the output format, the sampling settings, the image size sent, the history length, the prompt
        templates' text and their hash. Never the API key."""
        o = self.options
        return {
            **o.model_dump(mode="json", exclude={"api_key", "base_url", "retry_seed"}),
            "base_url": self._shown_url,  # scheme, host, port, path: no user:password@, no query
            "sampling": {"temperature": o.temperature, "max_tokens": o.max_tokens, "seed": o.seed},
            "image": {"max_side": o.max_image_side, "format": o.image_format, "set_of_marks": o.set_of_marks},
            "history": o.max_history,
            "prompt_hash": self.prompt_hash,
            "prompt_templates": {
                "system": self._system,
                "user_step": self._user,
                "elements_block": self._elements_block,
                "repair": self._repair,
            },
        }

    def _prompt_hash(self) -> str:
        opts = self.options.model_dump(
            mode="json",
            exclude={
                "api_key",
                "base_url",
                "cassette",
                "cassette_mode",
                "retry_seed",
                "timeout",
                "max_retries",
                "backoff_base",
                "backoff_max",
            },
        )
        h = hashlib.sha256()
        for part in (self._system, self._user, self._elements_block, self._repair, json.dumps(opts, sort_keys=True)):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        return h.hexdigest()

    def _openai(self) -> Any:
        if self._client is None:
            import openai

            self._client = openai.OpenAI(
                api_key=self._key,
                base_url=self._base_url,
                max_retries=0,
                timeout=self.options.timeout,
                default_query=self._default_query,
            )
        return self._client

    def reset(self, ctx: EpisodeContext) -> None:
        self._ctx = ctx
        self._step = 0

    # --- one step ----------------------------------------------------------------------------------------
    def act(self, observation: Any, history: list[HistoryItem]) -> AgentStep:
        if self._ctx is None:
            raise AgentError("openai agent: act() called before reset()")
        self._step = len(history) + 1  # the runner numbers steps from 1
        o = self.options
        pixel_frame = o.output_format in PIXEL_FORMATS and o.coordinate_space == "image_pixels"
        img, mapping = prepare_image(
            observation.screenshot, tuple(observation.size), o.max_image_side, smart=pixel_frame
        )
        tree = observation.tree
        if o.set_of_marks:
            img = draw_marks(img, tree.prompt_elements(), mapping)
        url, image_sha = encode_image(img, o.image_format, o.jpeg_quality)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self._render_system(mapping.image_size)},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": self._render_user(observation, history, mapping.image_size)},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            },
        ]
        pctx = ParseContext(
            mapping=mapping,
            coordinate_space=o.coordinate_space if o.output_format in PIXEL_FORMATS else "image_pixels",
            tree=tree,
            swipe_distance=o.swipe_distance,
        )
        meta: dict[str, Any] = {
            "model": o.model,
            "output_format": o.output_format,
            "prompt_hash": self.prompt_hash,
            "screen_mapping": {"device_size": list(mapping.device_size), "image_size": list(mapping.image_size)},
            "image_sha256": image_sha,
            "retries": 0,
            "cassette_keys": [],
            "model_seconds": [],  # each model call's round trip, seconds (a cassette plays back the recorded ones)
        }
        if o.output_format in PIXEL_FORMATS:
            meta["coordinate_space"] = o.coordinate_space
        usage = Usage()
        raw, error, thought = "", "", ""
        for attempt in range(o.max_repairs + 1):
            response = self._complete(messages, meta)
            usage = usage + Usage(
                **{
                    k: int(response.get("usage", {}).get(k) or 0)
                    for k in ("prompt_tokens", "completion_tokens", "total_tokens")
                }
            )
            raw = response.get("content") or ""
            tool_calls = response.get("tool_calls") or None
            try:
                parsed = parse_output(o.output_format, raw, pctx, tool_calls)
                _check_targets(parsed.action, tree)
            except ActionValidationError as exc:
                error = str(exc)
                log.info("step %d: invalid %s output (attempt %d): %s", self._step, o.output_format, attempt + 1, error)
                if attempt < o.max_repairs:
                    messages = messages + [
                        {"role": "assistant", "content": raw or json.dumps(tool_calls, ensure_ascii=False)},
                        {"role": "user", "content": string.Template(self._repair).safe_substitute(error=error)},
                    ]
                continue
            return AgentStep(
                action=parsed.action,
                thought=parsed.thought,
                raw_output=raw,
                usage=usage,
                repair_attempts=attempt,
                meta=meta,
            )
        return AgentStep(
            action=None,
            thought=thought,
            raw_output=raw,
            usage=usage,
            invalid=True,
            error=error,
            repair_attempts=o.max_repairs,
            meta=meta,
        )

    # --- prompts -------------------------------------------------------------------------------------
    def _render_system(self, image_size: tuple[int, int]) -> str:
        o = self.options
        lang = language_name(self._ctx.lang if self._ctx else "en", o.language)
        return self._prompts.render_system(image_size, o.coordinate_space, lang)

    def _render_user(self, obs: Any, history: list[HistoryItem], image_size: tuple[int, int]) -> str:
        o = self.options
        assert self._ctx is not None
        return self._prompts.render_user(
            instruction=self._ctx.instruction,
            history=[_history_line(h) for h in history],
            max_history=o.max_history,
            package=getattr(obs, "package", "") or "",
            elements=obs.tree.to_prompt(max_len=o.max_elements_chars) if o.include_elements else None,
            image_size=image_size,
        )

    # --- the model call, with retries and the cassette ----------------------------------------------------
    def _request(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        o = self.options
        req: dict[str, Any] = {
            "model": o.model,
            "messages": messages,
            "temperature": o.temperature,
            "max_tokens": o.max_tokens,
        }
        if o.seed is not None:
            req["seed"] = o.seed
        if o.output_format == "json":
            req["response_format"] = {"type": "json_object"}
        return req

    def complete(self, messages: list[dict[str, Any]], meta: dict[str, Any], step: int = 1) -> dict[str, Any]:
        """One chat completion with this agent's endpoint, retries, cassette and redaction (used by the QA mode,
        `agents.qa_openai`); `meta` collects retries and cassette keys."""
        self._step = step
        meta.setdefault("retries", 0)
        meta.setdefault("cassette_keys", [])
        meta.setdefault("model_seconds", [])
        return self._complete(messages, meta)

    def _complete(self, messages: list[dict[str, Any]], meta: dict[str, Any]) -> dict[str, Any]:
        request = self._request(messages)
        key = request_key(request)
        meta["cassette_keys"].append(key)
        if self._cassette is not None and self._cassette.mode == "playback":
            response = self._cassette.lookup(key, self._step)
        else:
            response = self._call_with_retries(request, meta)
            if self._cassette is not None:
                self._cassette.record(key, response, self._step)
        seconds = response.get("seconds")  # the call's round trip (a cassette plays back the recorded one)
        if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
            meta.setdefault("model_seconds", []).append(float(seconds))
        return response

    def _call_with_retries(self, request: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
        import openai

        o = self.options
        where = f"openai agent: endpoint {self._shown_url} (model {o.model}), step {self._step}"
        for attempt in range(o.max_retries + 1):
            try:
                started = time.monotonic()
                try:
                    completion = self._openai().chat.completions.create(**request)
                except json.JSONDecodeError as exc:  # a 2xx body that is not JSON
                    raise _Malformed(f"the response body is not JSON: {exc.msg}") from None
                return {**_normalize(completion), "seconds": round(time.monotonic() - started, 4)}
            except (
                openai.RateLimitError,
                openai.InternalServerError,
                openai.APITimeoutError,
                openai.APIConnectionError,
                openai.APIResponseValidationError,
                _Malformed,
            ) as exc:
                reason = redact(_describe_error(exc))
                if attempt == o.max_retries:
                    raise EndpointError(f"{where}: gave up after {attempt + 1} attempts: {reason}") from None
                delay = self._backoff(attempt, exc)
                meta["retries"] += 1
                log.warning("%s: attempt %d failed (%s); retrying in %.2fs", where, attempt + 1, reason, delay)
                self._sleep(delay)
            except openai.APIStatusError as exc:
                raise EndpointError(f"{where}: {redact(_describe_error(exc))}") from None
            except openai.OpenAIError as exc:
                raise EndpointError(f"{where}: {redact(str(exc))}") from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _backoff(self, attempt: int, exc: Exception) -> float:
        o = self.options
        delay = min(o.backoff_max, o.backoff_base * (2**attempt)) * (0.5 + 0.5 * self._rng.random())
        response = getattr(exc, "response", None)
        retry_after = response.headers.get("retry-after") if response is not None else None
        if retry_after:
            try:
                delay = max(delay, min(float(retry_after), o.backoff_max))
            except ValueError:
                pass
        return delay


class _Malformed(Exception):
    """A 2xx response that is not a chat completion."""


def _describe_error(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    kind = type(exc).__name__
    msg = str(exc)
    return f"{kind} (HTTP {status}): {msg[:300]}" if status else f"{kind}: {msg[:300]}"


def _normalize(completion: Any) -> dict[str, Any]:
    """The parts of a chat completion we use, as plain JSON (what the cassette stores)."""
    choices = getattr(completion, "choices", None)
    if not choices:
        raise _Malformed(f"the response has no choices: {str(completion)[:200]!r}")
    message = getattr(choices[0], "message", None)
    if message is None:
        raise _Malformed("the first choice has no message")
    tool_calls = None
    if getattr(message, "tool_calls", None):
        tool_calls = [
            {
                "id": getattr(tc, "id", None),
                "type": "function",
                "function": {"name": tc.function.name, "arguments": tc.function.arguments},
            }
            for tc in message.tool_calls
            if getattr(tc, "function", None) is not None
        ]
    usage = getattr(completion, "usage", None)
    return {
        "content": message.content if isinstance(message.content, str) else None,
        "tool_calls": tool_calls,
        "finish_reason": getattr(choices[0], "finish_reason", None),
        "model": getattr(completion, "model", None),
        "usage": {k: int(getattr(usage, k, 0) or 0) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
        if usage is not None
        else {},
    }


def _check_targets(action: Action, tree: Any) -> None:
    """Element indices must exist in the observation's tree."""
    n = len(tree)
    indices = list(action.elements or []) if isinstance(action, Answer) else [getattr(action, "element", None)]
    for idx in indices:
        if idx is not None and idx >= n:
            raise ActionValidationError(
                f"element {idx} does not exist: the element indices of this screen are 0..{n - 1}"
            )


def _history_line(item: HistoryItem) -> str:
    s = item.agent_step
    return history_line(item.step, s.action, s.error, item.result)


__all__ = ["OpenAIAgent", "OpenAIAgentOptions", "OutputFormat", "SYSTEM_PROMPTS"]
