# test/docs/: the shape of the documents an administrator reads first (the
# README as a map of at most 200 lines, doc/performance.md in three parts,
# links that resolve, one dump_dir in every example).
TESTS += test/docs/docs_test.py
EXTRA_DIST += test/docs/docs_test.py
