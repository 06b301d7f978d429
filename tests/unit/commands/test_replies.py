"""The one reply rule (harness.replies) names commands as the registry spells them."""

from __future__ import annotations

from commands import COMMANDS, invocation_of
from harness import replies
from harness.replies import umbrella


def test_the_harness_spellings_agree_with_the_registry():
    assert replies.HELP == COMMANDS["help"].invocation
    assert umbrella.INVITE == COMMANDS["invite"].invocation
    assert umbrella.invocation("status") == COMMANDS["status"].invocation  # the client's hint
    for name, spec in COMMANDS.items():
        assert invocation_of(name) == replies.spelled(name, spec.invocation) == spec.invocation
        if not spec.top_level:  # without the context's spelling, the umbrella form is shown
            assert replies.spelled(name) == spec.invocation
    assert invocation_of("/Model") == "/model" and invocation_of("teleport") == ""


def test_the_echoed_parts_ping_nobody():
    said = replies.failed("/model", "<!channel> is down")
    assert said == "/model failed: &lt;!channel&gt; is down"
    said = replies.unknown("/task tele<@U1>")
    assert said == "`/task tele&lt;@U1&gt;` is not a command here; `/task help` lists them"
    assert replies.refused("ask <@U1>") == "refused: ask <@U1>"  # written for the sender
