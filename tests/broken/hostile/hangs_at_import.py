"""Hostile at import: never finishes importing (start-up must give up, one line, exit status 2)."""

import time

while True:
    time.sleep(60)
