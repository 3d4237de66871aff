//! Helpers shared by the command's integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The checkout: the library's folder, which holds `notebooks/` and `reports/`.
pub fn root_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .canonicalize()
        .expect("the checkout exists")
}

/// The command's package folder (`cli/`), which holds these tests' fixtures.
pub fn cli_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `puzzlebook` binary with `args`, and without `CI` (which would turn
/// `report` into a check).
pub fn puzzlebook(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_puzzlebook"));
    c.args(args).env_remove("CI");
    c
}

/// Bytes a process printed, as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A process's standard output, after asserting that it succeeded (else its
/// output and errors, under `what`).
pub fn ok(o: Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what} failed ({}):\n{}\n{}",
        o.status,
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

/// The Python the Jupyter and browser tests drive their tools from (nbclient,
/// websocket-client, Pillow): cli/tests/kernel/setup-venv makes it once.
pub fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = Command::new(cli_dir().join("tests/kernel/setup-venv"))
            .output()
            .expect("cli/tests/kernel/setup-venv runs");
        let stdout = ok(
            out,
            "cli/tests/kernel/setup-venv (python3 -m venv, pip install)",
        );
        PathBuf::from(stdout.trim())
    })
}

/// `c` with the environment a user's shell gives, as Jupyter starts a kernel
/// from it: without what `cargo test` adds for its test binaries. Above all
/// `LD_LIBRARY_PATH`, which names the workspace's `target/debug/deps` and
/// the toolchain's libraries, and once hid a kernel that could not load
/// notebook 04's cells in a new build folder; and cargo's `CARGO_*` package
/// variables. `CARGO_HOME` and `CARGO_TARGET_DIR`, which a user's shell may
/// set, stay.
pub fn as_from_a_shell(c: &mut Command) -> &mut Command {
    c.env_remove("LD_LIBRARY_PATH");
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else { continue };
        let cargos = name == "CARGO"
            || (name.starts_with("CARGO_") && name != "CARGO_HOME" && name != "CARGO_TARGET_DIR")
            || name.starts_with("__CARGO");
        if cargos {
            c.env_remove(name);
        }
    }
    c
}
