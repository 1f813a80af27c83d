"""`droidharness qa`: ask a question about the screen a live device shows (ScreenQA on live apps).

Captures the screen (the embedded virtual device unless `--device` names one), asks a QA agent (`agents.qa`),
prints the ranked answer elements (rank, element index, text, bounds) and the short answer, and saves the
screenshot with the answer boxes drawn and numbered in rank order. "No answer" is a valid answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from PIL import Image, ImageDraw, ImageFont
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.actions import OpenApp
from harness.device.apps import looks_like_package
from harness.errors import HarnessError

console = Console()


def qa_command(
    question: str = typer.Option(..., "--question", "-q", help="The question about the screen."),
    device: Optional[str] = typer.Option(
        None, "--device", "-s", help="Serial of a real device (default: the embedded virtual device)."
    ),
    app: Optional[str] = typer.Option(None, help="Open this app (package or launcher label) before asking."),
    agent: str = typer.Option("lexical", help="QA agent: lexical (no model) or a plug-in."),
    lang: str = typer.Option("en", help="Language of the question and of the virtual device: en or zh."),
    out: Path = typer.Option(Path("out/qa"), help="Where screen.png, answer.png and screen.xml are written."),
) -> None:
    """Answer a question about the live screen: ranked answer elements, a short answer, an annotated screenshot."""
    from agents.qa import answer_elements
    from agents.registry import create_qa_agent
    from harness.device.controller import AdbDevice

    if lang not in ("en", "zh"):
        raise typer.BadParameter(f"{lang!r} is not one of: en, zh", param_hint="--lang")
    try:
        qa = create_qa_agent(agent)
        with AdbDevice.connect(device, start_virtual=device is None, virtual_locale=lang) as dev:
            obs = dev.observe()
            if app:
                _, obs = dev.step(dev_open(app), obs)
            answer = qa.answer(obs, question, lang)
    except HarnessError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    elements = answer_elements(answer, obs)
    out.mkdir(parents=True, exist_ok=True)
    obs.screenshot.save(out / "screen.png")
    (out / "screen.xml").write_text(obs.xml, encoding="utf-8")
    draw_answer(obs.screenshot, [el.bounds for el in elements]).save(out / "answer.png")
    table = Table("rank", "element", "text", "bounds", title=f"{escape(question)}  ({qa.name}, {obs.package})")
    for rank, el in enumerate(elements, 1):
        table.add_row(str(rank), str(el.index), escape(el.text or el.content_desc), str(list(el.bounds)))
    console.print(table)
    short = "no answer" if answer.no_answer or not elements else (answer.text or "")
    console.print(f"answer: [bold]{escape(short)}[/bold]", highlight=False)
    if answer.error:
        console.print(f"[yellow]{escape(answer.error)}[/yellow]", highlight=False)
    console.print(f"wrote {out / 'answer.png'}, {out / 'screen.png'}, {out / 'screen.xml'}", highlight=False)


def dev_open(app: str) -> OpenApp:
    return OpenApp(package=app) if looks_like_package(app) else OpenApp(name=app)


def draw_answer(screenshot: Image.Image, boxes: list[tuple[int, int, int, int]]) -> Image.Image:
    """The screenshot with each answer box drawn and numbered in rank order."""
    img = screenshot.convert("RGB").copy()
    draw = ImageDraw.Draw(img)
    size = max(14, img.width // 40)
    try:
        font: ImageFont.FreeTypeFont | ImageFont.ImageFont = ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        font = ImageFont.load_default()
    for rank, (l, t, r, b) in enumerate(boxes, 1):
        draw.rectangle((l, t, max(l, r - 1), max(t, b - 1)), outline=(230, 30, 60), width=max(3, size // 5))
        draw.rectangle((l, t, l + size + 8, t + size + 8), fill=(230, 30, 60))
        draw.text((l + 4, t + 2), str(rank), fill=(255, 255, 255), font=font)
    return img


def register(app: typer.Typer) -> None:
    app.command("qa")(qa_command)
