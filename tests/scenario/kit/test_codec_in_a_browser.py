"""The status link, opened in a real browser, shows the task's payloads decoded (issue 26).

``/task status`` links to the workflow in the Temporal Web UI at ``http://127.0.0.1:<port>``;
the codec server used to let only ``http://localhost:8233`` call it, so the UI's decode
request from the linked page failed its CORS check and the input showed as encrypted bytes.
Here the kit runs the stack as ``make run`` does plus the codec server (the Web UI pointed at
it), a task starts through the real bot, and headless chromium opens the link from
``/task status`` as a person would: the UI's JavaScript must show the task's input decoded.
"""

from __future__ import annotations

import re

from bot.testing import SlackClient, running_stack
from tests.support.browser import headless_page

PROMPT = "decode me: the flaky test in the payments suite"
LINK = re.compile(r"<(http://127\.0\.0\.1:\d+/namespaces/default/workflows/[^|>]+)\|")


async def test_the_status_link_shows_the_workflow_input_decoded(tmp_path):
    with running_stack(codec_server=True, data_dir=tmp_path / "stack") as stack:
        slack = SlackClient.of(stack, user="U1")
        await slack.answer(await slack.mention(PROMPT))
        [link] = LINK.findall(await slack.status())
        assert link.startswith(stack.temporal_ui_url)

        async with headless_page() as page:
            await page.goto(link)
            text = await page.wait_for_text(lambda shown: f'"prompt": "{PROMPT}"' in shown)
    assert '"owner": "U1"' in text  # the input, decoded by the codec server with the key
    assert "binary/encrypted" not in text
