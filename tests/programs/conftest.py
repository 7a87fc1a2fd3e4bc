"""The programs here are scripts run in subprocesses by test_programs.py, not modules to import:
``--doctest-modules`` must not collect them."""

collect_ignore_glob = ["[!t]*.py", "t[!e]*.py"]
