"""The `heuristic` agent: no model, just the instruction's words against the view hierarchy.

Per step, in this order:
1. open the app: on the launcher, click the icon whose label appears in the instruction (English: every word of
   the label, singular/plural folded; Chinese: the label as a substring), else the app whose topics it
   mentions (`APP_TOPICS`: Bluetooth, Wi-Fi, dark theme ... -> Settings); elsewhere, when the instruction says
   "open X" / "打开X" and X is not on screen, OPEN_APP X. The app's words stop counting afterwards.
2. type: when the instruction asks to type / title / name / search (typing verbs) and has quoted text (“…”, "…",
   「…」, ‘…’), type each quoted string into the focused editable field, else an empty one (the one whose hint
   or id best matches the instruction). Search fields get ENTER. After the last string: click a confirm button
   (Save / Done / OK / 保存 / 完成 / 确定 ...) if one is on screen, else BACK (apps save on BACK), then COMPLETE.
3. click: score each visible, enabled, clickable element by the instruction words found in its own text,
   content-desc and id and in its non-clickable descendants' texts (English: words, plural folded, a few verb
   synonyms such as create -> new/add; Chinese: character bigrams of the instruction, stop phrases removed);
   skip elements already clicked (by package + label) and toggles already in the requested state ("turn on" /
   "开启": skip checked; "turn off" / "关闭": skip unchecked). Click the best; ties go to reading order.
4. nothing scores: if some instruction words were never found in a clicked element, BACK (at most
   `MAX_EXPLORE_BACKS` times) to look elsewhere; otherwise COMPLETE (also after `max_actions`).
"""

from __future__ import annotations

import re
from typing import Any

from harness.actions import Back, Click, Complete, OpenApp, TypeText
from harness.agent import AgentStep, EpisodeContext, HistoryItem

_QUOTES = re.compile(r"“([^”]+)”|\"([^\"]+)\"|「([^」]+)」|‘([^’]+)’|『([^』]+)』")
_WORD = re.compile(r"[a-z0-9][a-z0-9\-']*")
_CJK = re.compile(r"[\u3400-\u9fff]")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "then",
        "to",
        "in",
        "on",
        "off",
        "of",
        "for",
        "with",
        "from",
        "into",
        "at",
        "by",
        "it",
        "its",
        "is",
        "are",
        "be",
        "this",
        "that",
        "please",
        "app",
        "application",
        "open",
        "launch",
        "go",
        "tap",
        "click",
        "press",
        "turn",
        "switch",
        "enable",
        "disable",
        "set",
        "sure",
        "your",
        "my",
        "me",
    ]
)
_SYNONYMS = [
    frozenset(g)
    for g in (
        {"create", "new", "add", "compose", "write", "make", "+"},
        {"delete", "remove", "trash", "discard"},
        {"search", "find", "look"},
        {"send", "submit"},
        {"edit", "change", "modify", "rename"},
    )
]
TYPE_VERBS_EN = re.compile(
    r"\b(type|enter|write|titled|title|named|name|called|search|input|fill|saying|text|"
    r"message|rename)\b",
    re.IGNORECASE,
)
TYPE_VERBS_ZH = re.compile(r"输入|标题|名为|命名|搜索|填写|写|内容|叫做|发送")
CONFIRM = frozenset(
    {
        "save",
        "done",
        "ok",
        "okay",
        "confirm",
        "create",
        "add",
        "send",
        "apply",
        "保存",
        "完成",
        "确定",
        "确认",
        "创建",
        "添加",
        "发送",
    }
)
ZH_STOP = (
    "打开",
    "开启",
    "关闭",
    "启用",
    "停用",
    "点击",
    "进入",
    "然后",
    "并且",
    "并",
    "再",
    "把",
    "和",
    "的",
    "为",
    "一条",
    "一个",
    "一下",
    "请",
    "在",
    "中",
    "里",
)
SKIP_PACKAGES = ("com.android.systemui",)
# apps the instruction may need without naming them: launcher label -> topic words (en words, zh substrings)
APP_TOPICS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("settings", "设置"): (
        "bluetooth",
        "wi-fi",
        "wifi",
        "wlan",
        "airplane",
        "dark",
        "theme",
        "brightness",
        "display",
        "蓝牙",
        "飞行",
        "深色",
        "主题",
        "亮度",
        "显示",
    ),
}
MAX_EXPLORE_BACKS = 3


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def en_words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.casefold().replace("_", " "))}


def zh_bigrams(text: str) -> set[str]:
    out: set[str] = set()
    for seg in re.split(r"[^\u3400-\u9fff]+", text):
        if len(seg) == 1:
            out.add(seg)
        out.update(seg[i : i + 2] for i in range(len(seg) - 1))
    return out


def quoted_strings(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in _QUOTES.finditer(text)]


class HeuristicAgent:
    def __init__(self, max_actions: int = 15, name: str = "heuristic") -> None:
        self.name = name
        self.max_actions = max_actions
        self._reset_state("", "en")

    def _reset_state(self, instruction: str, lang: str) -> None:
        self.instruction = instruction
        self.zh = lang == "zh" or bool(_CJK.search(instruction))
        self.quoted = quoted_strings(instruction)
        bare = _QUOTES.sub(" ", instruction)
        self.type_intent = bool(self.quoted) and bool((TYPE_VERBS_ZH if self.zh else TYPE_VERBS_EN).search(bare))
        scoring_text = bare if self.type_intent else instruction
        self.words = {w for w in en_words(scoring_text) if w not in STOPWORDS}
        self.zh_text = scoring_text
        self.phrases = [] if self.type_intent else [q.casefold() for q in self.quoted]
        low = instruction.casefold()
        if re.search(r"\b(turn|switch) (it )?on\b|\benable\b|开启|打开.{0,6}(开关|功能)|启用", low):
            self.turn: str | None = "on"
        elif re.search(r"\b(turn|switch) (it )?off\b|\bdisable\b|关闭|停用", low):
            self.turn = "off"
        else:
            self.turn = None
        m = (
            re.search(r"打开[“\"「]?([\u3400-\u9fffA-Za-z0-9 ]+?)(?:应用|app|[，,。并和然后]|$)", instruction)
            if self.zh
            else re.search(
                r"\b(?i:open|launch|start|go to)\s+(?i:the\s+)?([A-Z][\w&\- ]*?)(?:\s+app\b|[,.;!]|\s+and\b|"
                r"\s+then\b|\s+to\b|$)",
                instruction,
            )
        )
        self.app_hint = m.group(1).strip() if m else None
        self.app_done = False
        self.app_label: str | None = None
        self.typed: list[str] = []
        self.pending_commit = False
        self.committed = False
        self.backing = 0  # BACK presses spent leaving the screen we typed on
        self.typed_on: tuple[str, str] | None = None
        self.clicked: set[tuple[str, str]] = set()
        self.matched: set[str] = set()  # instruction words / bigrams found in clicked elements
        self.explore_backs = 0
        self.actions = 0

    def reset(self, ctx: EpisodeContext) -> None:
        self._reset_state(ctx.instruction, ctx.lang)

    # --- scoring -----------------------------------------------------------------------------------------
    def _drop_app_words(self, label: str) -> None:
        self.app_label = label
        if self.zh:
            self.zh_text = self.zh_text.replace(label, " ")
        else:
            self.words -= en_words(label)

    def _zh_tokens(self) -> set[str]:
        text = self.zh_text
        for stop in ZH_STOP:
            text = text.replace(stop, " ")
        return zh_bigrams(text)

    def _texts(self, tree: Any, el: Any) -> tuple[str, list[str]]:
        """(own text + desc + id words, texts of the non-clickable descendants)."""
        own = " ".join(p for p in (el.text, el.content_desc, el.resource_name.replace("_", " ")) if p)
        inner: list[str] = []
        stack = list(el.children)
        while stack:
            child = tree[stack.pop()]
            if child.clickable:
                continue
            inner += [p for p in (child.text, child.content_desc) if p]
            stack.extend(child.children)
        return own, inner

    def _element_score(self, tree: Any, el: Any) -> tuple[float, str]:
        """Own matches count 1, descendants' 0.8; matches inside long paragraphs (> 60 chars) half."""
        own, inner = self._texts(tree, el)
        score = float(self._score(own))
        for text in inner:
            score += self._score(text) * (0.8 if len(text) <= 60 else 0.4)
        return score, " ".join([own, *inner]).strip()

    def _score(self, label: str) -> int:
        folded = label.casefold()
        score = 3 * sum(1 for p in self.phrases if p in folded)
        if self.zh:
            score += sum(1 for t in self._zh_tokens() if t in label)
        words = en_words(label)
        for w in self.words:
            group = next((g for g in _SYNONYMS if w in g), None)
            if w in words or (group is not None and group & words):
                score += 1
        if "+" in label and self.words & _SYNONYMS[0]:
            score += 1
        return score

    def _tokens(self) -> set[str]:
        return self._zh_tokens() if self.zh else set(self.words)

    def _note_matched(self, label: str) -> None:
        words = en_words(label)
        for t in self._tokens():
            if (t in label) if self.zh else (t in words or any(t in g and g & words for g in _SYNONYMS)):
                self.matched.add(t)

    def _unmatched(self) -> set[str]:
        return self._tokens() - self.matched

    def _key(self, obs: Any, el: Any, label: str) -> tuple[str, str]:
        return (getattr(obs, "package", ""), (el.resource_id or "") + "|" + " ".join(label.split()[:4]))

    def _toggle_done(self, tree: Any, el: Any) -> bool:
        if self.turn is None:
            return False
        checkables = [el] if el.checkable else [tree[c] for c in el.children if tree[c].checkable]
        if not checkables:
            return False
        checked = checkables[0].checked
        return checked if self.turn == "on" else not checked

    def _candidates(self, obs: Any) -> list[Any]:
        return [
            e
            for e in obs.tree.reading_order()
            if e.enabled
            and (e.clickable or e.checkable)
            and e.package not in SKIP_PACKAGES
            and "inputmethod" not in e.package
        ]

    # --- steps ---------------------------------------------------------------------------------------------
    def _step(self, action: Any, thought: str) -> AgentStep:
        self.actions += 1
        return AgentStep(action=action, thought=f"heuristic: {thought}")

    def _open_app(self, obs: Any) -> AgentStep | None:
        self.app_done = True
        tree = obs.tree
        if "launcher" in (getattr(obs, "package", "") or ""):
            for el in self._candidates(obs):
                label = (el.text or el.content_desc).strip()
                if not label:
                    continue
                hit = (
                    (label in self.instruction)
                    if self.zh
                    else (bool(en_words(label)) and en_words(label) <= en_words(self.instruction))
                )
                if hit:
                    self._drop_app_words(label)
                    self.clicked.add(self._key(obs, el, label))
                    return self._step(Click(element=el.index), f"open the app {label!r} from the launcher")
            for el in self._candidates(obs):  # no label in the instruction: an app whose topics it mentions
                label = (el.text or el.content_desc).strip()
                topics = next((t for names, t in APP_TOPICS.items() if label.casefold() in names), ())
                if any((t in self.instruction) if self.zh else (t in en_words(self.instruction)) for t in topics):
                    self.clicked.add(self._key(obs, el, label))
                    return self._step(Click(element=el.index), f"open {label!r}: the task is about its topics")
        topic_words = {t for topics in APP_TOPICS.values() for t in topics}
        if self.app_hint and not any(t in self.app_hint.casefold() for t in topic_words):
            on_screen = any(
                self.app_hint.casefold() == (e.text or "").strip().casefold()
                for e in tree.visible()
                if e.package not in SKIP_PACKAGES and "launcher" not in e.package
            )
            self._drop_app_words(self.app_hint)
            if not on_screen:
                return self._step(OpenApp(name=self.app_hint), f"open the app {self.app_hint!r}")
        return None

    def _type(self, obs: Any) -> AgentStep | None:
        todo = [q for q in self.quoted if q not in self.typed]
        if not todo:
            return None
        tree = obs.tree
        fields = [e for e in tree.reading_order() if e.is_editable and e.enabled]
        if not fields:
            return None
        focused = [e for e in fields if e.focused]
        empty = [e for e in fields if not e.text or e.text == e.hint]
        if focused:
            target = focused[0]
        elif empty:
            target = max(empty, key=lambda e: (self._score(f"{e.hint} {e.resource_name}"), -e.index))
        else:
            return None
        text = todo[0]
        self.typed.append(text)
        self.typed_on = (getattr(obs, "package", ""), getattr(obs, "activity", ""))
        searchy = "search" in f"{target.resource_id} {target.hint}".casefold() or "搜索" in target.hint
        if not searchy and len(self.typed) == len(self.quoted):
            self.pending_commit = True
        clear = bool(target.text) and target.text != target.hint
        return self._step(TypeText(element=target.index, text=text, clear=clear, submit=searchy), f"type {text!r}")

    def _commit(self, obs: Any) -> AgentStep:
        self.pending_commit = False
        for el in self._candidates(obs):
            label = (el.text or el.content_desc).strip()
            if label.casefold() in CONFIRM:
                self.committed = True
                return self._step(Click(element=el.index), f"confirm with {label!r}")
        self.backing = 1
        return self._step(Back(), "go back to save")

    def _leaving(self, obs: Any) -> AgentStep | None:
        """After a BACK that should save: BACK again while the keyboard or the same screen is still there."""
        keyboard = any("inputmethod" in e.package for e in obs.tree.visible())
        same = (getattr(obs, "package", ""), getattr(obs, "activity", "")) == self.typed_on
        if (keyboard or same) and self.backing < 3:
            self.backing += 1
            return self._step(Back(), "go back to save" + (" (hide the keyboard first)" if keyboard else ""))
        self.committed = True
        return None

    def act(self, observation: Any, history: list[HistoryItem]) -> AgentStep:
        if self.backing and not self.committed:
            step = self._leaving(observation)
            if step is not None:
                return step
        if self.committed or self.actions >= self.max_actions:
            return AgentStep(action=Complete(), thought="heuristic: done")
        if not self.app_done:
            step = self._open_app(observation)
            if step is not None:
                return step
        if self.type_intent:
            if self.pending_commit:
                return self._commit(observation)
            step = self._type(observation)
            if step is not None:
                return step
        tree = observation.tree
        best, best_rank, best_label = None, (0.0, 0), ""
        for el in self._candidates(observation):
            score, label = self._element_score(tree, el)
            if not label or self._key(observation, el, label) in self.clicked or self._toggle_done(tree, el):
                continue
            rank = (score, -len(label))  # ties: the shorter label, then reading order
            if score > 0 and rank > best_rank:
                best, best_rank, best_label = el, rank, label
        best_score = best_rank[0]
        if best is None:
            if self._unmatched() and self.explore_backs < MAX_EXPLORE_BACKS and self.actions > 0:
                self.explore_backs += 1
                return self._step(Back(), f"go back to look for {sorted(self._unmatched())[:3]}")
            return AgentStep(action=Complete(), thought="heuristic: nothing left that matches the instruction")
        self._note_matched(best_label)
        self.clicked.add(self._key(observation, best, best_label))
        return self._step(Click(element=best.index), f"click {best_label[:40]!r} (score {best_score:g})")
