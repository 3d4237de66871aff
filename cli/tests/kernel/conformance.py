"""Jupyter's own conformance suite, jupyter_kernel_test (pinned in
requirements.txt), against the puzzlebook kernel.

usage: conformance.py KERNEL_NAME OUT_JSON

Subclasses jupyter_kernel_test.KernelTests as IRkernel's and xeus-python's
tests do: the class gives Rust code for each message the suite checks, and
the suite checks every reply and output message against the v5 message
schema. Writes one JSON object to OUT_JSON: "tests", each test (and each
subtest that failed) with its outcome ("passed", "skipped: why", "failed:
traceback", "error: traceback"), and "ran", how many ran. The Rust test
(cli/tests/testsuite/jupyter_kernel.rs) decides what passes.
"""

import json
import sys
import time
import unittest

import jupyter_kernel_test as jkt

KERNEL = "puzzlebook"


class PuzzlebookKernelTests(jkt.KernelTests):
    kernel_name = KERNEL

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # The kernel answers at once and loads its crate in the background;
        # the first cell waits for the load (seconds in a warm build folder).
        # The suite gives each reply 15 s, so wait for the load here, once.
        msg_id = cls.kc.execute("()")
        deadline = time.monotonic() + 1800
        while True:
            reply = cls.kc.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        if reply["content"]["status"] != "ok":
            raise RuntimeError("the first cell failed: %r" % (reply["content"],))

    language_name = "Rust"
    file_extension = ".rs"

    code_hello_world = 'println!("hello, world");'
    code_stderr = 'eprintln!("a line on standard error");'

    # The crate's own names complete.
    completion_samples = [{"text": "puzzlebook::tw", "matches": {"twenty_four::"}}]

    complete_code_samples = [
        "6 * 7",
        "fn f() {}",
        'let s = "{ (";',
        "let c = '{';",
        "// (\nlet x = 1;",
    ]
    incomplete_code_samples = [
        "fn f() {",
        "let v = vec![1,\n2",
        'let s = "abc',
        "/* a comment",
    ]
    invalid_code_samples = ["}", "let x = (1];"]

    # A compile error: one error message, nothing else.
    code_generate_error = 'let n: u32 = "seven";'

    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": 'format!("{}-{}", 1, 2)', "result": '"1-2"'},
        # A table's HTML, as a cell ending in one shows it.
        {
            "code": 'puzzlebook::table::Table::new(["n"]).with_row([1])',
            "mime": "text/html",
        },
    ]
    # What a cell shows as it runs: a table, as Jupyter's display_data, with
    # its HTML and its plain text; then clearing what the cell showed.
    code_display_data = [
        {
            "code": 'puzzlebook::rich::display(&puzzlebook::table::Table::new(["n"]).with_row([1]));',
            "mime": "text/html",
        },
        {
            "code": 'puzzlebook::rich::display(&puzzlebook::table::Table::new(["n"]).with_row([2]));',
            "mime": "text/plain",
        },
    ]
    code_clear_output = 'println!("soon gone"); puzzlebook::rich::clear_output(false);'

    code_history_pattern = "6 *"
    supported_history_operations = ("tail", "range", "search")

    code_inspect_sample = "std::vec::Vec"


class Outcomes(unittest.TestResult):
    """Every test's outcome, and every failing subtest's, by name."""

    def __init__(self):
        super().__init__()
        self.outcomes = {}

    def name(self, test):
        # A subtest (skipped ones come to addSkip) is named by its test.
        test = getattr(test, "test_case", test)
        return test.id().rsplit(".", 1)[-1]

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes.setdefault(self.name(test), "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes[self.name(test)] = "failed: " + self._exc_info_to_string(err, test)

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes[self.name(test)] = "error: " + self._exc_info_to_string(err, test)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes[self.name(test)] = "skipped: " + reason

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is None:
            return
        kind = "failed" if issubclass(err[0], test.failureException) else "error"
        self.outcomes["%s %s" % (self.name(test), subtest._subDescription())] = (
            "%s: %s" % (kind, self._exc_info_to_string(err, test))
        )
        self.outcomes[self.name(test)] = kind + ": a subtest"


def main(argv):
    global KERNEL
    KERNEL = argv[1]
    PuzzlebookKernelTests.kernel_name = KERNEL
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(PuzzlebookKernelTests)
    result = Outcomes()
    suite.run(result)
    with open(argv[2], "w") as f:
        json.dump({"tests": result.outcomes, "ran": result.testsRun}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv)
