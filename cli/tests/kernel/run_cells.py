"""Starts a kernel as Jupyter does, runs cells one by one, and records each.

usage: run_cells.py [--poke] KERNEL_NAME OUT_JSON CELL...

With jupyter_client: starts the kernel (nbclient's 60-second start-up limit),
then, with --poke, first sends the kernel's shell and control sockets frames
that are not a signed Jupyter message (one that ends at the <IDS|MSG>
delimiter, a bad signature, a signed header that is a JSON array, random
bytes) and asks for kernel_info, which must still be answered. Then runs each
CELL in turn (one whose first line is `// interrupt` is interrupted, as
Jupyter's stop button does, when its first output arrives), up to 30 minutes each, going on after a failing one, and writes
one JSON object to OUT_JSON: "cells", a list with each cell's reply status,
ename and evalue (its error message's, else its reply's), the reply's own
ename and evalue, the text its streams printed, its text/plain result and the seconds
it took; and with --poke, "poked": the kernel_info reply's status.
The Rust test (cli/tests/testsuite/jupyter_kernel.rs) decides what passes.
"""

import hashlib
import hmac
import json
import queue
import sys
import time

import zmq
from jupyter_client.manager import start_new_kernel


# A cell that starts with this line is interrupted when its first output arrives.
INTERRUPT_MARK = "// interrupt\n"


def run_cell(kc, code, timeout, on_first_output=None):
    """Runs `code`; returns its reply's status, ename and evalue, the text its
    streams printed and its text/plain result. `on_first_output` is called
    when the cell's first stream message arrives."""
    msg_id = kc.execute(code)
    streams, result, error, notified = "", None, None, False
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
        elif kind == "error":
            error = content
        elif kind == "status" and content["execution_state"] == "idle":
            break
    while True:
        reply = kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            c = reply["content"]
            return {"status": c["status"], "ename": (error or c).get("ename"),
                    "evalue": (error or c).get("evalue"), "streams": streams,
                    "result": result, "reply_ename": c.get("ename"),
                    "reply_evalue": c.get("evalue")}


def poke(km):
    """Sends frames that are no signed message to the shell and control ports."""
    info = km.get_connection_info()
    key = info["key"]
    key = key.encode() if isinstance(key, str) else key

    def sign(parts):
        return hmac.new(key, b"".join(parts), hashlib.sha256).hexdigest().encode()

    array_header = [b"[]", b"{}", b"{}", b"{}"]
    frames = [
        [b"<IDS|MSG>"],
        [b"id", b"<IDS|MSG>"],
        [b"<IDS|MSG>", b"00", b"{}", b"{}", b"{}", b"{}"],
        [b"<IDS|MSG>", b"zz-not-hex", b"{}", b"{}", b"{}", b"{}"],
        [b"<IDS|MSG>", sign(array_header)] + array_header,
        [b"\xff\xfe\x00", b"<IDS|MSG", b"{"],
    ]
    ctx = zmq.Context.instance()
    for port in (info["shell_port"], info["control_port"]):
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 1000)
        sock.connect("%s://%s:%d" % (info["transport"], info["ip"], port))
        for f in frames:
            sock.send_multipart(f)
        time.sleep(0.5)
        sock.close()


def main(argv):
    do_poke = "--poke" in argv
    argv = [a for a in argv if a != "--poke"]
    kernel, out_path, cells = argv[1], argv[2], argv[3:]
    out = {"cells": []}
    km, kc = start_new_kernel(kernel_name=kernel, startup_timeout=60)
    try:
        if do_poke:
            poke(km)
            msg_id = kc.kernel_info()
            out["poked"] = "no reply"
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    reply = kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if reply["parent_header"].get("msg_id") == msg_id:
                    out["poked"] = reply["content"]["status"]
                    break
            out["alive_after_poke"] = km.is_alive()
        for code in cells:
            t = time.monotonic()
            interrupt = km.interrupt_kernel if code.startswith(INTERRUPT_MARK) else None
            r = run_cell(kc, code, 1800, on_first_output=interrupt)
            r["seconds"] = time.monotonic() - t
            out["cells"].append(r)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv)
