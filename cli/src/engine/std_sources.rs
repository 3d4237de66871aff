//! The standard library's sources as engines show them to rust-analyzer: the
//! toolchain's, without `core::arch`'s x86 intrinsics and without the
//! library's workspace manifest, copied once per toolchain into the cache.
//!
//! evcxr asks rust-analyzer for the type of each variable a cell keeps, and
//! rust-analyzer names the whole standard library before it answers the
//! first: every engine start parses and expands core, alloc and std. Two
//! things in the toolchain's sources cost an engine's start much and give
//! its cells nothing:
//!
//! - `core::arch`'s `x86` and `x86_64` modules, about 184 thousand lines of
//!   SIMD intrinsics (more than core, alloc and std's own code together)
//!   that no cell's type names;
//! - the library's `Cargo.toml`: with it, rust-analyzer runs `cargo
//!   metadata` on the library's workspace at each start (which fetches std's
//!   crates.io dependencies if they are not in cargo's cache) and names
//!   those dependencies too (hashbrown, libc, gimli and others, private to
//!   std). Without it, rust-analyzer puts core, alloc, std and their sibling
//!   crates together itself ("stitches" the sysroot, as it did for every
//!   toolchain before the library had a manifest).
//!
//! Without them an engine starts with about three quarters of the CPU, and
//! its cells compile and print the same: rustc builds them against the
//! toolchain's own library, which this does not touch (BENCHMARKS.md,
//! "Where an engine's start goes"). What is lost is rust-analyzer's view of
//! `std::arch`: the kernel completes no intrinsic's name, and a cell that
//! keeps a variable whose type only rust-analyzer could have found there
//! must write the type out.
//!
//! The copy is made of hard links where the file system allows (a copy of
//! each file where not), beside its place and renamed into it once whole, so
//! that engines starting at once in several processes see either no copy or
//! a complete one.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// What is left out, under the library folder: `core::arch`'s intrinsics
/// for the two x86 architectures (`stdarch`'s, which core includes by
/// path), and the library workspace's manifest and lock file.
const LEFT_OUT: [&str; 4] = [
    "stdarch/crates/core_arch/src/x86",
    "stdarch/crates/core_arch/src/x86_64",
    "Cargo.toml",
    "Cargo.lock",
];

/// The file that marks a folder as such a copy, written last.
pub const MARK: &str = "PUZZLEBOOK-SOURCES.md";

/// What [`MARK`] says to whoever finds the folder.
const MARK_TEXT: &str = "\
# The standard library's sources, for rust-analyzer under puzzlebook's engines

A copy (hard links where possible) of a Rust toolchain's `library` folder,
made by puzzlebook, without `core::arch`'s x86 and x86_64 intrinsics and
without the workspace's `Cargo.toml` and `Cargo.lock`, so that rust-analyzer
does less at every engine start. Engines point rust-analyzer at it through
`RUST_SRC_PATH`; rustc never reads it. It can be deleted at any time: the
next engine makes it again.
";

/// The folder under `cache` for the sources in `source` of the toolchain
/// that `rustc -vV` describes as `version`: one per pair, so that a new
/// toolchain, or another `RUST_SRC_PATH`, gets its own; and one for what is
/// [`LEFT_OUT`], so that a copy made by another version of this program
/// is not taken for this one's.
pub fn copy_dir(cache: &Path, source: &Path, version: &str) -> PathBuf {
    let mut h = Sha256::new();
    h.update(source.as_os_str().as_encoded_bytes());
    h.update([0]);
    h.update(version.as_bytes());
    for l in LEFT_OUT {
        h.update([0]);
        h.update(l.as_bytes());
    }
    let digest = hex::encode(h.finalize());
    cache.join(&digest[..16])
}

/// Whether `dir` is such a copy already (a sandbox is handed one).
pub fn is_copy(dir: &Path) -> bool {
    dir.join(MARK).is_file()
}

/// The sources to show rust-analyzer: `source` itself when it is a copy
/// already, else its copy in `dest`, made now if it is not there. Processes
/// that make the same copy at once take turns (a lock beside it), and the
/// copy is built beside `dest` and renamed into place whole, so none sees
/// half of one; what a killed process left half made is made again.
pub fn prepare(source: &Path, dest: &Path) -> std::io::Result<PathBuf> {
    if is_copy(source) {
        return Ok(source.to_path_buf());
    }
    if is_copy(dest) {
        return Ok(dest.to_path_buf());
    }
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let beside = |ext: &str| {
        let mut name = dest.file_name().unwrap_or_default().to_os_string();
        name.push(ext);
        parent.join(name)
    };
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(beside(".lock"))?;
    lock.lock()?;
    if is_copy(dest) {
        return Ok(dest.to_path_buf());
    }
    // No whole copy: a partial folder is what a killed process left, and a
    // folder without the mark in the copy's place is none of ours.
    let partial = beside(".partial");
    for dir in [dest, partial.as_path()] {
        if dir.exists() {
            std::fs::remove_dir_all(dir)?;
        }
    }
    std::fs::create_dir(&partial)?;
    copy_tree(source, &partial, source)?;
    std::fs::write(partial.join(MARK), MARK_TEXT)?;
    std::fs::rename(&partial, dest)?;
    Ok(dest.to_path_buf())
}

/// `from`'s tree into the existing folder `to`, but what is [`LEFT_OUT`]
/// (taken under `root`): files as hard links, or copies where links fail, and
/// symbolic links as they are.
fn copy_tree(from: &Path, to: &Path, root: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let path = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if LEFT_OUT.iter().any(|l| path == root.join(l)) {
            continue;
        }
        if kind.is_dir() {
            std::fs::create_dir(&target)?;
            copy_tree(&path, &target, root)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&path)?, &target)?;
        } else if std::fs::hard_link(&path, &target).is_err() {
            std::fs::copy(&path, &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library folder in miniature: core, its path-included intrinsics
    /// for x86 and for another architecture, and std.
    fn library(root: &Path) {
        let files = [
            ("core/src/lib.rs", "mod core_arch;\n"),
            ("stdarch/crates/core_arch/src/mod.rs", "mod x86;\n"),
            (
                "stdarch/crates/core_arch/src/x86/mod.rs",
                "pub fn _mm() {}\n",
            ),
            (
                "stdarch/crates/core_arch/src/x86_64/mod.rs",
                "pub fn _mm64() {}\n",
            ),
            (
                "stdarch/crates/core_arch/src/aarch64/mod.rs",
                "pub fn v() {}\n",
            ),
            ("std/src/lib.rs", "pub use core::*;\n"),
            ("std/Cargo.toml", "[package]\n"),
            ("Cargo.toml", "[workspace]\n"),
            ("Cargo.lock", "version = 4\n"),
        ];
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    /// Every file under `root`, with its bytes, by path, sorted.
    fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut todo = vec![root.to_path_buf()];
        while let Some(dir) = todo.pop() {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    todo.push(p);
                } else {
                    let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                    out.push((rel, std::fs::read(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn dest_name(dest: &Path) -> String {
        dest.file_name().unwrap().to_string_lossy().into_owned()
    }

    #[test]
    fn the_copy_is_the_library_without_the_x86_intrinsics_or_the_workspace_manifest_made_once() {
        let t = tempfile::tempdir().unwrap();
        let source = t.path().join("library");
        library(&source);
        let cache = t.path().join("cache");
        let dest = copy_dir(&cache, &source, "rustc 1.0.0");
        let got = prepare(&source, &dest).unwrap();
        assert_eq!(got, dest);
        let mut expected: Vec<_> = files(&source)
            .into_iter()
            .filter(|(p, _)| {
                !p.starts_with("stdarch/crates/core_arch/src/x86") && !p.starts_with("Cargo.")
            })
            .collect();
        expected.push((MARK.to_string(), MARK_TEXT.as_bytes().to_vec()));
        expected.sort();
        assert_eq!(files(&dest), expected);
        // The other architecture's intrinsics stay, and the crates' own
        // manifests.
        assert!(dest
            .join("stdarch/crates/core_arch/src/aarch64/mod.rs")
            .is_file());
        assert!(dest.join("std/Cargo.toml").is_file());
        // The toolchain's folder is untouched.
        assert!(source
            .join("stdarch/crates/core_arch/src/x86/mod.rs")
            .is_file());
        assert!(!source.join(MARK).exists());
        // Nothing else is left in the cache but the lock: no partial folder.
        assert_eq!(
            names(&cache),
            [dest_name(&dest), dest_name(&dest) + ".lock"]
        );

        // Made once: a file added to the copy stays (it is not made again).
        std::fs::write(dest.join("seen"), "").unwrap();
        assert_eq!(prepare(&source, &dest).unwrap(), dest);
        assert!(dest.join("seen").exists());
        // A copy handed over as the source (a sandbox's) is used as it is.
        let elsewhere = copy_dir(&cache, &dest, "rustc 1.0.0");
        assert_eq!(prepare(&dest, &elsewhere).unwrap(), dest);
        assert!(!elsewhere.exists());
    }

    #[test]
    fn each_toolchain_and_each_source_folder_gets_its_own_copy() {
        let cache = Path::new("/cache");
        let a = copy_dir(cache, Path::new("/a/library"), "rustc 1.95.0");
        assert_eq!(a, copy_dir(cache, Path::new("/a/library"), "rustc 1.95.0"));
        assert_ne!(a, copy_dir(cache, Path::new("/b/library"), "rustc 1.95.0"));
        assert_ne!(a, copy_dir(cache, Path::new("/a/library"), "rustc 1.96.0"));
        assert_eq!(a.parent(), Some(cache));
    }

    #[test]
    fn a_folder_without_the_mark_is_made_again_and_engines_at_once_share_one_copy() {
        let t = tempfile::tempdir().unwrap();
        let source = t.path().join("library");
        library(&source);
        let dest = t.path().join("cache/copy");
        // Something without the mark in the copy's place, and the partial
        // folder of a process that was killed.
        std::fs::create_dir_all(dest.join("core")).unwrap();
        std::fs::write(dest.join("core/stray"), "").unwrap();
        std::fs::create_dir_all(t.path().join("cache/copy.partial/std")).unwrap();
        let made: Vec<PathBuf> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| prepare(&source, &dest)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap().unwrap())
                .collect()
        });
        assert!(made.iter().all(|d| *d == dest));
        assert!(is_copy(&dest));
        assert!(!dest.join("core/stray").exists());
        assert!(dest.join("core/src/lib.rs").is_file());
        assert_eq!(names(&t.path().join("cache")), ["copy", "copy.lock"]);
    }
}
