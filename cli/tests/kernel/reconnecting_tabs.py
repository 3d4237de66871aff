"""Browser tabs that keep reconnecting, as jupyter_server reconnects them.

usage: reconnecting_tabs.py KERNEL_NAME TABS SECONDS REPORT

Starts the kernel with jupyter_client and waits until it answers. Then, for
SECONDS, each of TABS threads acts as one tab's connection in jupyter_server:
it opens the four channels under the tab's session as the ZeroMQ identity
(`ZMQChannelsWebsocketConnection.create_stream`), nudges with
kernel_info_request on shell and control a few times, reads what has come,
and closes, as `_register_session` closes a stale connection before its
replacement opens; often before the replies come. Then a new client asks
kernel_info on each channel. Writes to REPORT a JSON object: "shell" and
"control", whether each answered within 30 seconds, "alive", whether the
kernel process still runs, and "requests", how many the tabs sent.
"""

import json
import random
import sys
import threading
import time
import uuid

import zmq
from jupyter_client.manager import KernelManager
from jupyter_client.session import Session


def tab(km, seed, until, counts):
    rnd = random.Random(seed)
    session = Session(key=km.session.key, session=str(uuid.uuid4()))
    while time.monotonic() < until:
        channels = {
            "shell": km.connect_shell(identity=session.bsession),
            "control": km.connect_control(identity=session.bsession),
            "stdin": km.connect_stdin(identity=session.bsession),
            "iopub": km.connect_iopub(),
        }
        for _ in range(rnd.randint(1, 5)):
            for name in ("shell", "control"):
                session.send(channels[name], "kernel_info_request", {})
                counts[seed] += 1
            if rnd.random() < 0.5:
                time.sleep(rnd.random() * 0.3)
            for s in channels.values():
                while s.poll(0):
                    s.recv_multipart()
        for s in channels.values():
            s.close(linger=0)


def answers(kc, channel):
    msg = kc.session.msg("kernel_info_request")
    getattr(kc, channel + "_channel").send(msg)
    try:
        while True:
            reply = getattr(kc, f"get_{channel}_msg")(timeout=30)
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                return reply["content"]["status"] == "ok"
    except Exception:
        return False


def main(argv):
    name, tabs, seconds, report = argv[1], int(argv[2]), float(argv[3]), argv[4]
    km = KernelManager(kernel_name=name)
    km.start_kernel()
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        kc.stop_channels()
        until = time.monotonic() + seconds
        counts = [0] * tabs
        threads = [threading.Thread(target=tab, args=(km, i, until, counts)) for i in range(tabs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        kc = km.client()
        kc.start_channels()
        result = {channel: answers(kc, channel) for channel in ("shell", "control")}
        kc.stop_channels()
        result["alive"] = km.is_alive()
        result["requests"] = sum(counts)
        with open(report, "w") as f:
            json.dump(result, f)
    finally:
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    main(sys.argv)
