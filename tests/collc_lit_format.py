"""The lit test format of the collc suite (a module of its own so that lit
can pickle it for its worker processes)."""
import lit.formats


class CollcTest(lit.formats.ShTest):
    """ShTest, except that .c, .sh and .coll files without a RUN: line are
    not tests: they are sources of ctest unit tests, helper scripts, or
    inputs of other projects (tests/consumer) that live next to the lit
    tests of their phase. A .test file is always a test."""

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig, localConfig):
        for test in super().getTestsInDirectory(testSuite, path_in_suite, litConfig,
                                                localConfig):
            path = test.getSourcePath()
            if path.endswith((".c", ".sh", ".coll")):
                try:
                    with open(path, "rb") as f:
                        if b"RUN:" not in f.read():
                            continue
                except OSError:
                    pass
            yield test
