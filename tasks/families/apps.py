"""Families over the virtual device's own apps: a note with a title and text (Notes), a city's weather in a unit
with a question about it (Weather), a cart of items (Shop)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .base import Family
from .build import both, click, milestone, open_app, steps_for_both, type_into
from .params import ChoiceParam, CountParam, Text, TextParam

NOTES = "com.droidharness.notes"
WEATHER = "com.droidharness.weather"
SHOP = "com.droidharness.shop"

TITLES = (
    ("Dentist", "看牙"),
    ("Packing list", "行李清单"),
    ("Book club", "读书会"),
    ("Gift ideas", "礼物清单"),
    ("Car service", "汽车保养"),
    ("Recipe", "菜谱"),
)
BODIES = (
    ("Thursday at 3 PM", "周四下午3点"),
    ("Bring the blue folder", "带上蓝色文件夹"),
    ("Call before noon", "中午前打电话"),
    ("Buy eggs and rice", "买鸡蛋和米"),
    ("Room 204, second floor", "二楼204房间"),
)

# what the Weather app shows for each city (its current conditions, °C) and the unit chips
CITIES = {"london": ("London", "伦敦", 16, 15, 72), "beijing": ("Beijing", "北京", 29, 31, 55)}
UNITS = {"celsius": ("Celsius", "摄氏度", "°C"), "fahrenheit": ("Fahrenheit", "华氏度", "°F")}
QUESTIONS = {
    "temperature": ("the current temperature", "当前温度"),
    "feels_like": ("the feels-like temperature", "体感温度"),
    "humidity": ("the humidity", "湿度"),
}

# (en, zh, what to search in each language): short names the search finds alone
PRODUCTS = (
    ("Phone Case", "手机壳"),
    ("Screen Protector", "屏幕保护膜"),
    ("USB Hub", "USB 集线器"),
    ("Desk Lamp", "台灯"),
    ("Coffee Mug", "咖啡杯"),
    ("Backpack", "双肩包"),
    ("Yoga Mat", "瑜伽垫"),
    ("Umbrella", "雨伞"),
    ("Board Game", "桌游"),
    ("Plant Pot", "花盆"),
)


def build_note(v: Mapping[str, Any]) -> dict[str, Any]:
    title: Text = v["title"]
    body: Text = v["body"]
    saved = {
        "package": NOTES,
        "all_elements": [
            {"resource_id": "note_title", "text": title.loc()},
            {"resource_id": "note_preview", "text": body.loc(), "match": "contains"},
        ],
    }
    return {
        "category": "1-1",
        "apps": [NOTES],
        "instruction": {
            "en": f'In Notes, write a new note titled "{title.en}" that says "{body.en}".',
            "zh": f"在笔记里新建一条标题为“{title.zh}”的笔记，内容写“{body.zh}”。",
        },
        "start": {"reset_apps": [NOTES]},
        "max_steps": 10,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "editor",
                    "Open a new note",
                    "新建一条笔记",
                    {
                        "activity": "com.droidharness.notes.EditorActivity",
                        "element": {"resource_id": "note_title_edit"},
                    },
                ),
                milestone("saved", "The note is saved with its text", "笔记已保存且内容正确", saved),
            ],
        },
        "end_state": [{"app": NOTES, "milestones": ["saved"]}],
        "reference": steps_for_both(
            [
                open_app("Notes", "笔记", NOTES),
                click("fab_add"),
                type_into(title.loc(), "note_title_edit"),
                type_into(body.loc(), "note_body_edit"),
                click("android:id/home"),
                {"type": "COMPLETE"},
            ]
        ),
    }


def _to_unit(celsius: int, unit: str) -> int:
    return round(celsius * 9 / 5 + 32) if unit == "fahrenheit" else celsius


def build_weather(v: Mapping[str, Any]) -> dict[str, Any]:
    en_city, zh_city, now, feels, humidity = CITIES[v["city"]]
    unit_en, unit_zh, chip = UNITS[v["unit"]]
    q_en, q_zh = QUESTIONS[v["question"]]
    answer = {"temperature": _to_unit(now, v["unit"]), "feels_like": _to_unit(feels, v["unit"])}.get(
        v["question"], humidity
    )
    city = {"resource_id": "city_name", "text": both(en_city, zh_city)}
    return {
        "category": "2-2",
        "apps": [WEATHER],
        "instruction": {
            "en": f"Show the weather for {en_city} in {unit_en} and tell me {q_en}.",
            "zh": f"把天气切换到{zh_city}，用{unit_zh}显示，并告诉我{q_zh}。",
        },
        "start": {"reset_apps": [WEATHER]},
        "max_steps": 10,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "city",
                    f"Switch the city to {en_city}",
                    f"城市切换为{zh_city}",
                    {"package": WEATHER, "element": city},
                ),
                milestone(
                    "unit",
                    f"{en_city} is shown in {unit_en}",
                    f"{zh_city}天气以{unit_zh}显示",
                    {
                        "package": WEATHER,
                        "all_elements": [city, {"text": chip, "class_name": "Button", "states": ["checked"]}],
                    },
                ),
            ],
        },
        "expected_answer": {"values": [str(answer)], "match": "number"},
        "end_state": [{"app": WEATHER, "milestones": ["unit"]}],
        "reference": steps_for_both(
            [
                open_app("Weather", "天气", WEATHER),
                click("city_picker"),
                click("city_option", text=both(en_city, zh_city)),
                click(f"unit_{v['unit']}"),
                {"type": "ANSWER", "text": str(answer)},
            ]
        ),
    }


@dataclass(frozen=True)
class ItemsParam:
    """A `count` of distinct items of `options`, in the order drawn (the count, then the choices)."""

    options: tuple[tuple[str, str], ...]
    count: CountParam
    kind: str = "choices"

    def draw(self, rng: random.Random) -> tuple[tuple[str, str], ...]:
        left = list(self.options)
        return tuple(left.pop(rng.randrange(len(left))) for _ in range(self.count.draw(rng)))


def build_cart(v: Mapping[str, Any]) -> dict[str, Any]:
    items: tuple[tuple[str, str], ...] = v["items"]
    steps: list[dict[str, Any]] = [open_app("Shop", "购物", SHOP), click("ad_close")]
    for en, zh in items:
        steps += [
            type_into(both(en.lower(), zh), "search_box", clear=True, submit=True),
            click("product_title", text=both(en, zh)),
            click("add_to_cart_button"),
            click("back_button"),
        ]
    steps += [click("cart_button"), {"type": "COMPLETE"}]
    children = [
        milestone(
            f"cart_{i + 1}",
            f"{en} is in the cart",
            f"购物车里有{zh}",
            {
                "activity": "com.droidharness.shop.CartActivity",
                "element": {"resource_id": "cart_item_title", "text": both(en, zh)},
            },
        )
        for i, (en, zh) in enumerate(items)
    ]
    return {
        "category": "3-1" if len(items) > 1 else "1-2",
        "apps": [SHOP],
        "instruction": {
            "en": f"Add these to the Shop cart, then open the cart: {', '.join(en for en, _ in items)}.",
            "zh": f"把这些商品加入购物车，然后打开购物车：{'、'.join(zh for _, zh in items)}。",
        },
        "start": {"reset_apps": [SHOP]},
        "max_steps": len(steps) + 6,
        "milestones": {"order": "unordered", "children": children},
        "end_state": [{"milestones": [c["id"] for c in children]}],
        "reference": steps_for_both(steps),
    }


NOTE = Family(
    "notes-new",
    "a note with a title and a text (Notes; judged on the reopened note list)",
    {"title": TextParam(TITLES), "body": TextParam(BODIES)},
    build_note,
)
WEATHER_UNIT = Family(
    "weather-city-unit",
    "a city's weather in a unit, and a number read off it (Weather; an answer and the reopened app)",
    {
        "city": ChoiceParam(tuple(CITIES)),
        "unit": ChoiceParam(tuple(UNITS)),
        "question": ChoiceParam(tuple(QUESTIONS)),
    },
    build_weather,
)
CART = Family(
    "shop-cart",
    "one to three items in the Shop cart, then the cart opened (Shop; judged on the cart screen)",
    {"items": ItemsParam(PRODUCTS, CountParam(1, 3))},
    build_cart,
)
