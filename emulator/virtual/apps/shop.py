"""Shop: a browser-like store with an address bar, a search box, a scrolling list of 36 products (name, price,
rating), product pages, a cart with quantities and a total, checkout, and an ad dialog on the very first launch
(closed with its X button; it never comes back until `pm clear`).
"""

from __future__ import annotations

from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .base import App, page

PKG = "com.droidharness.shop"
MAIN = f"{PKG}.MainActivity"
PRODUCT = f"{PKG}.ProductActivity"
CART = f"{PKG}.CartActivity"

_NAMES = [
    ("Wireless Earbuds", "无线耳机"),
    ("Bluetooth Speaker", "蓝牙音箱"),
    ("USB-C Charger 65W", "65W USB-C 充电器"),
    ("Phone Case", "手机壳"),
    ("Screen Protector", "屏幕保护膜"),
    ("Power Bank 10000mAh", "10000mAh 充电宝"),
    ("Smart Watch", "智能手表"),
    ("Fitness Band", "运动手环"),
    ("Laptop Stand", "笔记本支架"),
    ("Mechanical Keyboard", "机械键盘"),
    ("Wireless Mouse", "无线鼠标"),
    ("USB Hub", "USB 集线器"),
    ("HDMI Cable", "HDMI 线"),
    ("Webcam 1080p", "1080p 摄像头"),
    ("Desk Lamp", "台灯"),
    ("Coffee Mug", "咖啡杯"),
    ("Water Bottle", "水杯"),
    ("Backpack", "双肩包"),
    ("Notebook A5", "A5 笔记本"),
    ("Gel Pens (10 pack)", "中性笔（10支装）"),
    ("Running Shoes", "跑鞋"),
    ("Yoga Mat", "瑜伽垫"),
    ("Sunglasses", "太阳镜"),
    ("Umbrella", "雨伞"),
    ("Travel Pillow", "旅行颈枕"),
    ("Electric Kettle", "电热水壶"),
    ("French Press", "法压壶"),
    ("Green Tea (100 bags)", "绿茶（100袋）"),
    ("Dark Chocolate", "黑巧克力"),
    ("Instant Noodles (5 pack)", "方便面（5包）"),
    ("Board Game", "桌游"),
    ("Jigsaw Puzzle 1000", "1000片拼图"),
    ("Tennis Balls (3)", "网球（3个）"),
    ("Plant Pot", "花盆"),
    ("Scented Candle", "香薰蜡烛"),
    ("Headphone Stand", "耳机支架"),
]
_COLORS = [
    (239, 83, 80),
    (66, 165, 245),
    (102, 187, 106),
    (255, 167, 38),
    (171, 71, 188),
    (38, 166, 154),
    (141, 110, 99),
    (120, 144, 156),
    (236, 64, 122),
    (92, 107, 192),
]

PRODUCTS: list[dict[str, Any]] = [
    {
        "id": i + 1,
        "en": en,
        "zh": zh,
        "price": 499 + (i * 737) % 9000,
        "rating": round(3.5 + ((i * 7) % 15) / 10, 1),
        "reviews": 12 + (i * 137) % 2000,
        "color": _COLORS[i % len(_COLORS)],
    }
    for i, (en, zh) in enumerate(_NAMES)
]


def money(cents: int, zh: bool) -> str:
    return f"{'¥' if zh else '$'}{cents // 100:,}.{cents % 100:02d}"


def product(pid: Any) -> dict[str, Any] | None:
    return next((p for p in PRODUCTS if p["id"] == pid), None)


class ShopApp(App):
    package = PKG
    labels = {"en": "Shop", "zh": "购物"}
    activities = {MAIN: "main", PRODUCT: "product", CART: "cart"}
    launcher = MAIN
    color = (234, 67, 53)
    glyph = "cart"

    def seed(self, data: dict[str, Any], locale: str) -> None:
        data["cart"] = []  # [{"id": product id, "qty": n}]
        data["orders"] = []
        data["ad_shown"] = False

    def on_create(self, ctx: Ctx) -> None:
        if not ctx.data.get("ad_shown"):
            ctx.data["ad_shown"] = True
            ctx.show_dialog({"id": "ad"})

    def _name(self, ctx: Ctx, p: dict[str, Any]) -> str:
        return p["zh"] if ctx.zh else p["en"]

    def _cart_count(self, ctx: Ctx) -> int:
        return sum(int(i["qty"]) for i in ctx.data["cart"])

    def _add(self, ctx: Ctx, pid: int) -> None:
        cart = ctx.data["cart"]
        item = next((i for i in cart if i["id"] == pid), None)
        if item is None:
            cart.append({"id": pid, "qty": 1})
        else:
            item["qty"] += 1
        ctx.toast(ctx.tr("Added to cart", "已加入购物车"))

    def _header(self, ctx: Ctx, search: bool = True, back: bool = False) -> list[View]:
        l, t, r, b = ctx.area
        th = ctx.theme
        out: list[View] = []
        bar_h = ctx.dp(56)
        bar = V(ctx, w.LINEAR, (l, t, r, t + bar_h), "toolbar", style={"bg": th.surface})
        x = l + ctx.dp(8)
        isz = ctx.dp(48)
        y0 = t + (bar_h - isz) // 2
        if back:
            bar.children.append(
                w.icon_button(
                    ctx, (x, y0, x + isz, y0 + isz), "back", ctx.tr("Back", "返回"), ctx.finish, "back_button"
                )
            )
            x += isz
        cnt = self._cart_count(ctx)
        cart_desc = ctx.tr(f"Cart, {cnt} items", f"购物车，{cnt} 件商品")
        url = V(
            ctx,
            w.TEXT,
            (x + ctx.dp(8), y0 + ctx.dp(4), r - isz - ctx.dp(16), y0 + isz - ctx.dp(4)),
            "url_bar",
            text="shop.droidharness.com",
            style={"bg": th.surface2, "radius": ctx.dp(20), "fg": th.text2, "size": ctx.sp(14), "pad": ctx.dp(16)},
        )
        bar.children.append(url)
        cart_btn = w.icon_button(
            ctx,
            (r - isz - ctx.dp(8), y0, r - ctx.dp(8), y0 + isz),
            "cart",
            cart_desc,
            lambda: ctx.push(CART),
            "cart_button",
        )
        bar.children.append(cart_btn)
        if cnt:
            bs = max(ctx.dp(18), ctx.text_h(11))
            bar.children.append(
                V(
                    ctx,
                    w.TEXT,
                    (r - ctx.dp(8) - bs - ctx.dp(2), y0 + ctx.dp(2), r - ctx.dp(10), y0 + ctx.dp(2) + bs),
                    "cart_badge",
                    text=str(cnt),
                    style={
                        "bg": th.error,
                        "fg": th.on_error,
                        "radius": bs // 2,
                        "size": ctx.sp(11),
                        "align": "c",
                        "bold": True,
                        "badge": True,  # on the cart icon's corner on purpose
                    },
                )
            )
        out.append(bar)
        if search:
            y = t + bar_h
            fh = ctx.dp(48)
            query = ctx.field_value("search")

            def submit() -> None:
                ctx.ui["query"] = ctx.field_value("search").strip()
                ctx.ui.setdefault("scroll", {})["products"] = 0
                ctx.hide_keyboard()

            out.append(V(ctx, w.FRAME, (l, y, r, y + fh + ctx.dp(16)), style={"bg": th.bg}))
            out.append(
                w.edit(
                    ctx,
                    (l + ctx.dp(16), y + ctx.dp(8), r - ctx.dp(16) - fh - ctx.dp(8), y + ctx.dp(8) + fh),
                    "search",
                    query,
                    ctx.tr("Search products", "搜索商品"),
                    lambda v: ctx.set_field("search", v),
                    "search_box",
                    action=submit,
                    action_kind="search",
                    box="filled",
                )
            )
            out.append(
                w.icon(
                    ctx,
                    (r - ctx.dp(16) - fh, y + ctx.dp(8), r - ctx.dp(16), y + ctx.dp(8) + fh),
                    "search",
                    th.on_primary,
                    "search_button",
                    ctx.tr("Search", "搜索"),
                    bg=th.primary,
                    cls=w.IMAGE_BUTTON,
                    on_click=submit,
                )
            )
            out[-1].style["inset"] = ctx.dp(12)
        return out

    # --- screens -------------------------------------------------------------------------------------
    def screen_main(self, ctx: Ctx) -> list[View]:
        th = ctx.theme
        q = str(ctx.ui.get("query", "")).lower()
        items = [p for p in PRODUCTS if not q or q in p["en"].lower() or q in p["zh"].lower()]
        title = (
            ctx.tr(
                f"{len(items)} results for \u201c{ctx.ui.get('query')}\u201d",
                f"“{ctx.ui.get('query')}”的 {len(items)} 个结果",
            )
            if q
            else ctx.tr("Popular products", "热门商品")
        )
        rows: list[Row] = [w.text_row(ctx, title, "results_title", size=18, bold=True, height_dp=48)]
        row_h = ctx.dp(104)
        for p in items:

            def build(x: int, y: int, wd: int, p: dict[str, Any] = p) -> View:
                name = self._name(ctx, p)
                v = V(
                    ctx,
                    w.LINEAR,
                    (x, y, x + wd, y + row_h),
                    "product_item",
                    clickable=True,
                    focusable=True,
                    desc=name,
                    on_click=lambda: ctx.push(PRODUCT, {"product_id": p["id"]}),
                )
                isz = ctx.dp(80)
                ix = x + ctx.dp(16)
                v.children.append(
                    w.icon(
                        ctx,
                        (ix, y + ctx.dp(12), ix + isz, y + ctx.dp(12) + isz),
                        "image",
                        (255, 255, 255),
                        "product_image",
                        name,
                        bg=p["color"],
                        radius=ctx.dp(12),
                    )
                )
                v.children[-1].style["inset"] = ctx.dp(20)
                tx = ix + isz + ctx.dp(16)
                v.children.append(
                    w.text(
                        ctx, (tx, y + ctx.dp(12), x + wd - ctx.dp(16), y + ctx.dp(40)), name, "product_title", size=16
                    )
                )
                v.children.append(
                    w.text(
                        ctx,
                        (tx, y + ctx.dp(40), x + wd - ctx.dp(16), y + ctx.dp(64)),
                        money(p["price"], ctx.zh),
                        "product_price",
                        size=16,
                        bold=True,
                    )
                )
                v.children.append(
                    w.text(
                        ctx,
                        (tx, y + ctx.dp(64), x + wd - ctx.dp(16), y + ctx.dp(88)),
                        f"★ {p['rating']:.1f} ({p['reviews']:,})",
                        "product_rating",
                        size=13,
                        color=th.text2,
                    )
                )
                return v

            rows.append(Row(row_h, build))
        if not items:
            rows.append(
                w.text_row(
                    ctx,
                    ctx.tr("No products found. Try another search.", "未找到商品，请换个关键词。"),
                    "no_results",
                    color=th.text2,
                    align="c",
                    height_dp=96,
                )
            )
        return page(ctx, self._header(ctx), rows, key="products", rid="product_list")

    def screen_product(self, ctx: Ctx) -> list[View]:
        th = ctx.theme
        p = product(ctx.extras.get("product_id")) or PRODUCTS[0]
        name = self._name(ctx, p)
        img_h = ctx.dp(220)
        rows = [
            Row(
                img_h,
                lambda x, y, wd: w.icon(
                    ctx,
                    (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + img_h - ctx.dp(8)),
                    "image",
                    (255, 255, 255),
                    "product_image",
                    name,
                    bg=p["color"],
                    radius=ctx.dp(16),
                ),
            ),
            w.text_row(ctx, name, "product_title", size=22, height_dp=44),
            w.text_row(ctx, money(p["price"], ctx.zh), "product_price", size=22, bold=True, height_dp=40),
            w.text_row(
                ctx,
                ctx.tr(
                    f"★ {p['rating']:.1f} · {p['reviews']:,} ratings", f"★ {p['rating']:.1f} · {p['reviews']:,} 条评价"
                ),
                "product_rating",
                size=14,
                color=th.text2,
                height_dp=32,
            ),
            w.text_row(
                ctx,
                ctx.tr(
                    f"A dependable {p['en'].lower()} for everyday use. Free shipping on orders over $35. "
                    "30-day returns.",
                    f"耐用可靠的{p['zh']}，适合日常使用。满 ¥35 包邮，30 天无理由退货。",
                ),
                "product_description",
                size=15,
                color=th.text2,
                lines=4,
            ),
        ]
        footer_h = ctx.dp(80)
        l, t, r, b = ctx.area
        bar = V(ctx, w.LINEAR, (l, b - footer_h, r, b), "buy_bar", style={"bg": th.surface})
        half = (r - l - ctx.dp(48)) // 2
        by0 = b - footer_h + ctx.dp(16)
        bar.children.append(
            w.button(
                ctx,
                (l + ctx.dp(16), by0, l + ctx.dp(16) + half, by0 + ctx.dp(48)),
                ctx.tr("Add to cart", "加入购物车"),
                lambda: self._add(ctx, p["id"]),
                "add_to_cart_button",
                kind="tonal",
            )
        )

        def buy() -> None:
            self._add(ctx, p["id"])
            ctx.push(CART)

        bar.children.append(
            w.button(
                ctx,
                (r - ctx.dp(16) - half, by0, r - ctx.dp(16), by0 + ctx.dp(48)),
                ctx.tr("Buy now", "立即购买"),
                buy,
                "buy_now_button",
            )
        )
        return page(
            ctx,
            self._header(ctx, search=False, back=True),
            rows,
            key=f"product_{p['id']}",
            rid="product_detail",
            footer=[bar],
            footer_h=footer_h,
        )

    def screen_cart(self, ctx: Ctx) -> list[View]:
        th = ctx.theme
        cart = ctx.data["cart"]
        tb = w.toolbar(ctx, ctx.tr("Cart", "购物车"), ("back", ctx.tr("Navigate up", "向上导航"), ctx.finish))
        rows: list[Row] = []
        row_h = ctx.dp(112)
        total = 0
        for item in cart:
            p = product(item["id"])
            if p is None:
                continue
            total += p["price"] * item["qty"]

            def build(x: int, y: int, wd: int, item: dict[str, Any] = item, p: dict[str, Any] = p) -> View:
                name = self._name(ctx, p)
                v = V(ctx, w.LINEAR, (x, y, x + wd, y + row_h), "cart_item", desc=name)
                isz = ctx.dp(64)
                v.children.append(
                    w.icon(
                        ctx,
                        (x + ctx.dp(16), y + ctx.dp(16), x + ctx.dp(16) + isz, y + ctx.dp(16) + isz),
                        "image",
                        (255, 255, 255),
                        "product_image",
                        name,
                        bg=p["color"],
                        radius=ctx.dp(10),
                    )
                )
                tx = x + ctx.dp(96)
                v.children.append(
                    w.text(
                        ctx, (tx, y + ctx.dp(12), x + wd - ctx.dp(56), y + ctx.dp(38)), name, "cart_item_title", size=16
                    )
                )
                v.children.append(
                    w.text(
                        ctx,
                        (tx, y + ctx.dp(38), x + wd - ctx.dp(56), y + ctx.dp(60)),
                        money(p["price"], ctx.zh),
                        "cart_item_price",
                        size=14,
                        color=th.text2,
                    )
                )

                def change(d: int) -> None:
                    item["qty"] += d
                    if item["qty"] <= 0:
                        ctx.data["cart"].remove(item)

                bs = ctx.dp(40)
                by = y + ctx.dp(64)
                v.children.append(
                    w.icon_button(
                        ctx,
                        (tx, by, tx + bs, by + bs),
                        "minus",
                        ctx.tr("Decrease quantity", "减少数量"),
                        lambda: change(-1),
                        "quantity_minus",
                    )
                )
                v.children.append(
                    w.text(
                        ctx,
                        (tx + bs, by, tx + 2 * bs, by + bs),
                        str(item["qty"]),
                        "quantity",
                        size=16,
                        align="c",
                        bold=True,
                    )
                )
                v.children.append(
                    w.icon_button(
                        ctx,
                        (tx + 2 * bs, by, tx + 3 * bs, by + bs),
                        "add",
                        ctx.tr("Increase quantity", "增加数量"),
                        lambda: change(1),
                        "quantity_plus",
                    )
                )
                v.children.append(
                    w.icon_button(
                        ctx,
                        (x + wd - ctx.dp(56), y + ctx.dp(8), x + wd - ctx.dp(8), y + ctx.dp(56)),
                        "delete",
                        ctx.tr("Remove", "移除"),
                        lambda: change(-item["qty"]),
                        "remove_item",
                    )
                )
                return v

            rows.append(Row(row_h, build))
        if not cart:
            rows.append(
                w.text_row(
                    ctx,
                    ctx.tr("Your cart is empty", "购物车是空的"),
                    "empty_cart",
                    color=th.text2,
                    align="c",
                    height_dp=120,
                )
            )
        footer_h = ctx.dp(88)
        l, t, r, b = ctx.area
        bar = V(ctx, w.LINEAR, (l, b - footer_h, r, b), "checkout_bar", style={"bg": th.surface})
        bar.children.append(
            w.text(
                ctx,
                (l + ctx.dp(16), b - footer_h, r - ctx.dp(176), b),
                ctx.tr("Total: ", "合计：") + money(total, ctx.zh),
                "cart_total",
                size=18,
                bold=True,
            )
        )
        bar.children.append(
            w.button(
                ctx,
                (r - ctx.dp(160), b - footer_h + ctx.dp(20), r - ctx.dp(16), b - ctx.dp(20)),
                ctx.tr("Checkout", "结算"),
                lambda: ctx.show_dialog({"id": "checkout"}),
                "checkout_button",
                enabled=bool(cart),
            )
        )
        return page(ctx, [tb], rows, key="cart", rid="cart_list", footer=[bar], footer_h=footer_h)

    # --- dialogs -------------------------------------------------------------------------------------
    def dialog_ad(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        d = dialogs.dialog(
            ctx,
            ctx.tr("Limited-time offer!", "限时优惠！"),
            ctx.tr("Get 20% off your first order with code WELCOME20.", "首单使用优惠码 WELCOME20 立享八折。"),
            [(ctx.tr("Shop now", "立即选购"), "ad_cta", ctx.dismiss_dialog)],
            on_cancel=ctx.dismiss_dialog,
            icon_name="star",
            cancel_outside=False,
            title_rid="ad_title",
            message_rid="ad_message",
        )
        l, t, r, b = d.bounds
        sz = ctx.dp(48)
        d.children.append(
            w.icon_button(
                ctx,
                (r - sz - ctx.dp(4), t + ctx.dp(4), r - ctx.dp(4), t + ctx.dp(4) + sz),
                "close",
                ctx.tr("Close ad", "关闭广告"),
                ctx.dismiss_dialog,
                "ad_close",
            )
        )
        return d

    def dialog_checkout(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        cart = ctx.data["cart"]
        total = sum((product(i["id"]) or {"price": 0})["price"] * i["qty"] for i in cart)

        def place() -> None:
            ctx.data["orders"].append({"items": [dict(i) for i in cart], "total": total})
            ctx.data["cart"] = []
            ctx.dismiss_dialog()
            ctx.toast(ctx.tr("Order placed", "下单成功"))

        return dialogs.dialog(
            ctx,
            ctx.tr("Place order?", "确认下单？"),
            ctx.tr(f"You will pay {money(total, False)}.", f"您将支付 {money(total, True)}。"),
            dialogs.confirm_buttons(ctx, ctx.tr("Place order", "下单"), place, ctx.dismiss_dialog),
            on_cancel=ctx.dismiss_dialog,
        )
