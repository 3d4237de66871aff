//! The result hash: sha1 over a cell's source, the previous cell's hash and a
//! fingerprint of exactly what a notebook's `:dep puzzlebook` compiles.
//!
//! ```text
//! fingerprint = sha1( "puzzlebook-fingerprint-v3\n"
//!                     "capture " CAPTURE_FORMAT "\n"
//!                     for each file F of Cargo.toml, build.rs and src/**,
//!                     then of polars-dylib/Cargo.toml and polars-dylib/src/**,
//!                     then of z3-dylib/Cargo.toml, z3-dylib/build.rs and z3-dylib/src/**
//!                     (each package's sources sorted by path):
//!                         "file " F "\n" len(F) "\n" bytes(F) "\n"
//!                     for each package P in the library's dependency tree in
//!                     Cargo.lock (sorted by name, then version):
//!                         "lock " name " " version " " source " " checksum "\n" )
//! hash(cell 1) = sha1( "puzzlebook-cell-v1\n" fingerprint "\n" "\n"         source )
//! hash(cell n) = sha1( "puzzlebook-cell-v1\n" fingerprint "\n" hash(n-1) "\n" source )
//! ```
//! Cells are the code cells of one notebook in order; hashes are 40 lowercase hex
//! digits as org-babel shows them. The command (`cli/`) and the lock entries
//! only it uses (evcxr, clap, …) are not covered: changing them leaves every
//! notebook fresh. How the runner captures outputs is covered by
//! [`CAPTURE_FORMAT`], which names evcxr's version.
//!
//! The Z3 version is not covered: a notebook is not stale because the local
//! libz3 differs from the one its outputs came from, which the notebook
//! records instead (`metadata.puzzlebook.z3`; docs/hash.md).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

/// What the runner's output capture is: bump it when the runner changes how a
/// cell's outputs come out (what it runs before the cells, how it joins
/// streams, which MIME types it keeps), when evcxr's version changes, or
/// when a hook of the vendored evcxr does (`cli/vendor/evcxr/PUZZLEBOOK.md`).
/// `quick-start`: the engine starts without evcxr's own first cell and with
/// `?` allowed from the first one ([`crate::engine::quick_start`]),
/// where v4 ran evcxr's `42` and a `?` primer before the cells (the outputs
/// came out the same byte for byte).
pub const CAPTURE_FORMAT: &str =
    "puzzlebook-capture-v5 evcxr-0.22.0 quick-start opt-0 question-mark-allowed stdout-displays-clears-stderr-mime-no-ansi cut-at-1MiB";

/// The packages of the checkout a notebook's `:dep` compiles, as folders
/// relative to the root: the library, and the shared polars and z3 libraries
/// that its `polars-dylib` and `z3-dylib` features add.
pub const LIBRARY_PACKAGES: [&str; 3] = ["", "polars-dylib", "z3-dylib"];

/// The library's files a notebook's `:dep` compiles, relative to the checkout
/// `root`: for each of [`LIBRARY_PACKAGES`], its `Cargo.toml`, its `build.rs`
/// if it has one, and everything under its `src/`, sorted.
///
/// This is the one list of them: the fingerprint, `bench`'s copy of the
/// project and the tests' fixtures all use it.
pub fn library_files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for package in LIBRARY_PACKAGES.map(PathBuf::from) {
        out.push(package.join("Cargo.toml"));
        if root.join(&package).join("build.rs").is_file() {
            out.push(package.join("build.rs"));
        }
        let mut stack = vec![package.join("src")];
        let mut found = Vec::new();
        while let Some(rel) = stack.pop() {
            for entry in std::fs::read_dir(root.join(&rel))? {
                let entry = entry?;
                let r = rel.join(entry.file_name());
                if entry.file_type()?.is_dir() {
                    stack.push(r);
                } else {
                    found.push(r);
                }
            }
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// One `[[package]]` of Cargo.lock.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LockEntry {
    /// The crate.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Where it comes from (empty for a path dependency).
    pub source: String,
    /// Its checksum (empty for a path dependency).
    pub checksum: String,
    dependencies: Vec<String>,
}

fn invalid(msg: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg)
}

/// The lock entries of `package`'s dependency tree (not `package` itself),
/// from the text of Cargo.lock. `direct` names the dependencies to start from
/// (the manifest's `[dependencies]`, so dev-dependencies are left out).
pub fn dependency_tree(
    lock: &str,
    package: &str,
    direct: &BTreeSet<String>,
) -> std::io::Result<BTreeSet<LockEntry>> {
    let value: toml::Table =
        toml::from_str(lock).map_err(|e| invalid(format!("Cargo.lock is not valid TOML: {e}")))?;
    let field = |t: &toml::Table, k: &str| {
        t.get(k)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let entries: Vec<LockEntry> = value
        .get("package")
        .and_then(|p| p.as_array())
        .ok_or_else(|| invalid("Cargo.lock has no [[package]] entries".into()))?
        .iter()
        .filter_map(|p| p.as_table())
        .map(|t| LockEntry {
            name: field(t, "name"),
            version: field(t, "version"),
            source: field(t, "source"),
            checksum: field(t, "checksum"),
            dependencies: t
                .get("dependencies")
                .and_then(|d| d.as_array())
                .map(|d| {
                    d.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        by_name.entry(&e.name).or_default().push(i);
    }
    // A lock dependency is "name", or "name version" when several versions exist.
    let resolve = |dep: &str| -> std::io::Result<usize> {
        let mut words = dep.split_whitespace();
        let name = words.next().unwrap_or_default();
        let version = words.next();
        by_name
            .get(name)
            .and_then(|ids| {
                ids.iter()
                    .copied()
                    .find(|&i| version.is_none_or(|v| entries[i].version == v))
            })
            .ok_or_else(|| invalid(format!("Cargo.lock names {dep:?} but has no entry for it")))
    };
    let root = resolve(package)?;
    let mut stack: Vec<usize> = entries[root]
        .dependencies
        .iter()
        .filter(|d| direct.contains(d.split_whitespace().next().unwrap_or_default()))
        .map(|d| resolve(d))
        .collect::<std::io::Result<_>>()?;
    let mut seen = BTreeSet::new();
    while let Some(i) = stack.pop() {
        if seen.insert(i) {
            for d in &entries[i].dependencies {
                stack.push(resolve(d)?);
            }
        }
    }
    Ok(seen.into_iter().map(|i| entries[i].clone()).collect())
}

/// The names of the crates under `[dependencies]` in a manifest's text (as
/// Cargo.lock spells them, following `package = "…"` renames).
pub fn direct_dependencies(manifest: &str) -> std::io::Result<BTreeSet<String>> {
    let value: toml::Table = toml::from_str(manifest)
        .map_err(|e| invalid(format!("Cargo.toml is not valid TOML: {e}")))?;
    let deps = value
        .get("dependencies")
        .and_then(|d| d.as_table())
        .cloned()
        .unwrap_or_default();
    Ok(deps
        .iter()
        .map(|(k, v)| {
            v.get("package")
                .and_then(|p| p.as_str())
                .unwrap_or(k)
                .to_string()
        })
        .collect())
}

/// The fingerprint of the library in the checkout `root` (see the module docs).
pub fn fingerprint(root: &Path) -> std::io::Result<String> {
    let mut h = Sha1::new();
    h.update(b"puzzlebook-fingerprint-v3\n");
    h.update(format!("capture {CAPTURE_FORMAT}\n").as_bytes());
    for rel in library_files(root)? {
        let bytes = std::fs::read(root.join(&rel))?;
        let name = rel.to_string_lossy().replace('\\', "/");
        h.update(format!("file {name}\n{}\n", bytes.len()).as_bytes());
        h.update(&bytes);
        h.update(b"\n");
    }
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let lock = std::fs::read_to_string(root.join("Cargo.lock"))?;
    for e in dependency_tree(&lock, "puzzlebook", &direct_dependencies(&manifest)?)? {
        h.update(
            format!(
                "lock {} {} {} {}\n",
                e.name, e.version, e.source, e.checksum
            )
            .as_bytes(),
        );
    }
    Ok(hex::encode(h.finalize()))
}

/// The hash of one code cell, chained on the previous cell's hash (`""` for the first).
///
/// ```
/// use puzzlebook_cli::runner::hash::cell_hash;
/// let a = cell_hash("f", "", "1 + 1");
/// assert_eq!(a.len(), 40);
/// assert_ne!(cell_hash("f", &a, "2"), cell_hash("f", "", "2"));
/// ```
pub fn cell_hash(fingerprint: &str, previous: &str, source: &str) -> String {
    let mut h = Sha1::new();
    h.update(b"puzzlebook-cell-v1\n");
    h.update(fingerprint.as_bytes());
    h.update(b"\n");
    h.update(previous.as_bytes());
    h.update(b"\n");
    h.update(source.as_bytes());
    hex::encode(h.finalize())
}

/// The hashes of a notebook's code cells, in order, from their sources.
pub fn chain<'a>(fingerprint: &str, sources: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut prev = String::new();
    sources
        .into_iter()
        .map(|s| {
            prev = cell_hash(fingerprint, &prev, s);
            prev.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_is_the_standard_one() {
        let mut h = Sha1::new();
        h.update(b"abc");
        assert_eq!(
            hex::encode(h.finalize()),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
    }

    #[test]
    fn an_edit_changes_its_cell_and_every_later_one_only() {
        let a = chain("f", ["x", "y", "z"]);
        let b = chain("f", ["x", "Y", "z"]);
        assert_eq!(a[0], b[0]);
        assert_ne!(a[1], b[1]);
        assert_ne!(a[2], b[2]);
        assert_ne!(chain("g", ["x"])[0], a[0]);
    }

    const LOCK: &str = r#"
version = 4

[[package]]
name = "puzzlebook"
version = "0.1.0"
dependencies = ["z3", "tempfile"]

[[package]]
name = "puzzlebook-cli"
version = "0.1.0"
dependencies = ["evcxr", "puzzlebook"]

[[package]]
name = "z3"
version = "0.22.0"
source = "registry"
checksum = "aa"
dependencies = ["z3-sys", "num 0.4.0"]

[[package]]
name = "z3-sys"
version = "0.14.0"

[[package]]
name = "num"
version = "0.4.0"

[[package]]
name = "num"
version = "0.3.0"

[[package]]
name = "tempfile"
version = "3.0.0"

[[package]]
name = "evcxr"
version = "0.22.0"
"#;

    #[test]
    fn the_tree_is_the_library_s_normal_dependencies_only() {
        let direct = direct_dependencies(
            "[dependencies]\nz3 = \"0.22\"\n[dev-dependencies]\ntempfile = \"3\"\n",
        )
        .unwrap();
        let tree = dependency_tree(LOCK, "puzzlebook", &direct).unwrap();
        let names: Vec<String> = tree
            .iter()
            .map(|e| format!("{} {}", e.name, e.version))
            .collect();
        assert_eq!(names, ["num 0.4.0", "z3 0.22.0", "z3-sys 0.14.0"]);
    }

    #[test]
    fn renamed_dependencies_are_followed() {
        let direct =
            direct_dependencies("[dependencies]\nzed = { package = \"z3\", version = \"0.22\" }\n")
                .unwrap();
        assert_eq!(direct.into_iter().collect::<Vec<_>>(), ["z3"]);
    }

    #[test]
    fn the_capture_format_names_the_locked_evcxr() {
        let lock =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.lock")).unwrap();
        let direct = BTreeSet::from(["evcxr".to_string()]);
        let tree = dependency_tree(&lock, "puzzlebook-cli", &direct).unwrap();
        let evcxr = tree
            .iter()
            .find(|e| e.name == "evcxr")
            .expect("evcxr is locked");
        assert!(
            CAPTURE_FORMAT.contains(&format!("evcxr-{} ", evcxr.version)),
            "Cargo.lock has evcxr {}: update CAPTURE_FORMAT ({CAPTURE_FORMAT})",
            evcxr.version
        );
    }
}
