"""The corpus programs are test data run by tests/test_paddle_corpus.py, not test modules."""
collect_ignore_glob = ["p[0-9]*.py", "record.py"]
