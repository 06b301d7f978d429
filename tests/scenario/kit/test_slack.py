"""The testing kit as a user's tests use it: the session's real stack, driven as Slack would.

Only the plugin's fixtures (``harness_stack``, ``harness_slack``) and the hooks file of
``conftest.py``: a mention and a reply get the agent's answers in the thread, slash
commands change and show the task, a question's button is clicked, the hooks file's
policy refuses a tool call, and a hand-written payload is signed or refused. One stack
for the whole module (and session); each test its own channel, so its own task, which
another person of the test joins. Answers are read as the slash replies are, by attribute,
and a wait that times out says in one line what it awaited, with none of the kit's frames.
"""

from __future__ import annotations

import json
import re

import pytest

from bot.testing import Message, SlackClient, new_channel

ASK = 'call ask_human {"question": "which environment?", "options": ["staging", "prod"]}'


async def test_a_mention_and_a_reply_get_the_agents_answers_in_the_thread(harness_slack):
    mention = await harness_slack.mention('call echo {"text": "hello"}')
    assert mention.status == 200
    first = await harness_slack.answer(mention)
    assert isinstance(first, Message) and first.text == "Tool results:\n- echo: hello"
    assert (first.channel, first.thread, first.post["text"]) == (
        harness_slack.channel,
        mention.ts,
        first.text,
    )

    reply = await harness_slack.reply('call echo {"text": "again"}', thread=mention.thread)
    answer = await harness_slack.answer(reply)
    assert (answer.text, answer.thread) == ("Tool results:\n- echo: again", mention.ts)


async def test_a_slash_command_changes_the_task_and_task_status_shows_it(harness_slack):
    await harness_slack.answer(await harness_slack.mention("start"))

    effort = await harness_slack.slash("/effort high")
    assert (effort.status, effort.text, effort.public) == (
        200,
        "effort set to `high` (was `medium`)",
        True,
    )
    assert effort.ack == "working on `/effort high` …"  # the answer came late (conftest.py)
    deleted, posted = await harness_slack.responses(effort.key)
    assert deleted["delete_original"] is True
    assert (posted["text"], posted["response_type"]) == (effort.text, "in_channel")
    status = await harness_slack.status()
    assert "effort: `high`" in status and "people: <@U0KIT> (owner)" in status


async def test_a_click_answers_the_tasks_question_and_only_its_people_may(harness_slack):
    mention = await harness_slack.mention(ASK)
    question = await harness_slack.answer(mention)
    assert (question.text, question.buttons) == ("which environment?", ("staging", "prod"))

    stranger = await harness_slack.click(2, user="U0STRANGER")
    assert (stranger.status, stranger.value) == (200, "prod")
    refusal = await harness_slack.wait_for_post(
        lambda p: p.get("user") == "U0STRANGER" and p.get("method") == "chat.postEphemeral"
    )
    assert refusal["text"].startswith("refused: ")

    clicked = await harness_slack.click(1)
    assert (clicked.status, clicked.value, clicked.question.ts) == (200, "staging", question.ts)
    answered = await harness_slack.wait_for_post(
        lambda p: p.get("text", "").startswith("Tool results")
    )
    assert answered["text"] == "Tool results:\n- ask_human: <@U0KIT> answered: staging"
    closed = await harness_slack.wait_for_post(lambda p: p.get("ts") == question.ts)
    assert closed["text"] == "which environment? (answered by <@U0KIT>: staging)"


async def test_the_stop_button_stops_the_turn_waiting_for_an_answer(harness_slack):
    await harness_slack.answer(await harness_slack.mention(ASK))
    stopped = await harness_slack.click_stop()
    assert (stopped.status, stopped.value) == (200, f"task/T0KIT/{harness_slack.channel}")
    summary = await harness_slack.wait_for_post(lambda p: p["text"].startswith("stopped by"))
    assert summary["text"].startswith("stopped by <@U0KIT> after ")


async def test_a_click_with_no_question_there_says_so(harness_slack):
    with pytest.raises(LookupError, match=f"no question with buttons in {harness_slack.channel}"):
        await harness_slack.click(1)


async def test_the_hooks_files_policy_refuses_the_tool_call(harness_slack, harness_stack):
    mention = await harness_slack.mention('call echo {"text": "the launch code is 0000"}')
    answer = (await harness_slack.answer(mention)).text
    assert answer.startswith("Tool results:\n- echo: refused: ")
    assert "launch codes are not repeated here" in answer
    assert "no-launch-codes" in harness_stack.logs("worker")


async def test_a_hand_written_payload_is_signed_and_a_forged_one_refused(harness_slack):
    challenge = json.dumps({"token": "x", "challenge": "kit-challenge", "type": "url_verification"})
    sent = await harness_slack.send(challenge, "application/json")
    assert (sent.status, json.loads(sent.text)) == (200, {"challenge": "kit-challenge"})

    forged = await harness_slack.send(
        challenge, "application/json", headers={"X-Slack-Signature": "v0=" + "0" * 64}
    )
    assert forged.status == 401


async def test_another_person_of_the_test_joins_its_task_unless_given_a_channel(
    harness_stack, harness_slack
):
    started = await harness_slack.mention("start")
    await harness_slack.answer(started)
    other = SlackClient.of(harness_stack, user="U0OTHER")
    assert other.channel == harness_slack.channel == harness_slack.as_user("U0THIRD").channel
    await other.reply("me too", thread=started.thread)
    refused = await other.wait_for_post(  # the same task: its guard knows U0OTHER has no role
        lambda p: p.get("user") == "U0OTHER" and p.get("method") == "chat.postEphemeral"
    )
    assert refused["text"].startswith("refused: you are not part of this task")
    assert (await other.status()).startswith("refused: you are not part of this task")

    apart = SlackClient.of(harness_stack, user="U0OTHER", channel=new_channel())
    assert (await apart.slash("/task status")).text.startswith("there is no task")
    await apart.answer(await apart.mention("start"))
    assert "people: <@U0OTHER> (owner)" in await apart.status()


async def test_a_wait_that_times_out_names_what_it_awaited_and_hides_the_kits_frames(
    harness_slack,
):
    stray = await harness_slack.reply("anyone there?", thread="1700000000.000100")  # no task's
    with pytest.raises(TimeoutError) as raised:
        await harness_slack.answer(stray, timeout=1)
    message = str(raised.value)
    assert "\n" not in message
    assert re.fullmatch(
        rf"waited 1 s for an answer to 'anyone there\?' in thread 1700000000\.000100 in "
        rf"{harness_slack.channel}; the last posts there: .*",
        message,
    ), message
    shown = str(raised.getrepr())  # what pytest prints for a failing test
    assert "bot/testing/slack.py" not in shown and "__tracebackhide__" not in shown, shown
    assert "await harness_slack.answer(stray, timeout=1)" in shown  # the test's own line
