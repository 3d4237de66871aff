"""Runs notebooks through a Jupyter kernel with nbclient, as Jupyter would.

usage: execute_notebooks.py [--allow-errors] [--streams-in-order] KERNEL_NAME OUT_DIR NOTEBOOK...

Validates each notebook with nbformat's validator, executes it with the
kernel KERNEL_NAME (found through JUPYTER_PATH like any kernelspec), with the
notebook's folder as the working directory and each cell's stream messages
joined into one output per stream (nbclient's coalesce_streams, which joins a
stream's text even across the displays between it, as the runner's notebook
keeps standard output apart from standard error), validates the result and
writes it to OUT_DIR under the same file name. With --streams-in-order, each
stream message is an output of its own, in the order the kernel sent them
(the caller joins neighbours, as JupyterLab shows them). Exits 1 naming the notebook and cell when
a notebook is invalid or a cell fails (unless --allow-errors, which records a
failing cell's error and goes on, as Jupyter's "run all" can).

The kernel gets nbclient's default start-up timeout (60 s), as
`jupyter nbconvert --execute` gives it: the puzzlebook kernel answers at once
and loads its crate in the background, even in a cold build folder.
"""

import os
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main(argv):
    allow_errors = "--allow-errors" in argv
    in_order = "--streams-in-order" in argv
    argv = [a for a in argv if a not in ("--allow-errors", "--streams-in-order")]
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    kernel, out_dir, paths = argv[1], argv[2], argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        try:
            nbformat.validate(nb)
        except nbformat.ValidationError as e:
            print(f"{path}: not a valid notebook: {e}", file=sys.stderr)
            return 1
        client = NotebookClient(
            nb,
            kernel_name=kernel,
            # A cell may wait for a cold build of z3 and polars.
            timeout=1800,
            allow_errors=allow_errors,
            # A kernel sends a cell's output in many stream messages; Jupyter
            # shows them as one. This joins them into one output per stream.
            coalesce_streams=not in_order,
            resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}},
        )
        try:
            client.execute()
        except CellExecutionError as e:
            print(f"{path}: a cell failed:\n{e}", file=sys.stderr)
            return 1
        nbformat.validate(nb)
        out = os.path.join(out_dir, os.path.basename(path))
        nbformat.write(nb, out)
        print(f"executed {path} -> {out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
