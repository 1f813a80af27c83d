"""Secret scrubbing for anything written to disk (manifests, CLI arguments, device and agent configs).

`scrub(value)` returns a copy with secrets replaced by "***". The rules:
- anything under a key named like *key*, *token*, *secret*, *passw*, *pwd*, *auth*, *credential*, *cookie*,
  *session* is replaced whole -- except NUMBERS under *token(s)* keys (counts: `max_tokens`, `prompt_tokens`),
  keys naming keyboards/keycodes, booleans and empty values;
- strings anywhere that look like API keys or tokens (sk-..., hf_..., ghp_..., xox?-..., AIza..., AKIA...,
  JWTs, `Bearer ...` / `Basic ...`) are masked in place;
- URLs lose `user:password@` and query parameters with secret-looking names;
- in argument lists the value after `--api-key` (or the part after `--api-key=`) is masked.

`redact(text)` is the last line of defence for every artifact the harness writes (step lines, episode and run
JSON, hierarchy XML, the report, cassettes): the secrets registered with `register_secret` / `register_url`
(the API key from the environment or a flag; the model endpoint's user, password and query values) are
replaced wherever they appear, key-shaped strings are masked, and every URL in the text loses its
`user:password@`; a URL of a registered endpoint loses every query value, any other URL the values of
secret-named parameters (a search URL an agent typed keeps its `?q=`).
"""

from __future__ import annotations

import re
import threading
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

_SECRET_KEY = re.compile(r"key|token|secret|passw|pwd|auth|credential|cookie|session", re.IGNORECASE)
_NOT_SECRET_KEY = re.compile(r"keyboard|keycode|monkey", re.IGNORECASE)
_COUNT_KEY = re.compile(r"tokens?$|tokens?[_-]", re.IGNORECASE)  # max_tokens, prompt_tokens: numbers stay
_SECRET_VALUE = re.compile(
    r"\b(?:sk-[A-Za-z0-9_\-]{12,}|sk_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{16,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abpr]-[A-Za-z0-9\-]{10,}|AIza[A-Za-z0-9_\-]{30,}"
    r"|AKIA[A-Z0-9]{16}|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]+)"
)
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{8,}")
# What every match of _SECRET_VALUE starts with (one literal per branch, case as written) and of _BEARER (folded):
# `_mask_key_shapes` runs a pattern only over text holding one of them - a str search instead of the regex engine trying
# each branch at every position (~1.3 ms per hierarchy dump, in every step's record). Keep them in step.
_SECRET_STARTS = (
    "sk-", "sk_", "hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xoxa-", "xoxb-", "xoxp-", "xoxr-",
    "AIza", "AKIA", "eyJ",
)  # fmt: skip
_BEARER_WORDS = ("bearer", "basic")
REDACTED = "***"


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or (isinstance(value, str) and _NUMBER.fullmatch(value) is not None)


def _secret_key(name: str, value: Any = None) -> bool:
    """Is a value under key `name` a secret? (Token counts -- numbers under *tokens* keys -- are not.)"""
    if not _SECRET_KEY.search(name) or _NOT_SECRET_KEY.search(name):
        return False
    return not (_COUNT_KEY.search(name) and _is_number(value))


def _mask_key_shapes(text: str) -> str:
    """`text` with key-shaped strings and Authorization values masked; each pattern runs only over text holding
    what its matches start with."""
    if any(p in text for p in _SECRET_STARTS):
        text = _SECRET_VALUE.sub(REDACTED, text)
    if _may_hold(text, _BEARER_WORDS):
        text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    return text


def _may_hold(text: str, words: tuple[str, ...]) -> bool:
    """Can a case-insensitive pattern find one of the lower-case ASCII `words` in `text`? (casefold, plus the
    dotless i that Python's IGNORECASE matches to i; a false yes only costs the pattern's run)"""
    folded = text.casefold()
    if "\u0131" in folded:
        folded = folded.replace("\u0131", "i")
    return any(w in folded for w in words)


def _scrub_str(s: str) -> str:
    s = _mask_key_shapes(s)
    if "://" in s and " " not in s:  # URL: drop user:password@ and secret-looking query parameters
        try:
            u = urlsplit(s)
            netloc = u.netloc.rsplit("@", 1)[-1] if "@" in u.netloc else u.netloc
            if "@" in u.netloc:
                netloc = f"{REDACTED}@{netloc}"
            q = (
                "&".join(
                    f"{k}={REDACTED}" if _secret_key(unquote(k)) else (f"{k}={v}" if sep else k)
                    for k, sep, v in (p.partition("=") for p in u.query.split("&") if p)
                )
                if u.query
                else ""
            )
            s = urlunsplit((u.scheme, netloc, u.path, q, u.fragment))
        except ValueError:
            pass
    return s


_REGISTERED: set[str] = set()  # secret strings, replaced wherever they appear
_ENDPOINTS: set[str] = set()  # host[:port] of registered endpoints: their URLs lose every query value
_LOCK = threading.Lock()
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s\"'<>\\]+")
_MIN_SECRET = 6  # shorter strings ("v1", "true") would redact ordinary words


def register_secret(value: str | None) -> None:
    """Never write `value` anywhere (an API key, a password): `redact` replaces it with ***."""
    if value and len(value) >= _MIN_SECRET:
        with _LOCK:
            _REGISTERED.add(value)


def register_url(url: str | None) -> None:
    """A model endpoint's URL: its user, password and query values become secrets, and any URL of its host loses
    every query value when written."""
    if not url:
        return
    try:
        u = urlsplit(url)
    except ValueError:
        return
    for part in (u.username, u.password):
        register_secret(unquote(part) if part else None)
    for _, v in parse_qsl(u.query, keep_blank_values=False):
        register_secret(v)
    if u.hostname:
        with _LOCK:
            _ENDPOINTS.add(u.hostname + (f":{u.port}" if u.port else ""))


def _redact_url(url: str) -> str:
    try:
        u = urlsplit(url)
        host = (u.hostname or "") + (f":{u.port}" if u.port else "")
    except ValueError:
        return url
    netloc = u.netloc.rsplit("@", 1)[-1]
    if "@" in u.netloc:
        netloc = f"{REDACTED}@{netloc}"
    endpoint = host in _ENDPOINTS
    q = (
        "&".join(
            f"{k}={REDACTED}" if sep and v and (endpoint or _secret_key(unquote(k))) else f"{k}{sep}{v}"
            for k, sep, v in (p.partition("=") for p in u.query.split("&") if p)
        )
        if u.query
        else ""
    )
    return urlunsplit((u.scheme, netloc, u.path, q, u.fragment))


def redact(text: str) -> str:
    """`text` as it may be written: registered secrets, key-shaped strings and URL credentials replaced."""
    with _LOCK:
        secrets = sorted(_REGISTERED, key=len, reverse=True)
    for s in secrets:
        if s in text:
            text = text.replace(s, REDACTED)
    text = _mask_key_shapes(text)
    return _URL.sub(lambda m: _redact_url(m.group(0)), text) if "://" in text else text


def scrub(value: Any, key: str = "") -> Any:
    """A copy of `value` (JSON-like) with secrets replaced by "***".

    Anything under a key named like *key*, *token*, *secret*, *password*, *auth*, *credential*, *cookie* is
    replaced whole (token COUNTS -- numbers under `max_tokens`, `prompt_tokens`, ... -- stay); strings anywhere
    that look like API keys (sk-..., hf_..., ghp_..., Bearer ..., JWTs) are masked; URLs lose user:password@ and
    secret query parameters; in argument lists the value after `--api-key` (or `--api-key=...`) is masked.
    """
    if key and value not in (None, "", [], {}) and not isinstance(value, bool) and _secret_key(key, value):
        return REDACTED
    if isinstance(value, dict):
        return {k: scrub(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        out: list[Any] = []
        items = list(value)
        i = 0
        while i < len(items):
            item = items[i]
            if isinstance(item, str) and item.startswith("-"):  # a command-line option
                opt, eq, val = item.lstrip("-").partition("=")
                nxt = items[i + 1] if i + 1 < len(items) else None
                if eq and val and _secret_key(opt, val):
                    out.append(f"{item.split('=', 1)[0]}={REDACTED}")
                    i += 1
                    continue
                if not eq and isinstance(nxt, str) and nxt and not nxt.startswith("-") and _secret_key(opt, nxt):
                    out += [item, REDACTED]
                    i += 2
                    continue
            out.append(scrub(item))
            i += 1
        return out
    if isinstance(value, str):
        return _scrub_str(value)
    return value


__all__ = ["scrub", "redact", "register_secret", "register_url", "REDACTED"]
