//! Helpers shared by the command's integration tests.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

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
