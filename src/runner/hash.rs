//! The result hash: sha1 over a cell's source, the previous cell's hash and a
//! fingerprint of everything results depend on.
//!
//! ```text
//! fingerprint = sha1( "puzzlebook-fingerprint-v1\n"
//!                     for each file F of Cargo.toml, Cargo.lock and src/** (sorted by path):
//!                         "file " F "\n" len(F) "\n" bytes(F) "\n"
//!                     "z3 " <libz3 full version> "\n" )
//! hash(cell 1) = sha1( "puzzlebook-cell-v1\n" fingerprint "\n" "\n"         source )
//! hash(cell n) = sha1( "puzzlebook-cell-v1\n" fingerprint "\n" hash(n-1) "\n" source )
//! ```
//! Cells are the code cells of one notebook in order; hashes are 40 lowercase hex
//! digits as org-babel shows them. Cargo.lock pins the versions of evcxr, z3 and
//! polars, so they are covered by it.

use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

/// Lowercase hex of a sha1 digest.
fn hex(d: impl AsRef<[u8]>) -> String {
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// The files the fingerprint covers, relative to `crate_dir`, sorted.
pub fn fingerprint_files(crate_dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = vec![PathBuf::from("Cargo.toml"), PathBuf::from("Cargo.lock")];
    let mut stack = vec![PathBuf::from("src")];
    let mut found = Vec::new();
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(crate_dir.join(&rel))? {
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
    Ok(out)
}

/// The fingerprint of the crate at `crate_dir` (see the module docs).
pub fn fingerprint(crate_dir: &Path) -> std::io::Result<String> {
    let mut h = Sha1::new();
    h.update(b"puzzlebook-fingerprint-v1\n");
    for rel in fingerprint_files(crate_dir)? {
        let bytes = std::fs::read(crate_dir.join(&rel))?;
        let name = rel.to_string_lossy().replace('\\', "/");
        h.update(format!("file {name}\n{}\n", bytes.len()).as_bytes());
        h.update(&bytes);
        h.update(b"\n");
    }
    h.update(format!("z3 {}\n", z3::full_version()).as_bytes());
    Ok(hex(h.finalize()))
}

/// The hash of one code cell, chained on the previous cell's hash (`""` for the first).
///
/// ```
/// use puzzlebook::runner::hash::cell_hash;
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
    hex(h.finalize())
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
            hex(h.finalize()),
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
}
