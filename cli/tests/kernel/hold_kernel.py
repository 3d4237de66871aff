"""Starts a kernel as Jupyter does and holds it open, as a notebook tab would.

usage: hold_kernel.py KERNEL_NAME

Starts the kernel with jupyter_client (which sets JPY_PARENT_PID to this
process), runs `1 + 1` so it is loaded, then prints one line of JSON with the
kernel's process id and its reply, and waits until its standard input closes;
then shuts the kernel down. A test can kill this process instead, as a user's
crashed or killed Jupyter would end, and see what the kernel does.
"""

import json
import sys

from jupyter_client.manager import start_new_kernel


def main(argv):
    km, kc = start_new_kernel(kernel_name=argv[1], startup_timeout=60)
    reply = kc.execute_interactive("1 + 1", timeout=1800, output_hook=lambda msg: None)
    print(json.dumps({"pid": km.provisioner.process.pid,
                      "status": reply["content"]["status"]}), flush=True)
    sys.stdin.read()
    kc.stop_channels()
    km.shutdown_kernel(now=True)


if __name__ == "__main__":
    main(sys.argv)
