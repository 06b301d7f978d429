"""Talking to the bot as Slack would, from outside it: developer tooling, not the running bot.

``python -m bot.say`` (:mod:`bot.say.__main__`) is the command; :mod:`bot.say.as_slack`
builds and signs the requests Slack sends, :mod:`bot.say.clicks` the clicks on what the bot
posted. The testing kit (:mod:`bot.testing`), the replay and the benches build their
requests here too. The runtime bot imports none of it (an import-linter contract).
"""
