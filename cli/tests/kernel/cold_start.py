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
cell printed. The Rust test (cli/tests/jupyter_kernel.rs)
decides what passes.
"""

import json
import queue
import sys
import time

from jupyter_client.manager import start_new_kernel


def run_cell(kc, code, timeout, on_first_output=None):
    """Runs `code`; returns (reply content, stream text, result text)."""
    msg_id = kc.execute(code)
    streams, result, notified = "", None, False
    deadline = time.monotonic() + timeout
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            raise SystemExit("no idle status for %r within %s s" % (code, timeout))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            streams += content["text"]
            if on_first_output and not notified:
                notified = True
                on_first_output()
        elif kind == "execute_result":
            result = content["data"].get("text/plain")
        elif kind == "status" and content["execution_state"] == "idle":
            break
    while True:
        reply = kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"], streams, result


def main(argv):
    kernel, out_path = argv[1], argv[2]
    out = {}
    started = time.monotonic()
    km, kc = start_new_kernel(kernel_name=kernel, startup_timeout=60)
    out["ready_seconds"] = time.monotonic() - started
    try:
        t = time.monotonic()
        reply, streams, _ = run_cell(kc, "1 + 1", 120, on_first_output=km.interrupt_kernel)
        out["interrupted"] = {"seconds": time.monotonic() - t, "status": reply["status"],
                              "ename": reply.get("ename"), "streams": streams}
        t = time.monotonic()
        reply, streams, result = run_cell(kc, "40 + 2", 1800)
        out["after"] = {"seconds": time.monotonic() - t, "status": reply["status"],
                        "result": result, "streams": streams}
        if len(argv) > 3:
            t = time.monotonic()
            reply, streams, result = run_cell(kc, argv[3], 1800)
            out["more"] = {"seconds": time.monotonic() - t, "status": reply["status"],
                           "result": result, "streams": streams}
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv)
