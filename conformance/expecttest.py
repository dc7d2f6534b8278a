"""Stand-in for the `expecttest` package, which PyTorch's test utilities import but Debian does
not package. torch.testing._internal.common_utils only subclasses expecttest.TestCase; the
conformance exporter never runs a test case, so unittest's TestCase is enough."""
import unittest

ACCEPT = False


class TestCase(unittest.TestCase):
    def assertExpectedInline(self, actual, expect, skip=0):  # pragma: no cover - never called
        self.assertEqual(actual, expect)
