"""A served bench report, followed as a person does: an episode's replay link opens the
``/replay`` page on the result's file, which plays to the episode's recorded score."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Page, expect


def follow_a_replay_link(page: Page, result_id: str, folder: Path, agent: str, slug: str) -> None:
    """On the report of ``result_id`` (bench folder ``folder``), open ``agent``'s
    episodes, follow the link of the first episode of ``slug`` and play it to its end."""
    record = json.loads((folder / slug / "runs.jsonl").read_text().splitlines()[0])
    name = f"{slug}-{record['seed']}.jsonl"
    page.locator("summary", has_text=agent).click()  # the episodes' details
    page.locator(f'a.replay[data-replay$="/{name}"]').click()
    served = f"/bench/{result_id}/files/{slug}/replays/{name}"
    expect(page).to_have_url(re.compile(re.escape("/replay?src=" + quote(served)) + "$"))
    total = record["steps"]
    expect(page.locator("#position")).to_have_text(f"0 / {total}")
    page.locator("#last").click()
    expect(page.locator("#position")).to_have_text(f"{total} / {total}")
    expect(page.get_by_test_id("score")).to_have_text(str(record["score"]))
    expect(page.locator("#problem")).to_be_hidden()
