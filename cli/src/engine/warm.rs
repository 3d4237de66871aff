//! A build folder's note of its last warm-up: the key of what a grade's
//! trusted `:dep` cells last built there, so that a later grade with the same
//! key need not start an engine only to find everything built.
//!
//! `grade` runs the teacher's `:dep` cells outside any sandbox before the
//! submissions, so that what they build lands in the folder every sandbox's
//! view starts from. When nothing they build can have changed, that engine
//! (rust-analyzer loading the crates, the `:dep`'s cargo run) is about 8 s
//! for nothing. The key covers what decides the build: the cells' evcxr
//! commands, the named crates' sources, the toolchain, the environment that
//! reaches cargo, and this program's engine settings. Any engine that starts
//! in the folder outside a sandbox forgets the note first
//! ([`crate::runner::execute::start`] calls [`forget`]), since it may build
//! there anything else; an engine in a sandbox forgets it only in its view.

use std::path::Path;

use sha1::{Digest, Sha1};

/// The note's file, in the build folder.
const FILE: &str = "puzzlebook-warm";

/// The key of a warm-up whose own inputs are `parts` (the `:dep` cells' evcxr
/// commands, the named crates' fingerprints, the runner's capture format),
/// joined with what every warm-up depends on: the `rustc` and `cargo` evcxr
/// will run (their `-vV`), every `RUST…` and `CARGO…` variable of the
/// environment but those an engine sets itself, this program's version and
/// the engine's settings. None when the toolchain does not answer.
pub fn key(parts: &[String]) -> Option<String> {
    let mut h = Sha1::new();
    h.update(b"puzzlebook-warm-v1\n");
    let mut add = |what: &str, text: &str| {
        h.update(format!("{what} {}\n", text.len()).as_bytes());
        h.update(text.as_bytes());
        h.update(b"\n");
    };
    for part in parts {
        add("part", part);
    }
    add("version", env!("CARGO_PKG_VERSION"));
    add("config", &super::config_toml());
    add("init", &super::init_commands());
    add("metadata", super::LIB_METADATA);
    for (var, program) in [("RUSTC", "rustc"), ("CARGO", "cargo")] {
        let program = std::env::var_os(var).unwrap_or_else(|| program.into());
        let out = std::process::Command::new(&program)
            .arg("-vV")
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        add("tool", &String::from_utf8_lossy(&out.stdout));
    }
    let mut vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
        .filter(|(k, _)| k.starts_with("RUST") || k.starts_with("CARGO"))
        .filter(|(k, _)| !super::ENGINE_VARS.contains(&k.as_str()))
        .collect();
    vars.sort();
    for (k, v) in vars {
        add("env", &format!("{k}={v}"));
    }
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The key the folder's last warm-up recorded, if one did since an engine
/// last started there.
pub fn recorded(build_dir: &Path) -> Option<String> {
    std::fs::read_to_string(build_dir.join(FILE))
        .ok()
        .map(|s| s.trim().to_string())
}

/// Records that a warm-up with `key` built what it needs in `build_dir`.
pub fn record(build_dir: &Path, key: &str) -> std::io::Result<()> {
    std::fs::write(build_dir.join(FILE), format!("{key}\n"))
}

/// Forgets the folder's warm-up: an engine is about to build there.
pub fn forget(build_dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(build_dir.join(FILE)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_key_is_read_back_until_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(recorded(dir.path()), None);
        record(dir.path(), "abc").unwrap();
        assert_eq!(recorded(dir.path()).as_deref(), Some("abc"));
        forget(dir.path()).unwrap();
        assert_eq!(recorded(dir.path()), None);
        // Forgetting twice is no error.
        forget(dir.path()).unwrap();
    }

    #[test]
    fn the_key_changes_with_each_part() {
        let one = key(&["a".into(), "b".into()]).unwrap();
        assert_eq!(key(&["a".into(), "b".into()]).unwrap(), one);
        assert_ne!(key(&["a".into(), "c".into()]).unwrap(), one);
        // Parts are told apart by their lengths, not run together.
        assert_ne!(
            key(&["ab".into()]).unwrap(),
            key(&["a".into(), "b".into()]).unwrap()
        );
        assert_eq!(one.len(), 40);
    }
}
