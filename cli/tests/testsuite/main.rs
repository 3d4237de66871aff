//! The command's integration tests, in one binary, as cargo's
//! `tests/testsuite/main.rs` and ripgrep's `tests/tests.rs` keep theirs: each
//! linked the whole command (evcxr, syntect, z3) on its own before. One module
//! per subject; the fixtures, scripts and write-up data sit in folders beside
//! (`cli/tests/fixtures/`, `cli/tests/kernel/`, `cli/tests/browser/`,
//! `cli/tests/jupyterlab/`, `cli/tests/emacs/`, `tests/writeups/`).

mod book_in_browser;
mod cli;
mod common;
mod exercises;
mod fingerprint;
mod grading;
mod jupyter_kernel;
mod jupyterlab;
mod narrative;
mod notebooks;
mod org_in_emacs;
mod reader_fuzz;
mod writeups;
