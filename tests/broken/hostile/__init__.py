"""Hostile implementations: each attacks the harness itself (its processes, protocol, bounds,
signals or metadata) the way third-party code can, by accident or on purpose.

``attacks.py`` holds their small catalog (registry ``ATTACKS``), one case per attack made while a
case runs; ``in_case.py`` makes the attack named after the running case; the other modules attack
when they are imported (``at_import.py`` several ways at once, the others one way each).
``tests/test_isolation.py`` runs them through the command line and asserts each outcome.
"""
