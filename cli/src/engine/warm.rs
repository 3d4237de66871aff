//! A build folder's note of its last warm-up: the key of what a grade's
//! trusted `:dep` cells last built there, and a record of the build as they
//! left it, so that a later grade with the same key and the same build need
//! not start an engine only to find everything built.
//!
//! `grade` runs the teacher's `:dep` cells outside any sandbox before the
//! submissions, so that what they build lands in the folder every sandbox's
//! view starts from. When nothing they build can have changed, that engine
//! (rust-analyzer loading the crates, the `:dep`'s cargo run) is about 8 s
//! for nothing. The key covers what decides the build: the cells' evcxr
//! commands and the named crates' sources (from the caller), the toolchain
//! as the engine will find it, the `RUST…` and `CARGO…` environment, cargo's
//! config files, what the folder's build scripts said they read (files and
//! variables), and this program's engine settings. The record is the
//! folder's cargo fingerprints (how many, the newest time) but the cells'
//! own: any dependency built there since, by this program or another,
//! changes it, while a `report` or `run` of notebooks that build nothing
//! new, whose cells compile there, leaves the note standing.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use sha1::{Digest, Sha1};

/// The note's file, in the build folder.
const FILE: &str = "puzzlebook-warm";

/// Where the note of `build_dir` is kept.
pub fn note_path(build_dir: &Path) -> PathBuf {
    build_dir.join(FILE)
}

/// Variables whose values decide no build and are secrets: left out of the
/// key, which a sandbox can read.
const SECRET: [&str; 4] = ["TOKEN", "SECRET", "PASSWORD", "CREDENTIAL"];

/// The key of a warm-up in `build_dir` whose own inputs are `parts` (the
/// `:dep` cells' evcxr commands, the named crates' fingerprints), joined with
/// what every warm-up depends on: the `rustc` and `cargo` an engine working
/// in `probe_dir` runs (their `-vV`; a `rust-toolchain.toml` above it counts),
/// every `RUST…` and `CARGO…` variable but secrets and those an engine sets
/// itself, cargo's config files (`$CARGO_HOME`'s and those above the build
/// folder), what the folder's build scripts said they read, and this
/// program's engine settings. None when the toolchain does not answer.
pub fn key(parts: &[String], build_dir: &Path, probe_dir: &Path) -> Option<String> {
    let mut h = Sha1::new();
    // v3: the runner builds the versions the checkout's lock pins; a folder
    // warmed before may hold others, which every sandbox would build again.
    h.update(b"puzzlebook-warm-v3\n");
    let mut add = |what: &str, text: &str| {
        h.update(format!("{what} {}\n", text.len()).as_bytes());
        h.update(text.as_bytes());
        h.update(b"\n");
    };
    for part in parts {
        add("part", part);
    }
    add("config", &super::config_toml());
    add("init", &super::init_commands());
    add("metadata", super::LIB_METADATA);
    for program in ["rustc", "cargo"] {
        let out = std::process::Command::new(program)
            .arg("-vV")
            .current_dir(probe_dir)
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        add("tool", &String::from_utf8_lossy(&out.stdout));
    }
    let mut vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
        .filter(|(k, _)| k.starts_with("RUST") || k.starts_with("CARGO"))
        .filter(|(k, _)| !super::ENGINE_VARS.contains(&k.as_str()))
        .filter(|(k, _)| !SECRET.iter().any(|s| k.to_ascii_uppercase().contains(s)))
        .collect();
    vars.sort();
    for (k, v) in vars {
        add("env", &format!("{k}={v}"));
    }
    for file in cargo_configs(build_dir) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        add("cargo config", &format!("{}\n{text}", file.display()));
    }
    for input in build_script_inputs(build_dir) {
        add("build input", &input);
    }
    Some(hex::encode(h.finalize()))
}

/// The cargo config files a build in `build_dir` reads, those that exist:
/// in `.cargo/` of the folder and of each folder above it, and in
/// `$CARGO_HOME` (or `~/.cargo`).
fn cargo_configs(build_dir: &Path) -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    let build_dir = std::path::absolute(build_dir).unwrap_or_else(|_| build_dir.to_path_buf());
    build_dir
        .ancestors()
        .map(|d| d.join(".cargo"))
        .chain(home)
        .flat_map(|d| [d.join("config.toml"), d.join("config")])
        .filter(|f| f.is_file())
        .collect()
}

/// A file's length and time of change, or that it is missing. A folder's is
/// the number of entries under it and the newest time among them and its
/// own, as cargo looks through a folder a build script names.
pub fn stamp(file: &Path) -> String {
    match std::fs::metadata(file) {
        Ok(m) if m.is_dir() => {
            let (mut count, mut newest) = (0u64, since_epoch(&m));
            newest_under(file, &mut count, &mut newest);
            format!(
                "{} folder {count} {}.{:09}",
                file.display(),
                newest.as_secs(),
                newest.subsec_nanos()
            )
        }
        Ok(m) => {
            let t = since_epoch(&m);
            format!(
                "{} {} {}.{:09}",
                file.display(),
                m.len(),
                t.as_secs(),
                t.subsec_nanos()
            )
        }
        Err(_) => format!("{} missing", file.display()),
    }
}

/// A file's time of change, since the epoch.
fn since_epoch(m: &std::fs::Metadata) -> std::time::Duration {
    m.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .unwrap_or_default()
}

/// Counts the entries under `dir`, and keeps the newest time among them,
/// without following links.
fn newest_under(dir: &Path, count: &mut u64, newest: &mut std::time::Duration) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(m) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        *count += 1;
        *newest = (*newest).max(since_epoch(&m));
        if m.is_dir() {
            newest_under(&entry.path(), count, newest);
        }
    }
}

/// What the build scripts built in `build_dir` said they read (cargo runs a
/// script again when one changes): each absolute `rerun-if-changed` path's
/// [`stamp`], and each `rerun-if-env-changed` variable's value, sorted.
fn build_script_inputs(build_dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for build in target_folders(build_dir).map(|d| d.join("build")) {
        for entry in std::fs::read_dir(build).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(entry.path().join("output")).unwrap_or_default();
            for line in text.lines() {
                let line = line
                    .trim_start_matches("cargo::")
                    .trim_start_matches("cargo:");
                if let Some(file) = line.strip_prefix("rerun-if-changed=") {
                    if Path::new(file).is_absolute() {
                        out.push(format!("file {}", stamp(Path::new(file))));
                    }
                } else if let Some(var) = line.strip_prefix("rerun-if-env-changed=") {
                    let value = std::env::var_os(var).map(|v| v.to_string_lossy().into_owned());
                    out.push(format!("env {var}={value:?}"));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The folder's cargo target folders: `target/debug` (build scripts) and
/// `target/<triple>/debug` (what evcxr builds for its `--target`).
fn target_folders(build_dir: &Path) -> impl Iterator<Item = PathBuf> {
    let target = build_dir.join("target");
    let triples = std::fs::read_dir(&target)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("debug"));
    std::iter::once(target.join("debug")).chain(triples)
}

/// The folder's build as cargo's fingerprints record it: how many there are
/// and the newest time among them, but for the cells' crate, which every
/// engine compiles and `grade` removes ([`super::forget_cells`]). Any build
/// of a dependency there changes it.
fn built(build_dir: &Path) -> String {
    let (mut count, mut newest) = (0u64, std::time::Duration::ZERO);
    for fingerprints in target_folders(build_dir).map(|d| d.join(".fingerprint")) {
        for unit in std::fs::read_dir(fingerprints)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|u| !super::is_cells_build(&u.file_name().to_string_lossy()))
        {
            if let Ok(m) = std::fs::symlink_metadata(unit.path()) {
                count += 1;
                newest = newest.max(since_epoch(&m));
            }
            newest_under(&unit.path(), &mut count, &mut newest);
        }
    }
    format!("{count} {}.{:09}", newest.as_secs(), newest.subsec_nanos())
}

/// The note `key` and the build as it is now would make.
fn note(build_dir: &Path, key: &str) -> String {
    format!("{key}\n{}\n", built(build_dir))
}

/// Whether the folder's note holds `key`, and its build is as the warm-up
/// that wrote it left it.
pub fn is_current(build_dir: &Path, key: &str) -> bool {
    std::fs::read_to_string(note_path(build_dir)).is_ok_and(|n| n == note(build_dir, key))
}

/// Records that a warm-up with `key` built what it needs in `build_dir`, as
/// the folder's build is now.
pub fn record(build_dir: &Path, key: &str) -> std::io::Result<()> {
    std::fs::write(note_path(build_dir), note(build_dir, key))
}

/// Forgets the folder's warm-up, so that the next grade runs it again
/// (`bench` measures a first grade so).
pub fn forget(build_dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(note_path(build_dir)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A build folder with one cargo fingerprint and one build script's
    /// output, which read `file` and the variable `PB_WARM_TEST_UNSET`.
    fn folder(file: &Path) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let unit = dir
            .path()
            .join("target/x86_64-unknown-linux-gnu/debug/.fingerprint/z3-1a");
        std::fs::create_dir_all(&unit).unwrap();
        std::fs::write(unit.join("lib-z3"), "0123").unwrap();
        let script = dir.path().join("target/debug/build/z3-sys-2b");
        std::fs::create_dir_all(&script).unwrap();
        std::fs::write(
            script.join("output"),
            format!(
                "cargo:rerun-if-changed={}\ncargo:rerun-if-changed=build.rs\ncargo:rerun-if-env-changed=PB_WARM_TEST_UNSET\n",
                file.display()
            ),
        )
        .unwrap();
        dir
    }

    #[test]
    fn a_note_holds_until_forgotten_or_a_dependency_is_built() {
        let lib = tempfile::NamedTempFile::new().unwrap();
        let dir = folder(lib.path());
        let probe = dir.path();
        let key = key(&["a".into()], dir.path(), probe).expect("rustc and cargo on PATH");
        assert!(!is_current(dir.path(), &key));
        record(dir.path(), &key).unwrap();
        assert!(is_current(dir.path(), &key));
        assert!(!is_current(dir.path(), "another key"));
        // A `report` compiles its cells there: the note holds.
        let fingerprints = dir
            .path()
            .join("target/x86_64-unknown-linux-gnu/debug/.fingerprint");
        std::fs::create_dir_all(fingerprints.join("ctx-4d")).unwrap();
        std::fs::write(fingerprints.join("ctx-4d/lib-ctx"), "4567").unwrap();
        assert!(is_current(dir.path(), &key));
        // A dependency built again where it was: its fingerprint rewritten.
        let f = std::fs::File::options()
            .write(true)
            .open(fingerprints.join("z3-1a/lib-z3"))
            .unwrap();
        f.set_modified(UNIX_EPOCH + std::time::Duration::from_secs(4_000_000_000))
            .unwrap();
        drop(f);
        assert!(!is_current(dir.path(), &key));
        record(dir.path(), &key).unwrap();
        assert!(is_current(dir.path(), &key));
        // Another program builds a unit there: the record no longer holds.
        let unit = dir
            .path()
            .join("target/x86_64-unknown-linux-gnu/debug/.fingerprint/z3-3c");
        std::fs::create_dir_all(&unit).unwrap();
        assert!(!is_current(dir.path(), &key));
        record(dir.path(), &key).unwrap();
        assert!(is_current(dir.path(), &key));
        forget(dir.path()).unwrap();
        assert!(!is_current(dir.path(), &key));
        // Forgetting twice is no error.
        forget(dir.path()).unwrap();
    }

    #[test]
    fn a_folder_s_stamp_follows_every_file_under_it() {
        let dir = tempfile::tempdir().unwrap();
        let include = dir.path().join("include");
        std::fs::create_dir_all(include.join("z3")).unwrap();
        let header = include.join("z3/z3_api.h");
        std::fs::write(&header, "a").unwrap();
        // A time after the folders' own, so that it is the newest.
        let touch = |secs: u64| {
            let f = std::fs::File::options().write(true).open(&header).unwrap();
            f.set_modified(UNIX_EPOCH + std::time::Duration::from_secs(secs))
                .unwrap();
        };
        touch(4_000_000_000);
        let first = stamp(&include);
        assert_eq!(stamp(&include), first);
        // A file two folders down changed in place: the folders' times stay.
        touch(4_000_000_001);
        assert_ne!(stamp(&include), first);
        // A file added.
        let second = stamp(&include);
        std::fs::write(include.join("z3/z3_v1.h"), "b").unwrap();
        touch(4_000_000_001);
        assert_ne!(stamp(&include), second);
        assert!(stamp(&dir.path().join("gone")).ends_with(" missing"));
    }

    #[test]
    fn the_key_changes_with_each_part_and_with_what_a_build_script_read() {
        let lib = tempfile::NamedTempFile::new().unwrap();
        let dir = folder(lib.path());
        let (d, p) = (dir.path(), dir.path());
        let one = key(&["a".into(), "b".into()], d, p).expect("rustc and cargo on PATH");
        assert_eq!(key(&["a".into(), "b".into()], d, p).unwrap(), one);
        assert_ne!(key(&["a".into(), "c".into()], d, p).unwrap(), one);
        // Parts are told apart by their lengths, not run together.
        assert_ne!(
            key(&["ab".into()], d, p).unwrap(),
            key(&["a".into(), "b".into()], d, p).unwrap()
        );
        assert_eq!(one.len(), 40);
        // The file a build script read changes (a new libz3, say).
        std::fs::write(lib.path(), "changed").unwrap();
        assert_ne!(key(&["a".into(), "b".into()], d, p).unwrap(), one);
    }
}
