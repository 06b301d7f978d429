"""The Slack front end: a slack-bolt ``AsyncApp`` that turns Slack requests into harness calls.

It stays thin (STYLE.md rule 11): pure payload translation in :mod:`bot.payloads`,
listeners that ack at once in :mod:`bot.slash` and :mod:`bot.events`, one-job
middleware in :mod:`bot.middleware`. Everything durable happens in the worker,
reached only through the harness client (:mod:`bot.gateway`).
"""
