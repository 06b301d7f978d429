"""Real stand-ins for vendor services, run on loopback by the tests."""
