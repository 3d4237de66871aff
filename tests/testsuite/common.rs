//! Helpers shared by the integration tests: byte-for-byte golden comparison.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The crate's folder.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The folder of golden files.
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares `actual` with the golden file at `tests/golden/<rel>` byte for byte,
/// failing with a unified diff. With `PUZZLEBOOK_BLESS=1` it writes the file
/// instead (review the change before committing it).
pub fn assert_golden(rel: &str, actual: &str) {
    let path = golden_dir().join(rel);
    if std::env::var_os("PUZZLEBOOK_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    assert_file_is(&path, rel, "its golden file", actual);
}

/// Fails with a unified diff unless the file at `path` (shown as `rel`, and
/// named `what` in the message) holds exactly `actual`.
fn assert_file_is(path: &Path, rel: &str, what: &str, actual: &str) {
    let expected = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    if expected != actual {
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
            .unified_diff()
            .header(&format!("{rel} ({what})"), &format!("{rel} (ours)"))
            .to_string();
        panic!("{rel} differs from {what}:\n{diff}");
    }
}

/// The folder of results the write-ups print (`tests/writeups/`), taken from
/// the four published write-ups. Unlike golden files they are never rewritten.
pub fn writeups_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/writeups")
}

/// Compares `actual` with the write-up's result `tests/writeups/<rel>` byte for
/// byte, failing with a unified diff. `PUZZLEBOOK_BLESS` does not apply.
pub fn assert_writeup(rel: &str, actual: &str) {
    assert_file_is(&writeups_dir().join(rel), rel, "the write-up", actual);
}
