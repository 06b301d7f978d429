"""The stand-in applies response-URL posts as Slack does: replace, delete, or add."""

from __future__ import annotations

from bot.standin import ResponseView


def test_replacing_twice_keeps_one_replacement_and_new_posts_follow_it():
    view = ResponseView()
    view.apply({"text": "first", "response_type": "ephemeral", "replace_original": True})
    view.apply({"text": "second", "response_type": "ephemeral", "replace_original": "true"})
    view.apply({"text": "also", "response_type": "in_channel", "replace_original": False})
    assert view.as_json() == {
        "original": "replaced",
        "messages": [
            {"text": "second", "response_type": "ephemeral"},
            {"text": "also", "response_type": "in_channel"},
        ],
    }


def test_deleting_the_original_leaves_only_what_was_posted():
    view = ResponseView()
    view.apply({"text": "", "delete_original": True})
    view.apply({"text": "done", "response_type": "in_channel"})
    assert view.as_json() == {
        "original": "deleted",
        "messages": [{"text": "done", "response_type": "in_channel"}],
    }
