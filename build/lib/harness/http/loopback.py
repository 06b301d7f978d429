"""Whether a host is this machine only: the test behind every "loopback only" rule.

Development secrets, the Slack stand-in and a token-less codec server are safe only
where nobody else can reach them (issue 9); each of those rules asks this one function.
"""

from __future__ import annotations

import ipaddress


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (``localhost``, 127/8, ``::1``).

    A host name other than ``localhost`` is not: it may resolve to anything.
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
