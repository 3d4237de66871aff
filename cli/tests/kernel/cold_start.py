"""Starts a kernel as Jupyter does and records what its first minutes look like.

usage: cold_start.py KERNEL_NAME OUT_JSON [MORE_CODE]

With jupyter_client (the library under Jupyter, nbclient and nbconvert):
1. starts the kernel and waits for it to answer kernel_info, with the 60-second
   limit nbclient and `jupyter nbconvert --execute` use by default;
2. runs a cell, waits for the kernel's first word on it, interrupts the kernel
   and waits for the cell's reply;
3. runs `40 + 2` and waits, up to 30 minutes, for its result;
4. with MORE_CODE, runs it and waits, up to 30 minutes, for its result.
Writes one JSON object to OUT_JSON (the kernel shares this script's standard
output): the seconds each step took, the replies, and the stream text each
cell printed. The Rust test (cli/tests/testsuite/jupyter_kernel.rs)
decides what passes.
"""

import json
import sys
import time

from jupyter_client.manager import start_new_kernel

from run_cells import run_cell


def main(argv):
    kernel, out_path = argv[1], argv[2]
    out = {}
    started = time.monotonic()
    km, kc = start_new_kernel(kernel_name=kernel, startup_timeout=60)
    out["ready_seconds"] = time.monotonic() - started
    try:
        t = time.monotonic()
        r = run_cell(kc, "1 + 1", 120, on_first_output=km.interrupt_kernel)
        out["interrupted"] = {"seconds": time.monotonic() - t, "status": r["status"],
                              "ename": r["ename"], "streams": r["streams"]}
        t = time.monotonic()
        r = run_cell(kc, "40 + 2", 1800)
        out["after"] = {"seconds": time.monotonic() - t, "status": r["status"],
                        "result": r["result"], "streams": r["streams"]}
        if len(argv) > 3:
            t = time.monotonic()
            r = run_cell(kc, argv[3], 1800)
            out["more"] = {"seconds": time.monotonic() - t, "status": r["status"],
                           "result": r["result"], "streams": r["streams"]}
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv)
