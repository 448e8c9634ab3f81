"""Tiny fake engines, each differing from torch in exactly one way, that pin the rules of the
verdict: what is ``unsupported`` (and how its name is spelled), what is a ``fail``, and at which
levels each kind of difference counts. ``cases.py`` holds the small cases they run;
``tests/test_verdicts.py`` states each rule with its fake.

Each fake is torch with one change. Changes to torch's classes are made only in the forked child
that runs a case (``tests.broken._fault.exports``), so importing a fake changes nothing here.
"""
