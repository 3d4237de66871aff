//! The standard library's sources as engines show them to rust-analyzer: the
//! toolchain's, without `core::arch`'s x86 intrinsics, copied once per
//! toolchain into the cache.
//!
//! evcxr asks rust-analyzer for the type of each variable a cell keeps, and
//! rust-analyzer names the whole standard library before it answers the
//! first: every engine start parses and expands core, alloc and std, and
//! core includes `core::arch`'s intrinsics by path from `stdarch`. Those for
//! x86 and x86_64 are about 184 thousand lines of SIMD functions, more than
//! core's own code, and no cell's type names one. Without them notebook
//! 02's first six cells run with about 0.87× the CPU (some 2 s less an
//! engine), and print the same: rustc builds cells against the toolchain's
//! own library, which this does not touch (BENCHMARKS.md, "The standard
//! library's sources, trimmed for rust-analyzer"). What is lost is
//! rust-analyzer's view of `std::arch::x86_64`: the kernel completes no
//! intrinsic's name, and a cell that keeps a variable whose value comes
//! from an intrinsic (`__m128i`, or `_rdtsc()`'s `u64`) must write its type
//! out. The copy only saves time: where it cannot be made, engines read the
//! toolchain's sources, after a warning.
//!
//! The copy is made of hard links where the file system allows (a copy of
//! each file where not), beside its place and renamed into it once whole, so
//! that engines starting at once in several processes see either no copy or
//! a complete one.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// What is left out, under the library folder: `core::arch`'s intrinsics
/// for the two x86 architectures (`stdarch`'s, which core includes by
/// path). The library's `Cargo.toml` stays: without it rust-analyzer
/// "stitches" the sysroot from a list of crates that misses std's
/// dependencies, and then cannot find the type of
/// `map.keys().copied().collect::<HashSet<_>>()` (tried; BENCHMARKS.md).
const LEFT_OUT: [&str; 2] = [
    "stdarch/crates/core_arch/src/x86",
    "stdarch/crates/core_arch/src/x86_64",
];

/// The file that marks a folder as such a copy, written last.
pub const MARK: &str = "PUZZLEBOOK-SOURCES.md";

/// What [`MARK`] says to whoever finds the folder, before its [`stamp`].
const MARK_TEXT: &str = "\
# The standard library's sources, for rust-analyzer under puzzlebook's engines

A copy of a Rust toolchain's `library` folder, made by puzzlebook, without
`core::arch`'s x86 and x86_64 intrinsics, which rust-analyzer would
otherwise parse at every engine start. Engines point rust-analyzer at it
through `RUST_SRC_PATH`; rustc never reads it.

Its files are hard links to the toolchain's where the file system allows:
editing one in place edits the toolchain's. It can be deleted when no
engine runs; the next process that starts one makes it again.

";

/// Set (to anything) in a sandbox's environment: its `RUST_SRC_PATH` is
/// the grader's choice, used as it is, never copied again in the sandbox.
pub const AS_IS_VAR: &str = "PUZZLEBOOK_RUST_SRC_AS_IS";

/// The crates a copy must hold for rust-analyzer to name the standard
/// library (their roots).
const CRATE_ROOTS: [&str; 3] = ["core/src/lib.rs", "alloc/src/lib.rs", "std/src/lib.rs"];

/// The folder under `cache` for the sources in `source` of the toolchain
/// that `rustc -vV` describes as `version`: one per pair, so that a new
/// toolchain, or another `RUST_SRC_PATH`, gets its own; and one for what is
/// [`LEFT_OUT`], so that a copy made by another version of this program
/// is not taken for this one's.
pub fn copy_dir(cache: &Path, source: &Path, version: &str) -> PathBuf {
    let mut h = Sha256::new();
    h.update(source.as_os_str().as_encoded_bytes());
    h.update([0]);
    h.update(stamp(version).as_bytes());
    let digest = hex::encode(h.finalize());
    cache.join(&digest[..16])
}

/// What a copy's [`MARK`] records of how it was made: the toolchain and
/// what was left out.
fn stamp(version: &str) -> String {
    let release = version.lines().next().unwrap_or_default();
    format!("Toolchain: {release}\nLeft out: {}\n", LEFT_OUT.join(", "))
}

/// The [`MARK`]'s line naming the folder a copy was made from.
const SOURCE_LINE: &str = "Source: ";

/// Whether `dir` is a whole copy made for the toolchain `version` describes,
/// leaving out what this program leaves out: its mark, written last, says
/// so, and it holds the standard library's crates.
pub fn is_copy(dir: &Path, version: &str) -> bool {
    std::fs::read_to_string(dir.join(MARK)).is_ok_and(|m| m.contains(&stamp(version)))
        && CRATE_ROOTS.iter().all(|r| dir.join(r).is_file())
}

/// `e` with the path it concerns, in its message (what the copy's errors
/// become is a warning, text; a `ToolchainError` holds no `io::Error`).
fn at(path: &Path) -> impl FnOnce(std::io::Error) -> std::io::Error + '_ {
    move |e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// The sources to show rust-analyzer: `source` itself when it is a copy
/// already, else its copy in `dest`, made now if it is not there. Processes
/// that make the same copy at once take turns (a lock beside it), and the
/// copy is built beside `dest` and renamed into place whole, so none sees
/// half of one; what a killed process left half made is made again. Once a
/// copy is made, the copies beside it that no engine will read again are
/// removed ([`prune`]). Each error names the path it concerns.
pub fn prepare(source: &Path, dest: &Path, version: &str) -> std::io::Result<PathBuf> {
    if is_copy(source, version) {
        return Ok(source.to_path_buf());
    }
    if is_copy(dest, version) {
        return Ok(dest.to_path_buf());
    }
    let parent = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(at(parent))?;
    let lock = lock(dest, true)?;
    if is_copy(dest, version) {
        return Ok(dest.to_path_buf());
    }
    // No whole copy: what is in its place, or in the partial folder's, was
    // left by a process that did not finish.
    let partial = beside(dest, ".partial");
    for p in [dest, partial.as_path()] {
        remove(p).map_err(at(p))?;
    }
    std::fs::create_dir(&partial).map_err(at(&partial))?;
    let made = copy_and_mark(source, &partial, version);
    if let Err(e) = made {
        // Nothing half made is left: the next process tries again.
        let _ = remove(&partial);
        return Err(e);
    }
    std::fs::rename(&partial, dest).map_err(at(dest))?;
    drop(lock);
    prune(parent, dest, source, version);
    Ok(dest.to_path_buf())
}

/// `source`'s tree into `partial`, and the mark: its [`stamp`], and the
/// source folder's path where it can be written on a line of its own (else
/// the copy is never pruned: [`prune`] cannot tell whether its source is
/// gone).
fn copy_and_mark(source: &Path, partial: &Path, version: &str) -> std::io::Result<()> {
    let mut folders = vec![std::fs::canonicalize(source).map_err(at(source))?];
    copy_tree(source, partial, source, &mut folders)?;
    let mark = partial.join(MARK);
    let source_line = match source.to_str().filter(|s| !s.contains('\n')) {
        Some(s) => format!("{SOURCE_LINE}{s}\n"),
        None => String::new(),
    };
    let text = format!("{MARK_TEXT}{}{source_line}", stamp(version));
    std::fs::write(&mark, text).map_err(at(&mark))
}

/// `dest`'s name with `ext` appended, beside it.
fn beside(dest: &Path, ext: &str) -> PathBuf {
    let mut name = dest.file_name().unwrap_or_default().to_os_string();
    name.push(ext);
    dest.with_file_name(name)
}

/// The lock on making the copy `dest`, beside it: waited for, or `None` at
/// once if another process holds it and `wait` is false.
fn lock(dest: &Path, wait: bool) -> std::io::Result<Option<std::fs::File>> {
    let path = beside(dest, ".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(at(&path))?;
    if wait {
        file.lock().map_err(at(&path))?;
        return Ok(Some(file));
    }
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(at(&path)(e)),
    }
}

/// Removes the copies in `cache` but `kept` that no engine will read
/// again, each under its lock (one being made is left): those whose source
/// folder holds no `core` any more (a toolchain removed), those of `source`
/// made for another toolchain or leaving out something else (a toolchain
/// updated in place, as rustup's channels are), and those whose mark has
/// no stamp (made by an earlier version of this program). Their hard links
/// would keep the old files on disk. Best effort: what cannot be removed
/// stays.
fn prune(cache: &Path, kept: &Path, source: &Path, version: &str) {
    let Ok(entries) = std::fs::read_dir(cache) else {
        return;
    };
    let stale = |dir: &Path| {
        let Ok(mark) = std::fs::read_to_string(dir.join(MARK)) else {
            return false;
        };
        // Every mark since the stamp names the toolchain; one that does not
        // is an earlier version's.
        if !mark.lines().any(|l| l.starts_with("Toolchain: ")) {
            return true;
        }
        match mark.lines().find_map(|l| l.strip_prefix(SOURCE_LINE)) {
            None => false,
            Some(from) => {
                !Path::new(from).join("core").exists()
                    || (Path::new(from) == source && !mark.contains(&stamp(version)))
            }
        }
    };
    for dir in entries.flatten().map(|e| e.path()) {
        if dir == kept || !dir.is_dir() || !stale(&dir) {
            continue;
        }
        // Asked again under the lock: it may have been made again meanwhile.
        if let Ok(Some(_held)) = lock(&dir, false) {
            if stale(&dir) {
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
}

/// Removes whatever is at `path`, a folder or not, and nothing it links to.
fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
    }
}

/// `from`'s tree into the existing folder `to`, but what is [`LEFT_OUT`]
/// (taken under `root`, by name, whatever links lead there): files as hard
/// links, or copies where links fail. A symbolic link is followed, so that
/// the copy holds what it leads to: a link out of the tree would lead
/// nowhere in the copy, or nowhere a sandbox sees. A link to a folder that
/// holds one being copied (a loop), or the copy itself, is an error;
/// `folders` holds those being copied, canonical.
fn copy_tree(
    from: &Path,
    to: &Path,
    root: &Path,
    folders: &mut Vec<PathBuf>,
) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from).map_err(at(from))? {
        let entry = entry.map_err(at(from))?;
        let path = entry.path();
        if LEFT_OUT.iter().any(|l| path == root.join(l)) {
            continue;
        }
        let target = to.join(entry.file_name());
        let kind = std::fs::metadata(&path).map_err(at(&path))?;
        if kind.is_dir() {
            let real = std::fs::canonicalize(&path).map_err(at(&path))?;
            let copy = std::fs::canonicalize(to).map_err(at(to))?;
            if folders.iter().chain([&copy]).any(|f| f.starts_with(&real)) {
                return Err(at(&path)(std::io::Error::other(
                    "a link to a folder that holds it, or the copy: a loop",
                )));
            }
            std::fs::create_dir(&target).map_err(at(&target))?;
            folders.push(real);
            copy_tree(&path, &target, root, folders)?;
            folders.pop();
        } else {
            // A link to the file it leads to (`link` would link the link).
            let file = match entry.file_type().map_err(at(&path))?.is_symlink() {
                true => std::fs::canonicalize(&path).map_err(at(&path))?,
                false => path,
            };
            if std::fs::hard_link(&file, &target).is_err() {
                std::fs::copy(&file, &target).map_err(at(&target))?;
            }
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
            ("alloc/src/lib.rs", "pub fn vec() {}\n"),
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

    const V: &str = "rustc 1.0.0 (abc 2020-01-01)\nhost: x86_64-unknown-linux-gnu\n";

    #[test]
    fn the_copy_is_the_library_without_the_x86_intrinsics_and_is_made_once() {
        let t = tempfile::tempdir().unwrap();
        let source = t.path().join("library");
        library(&source);
        let cache = t.path().join("cache");
        let dest = copy_dir(&cache, &source, V);
        let got = prepare(&source, &dest, V).unwrap();
        assert_eq!(got, dest);
        let mut expected: Vec<_> = files(&source)
            .into_iter()
            .filter(|(p, _)| !p.starts_with("stdarch/crates/core_arch/src/x86"))
            .collect();
        expected.sort();
        let mut copied = files(&dest);
        let mark = copied.iter().position(|(p, _)| p == MARK).unwrap();
        let (_, mark) = copied.remove(mark);
        assert_eq!(copied, expected);
        // The mark says how and from where it was made.
        let mark = String::from_utf8(mark).unwrap();
        assert!(mark.starts_with(MARK_TEXT), "{mark}");
        assert!(
            mark.ends_with(&format!(
                "Toolchain: rustc 1.0.0 (abc 2020-01-01)\nLeft out: stdarch/crates/core_arch/src/x86, stdarch/crates/core_arch/src/x86_64\nSource: {}\n",
                source.display()
            )),
            "{mark}"
        );
        // The other architecture's intrinsics stay, and the manifests.
        assert!(dest
            .join("stdarch/crates/core_arch/src/aarch64/mod.rs")
            .is_file());
        assert!(dest.join("Cargo.toml").is_file());
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
        assert_eq!(prepare(&source, &dest, V).unwrap(), dest);
        assert!(dest.join("seen").exists());
        // A copy handed over as the source (a sandbox's) is used as it is,
        // if it was made for the same toolchain.
        let elsewhere = copy_dir(&cache, &dest, V);
        assert_eq!(prepare(&dest, &elsewhere, V).unwrap(), dest);
        assert!(!elsewhere.exists());
        // Another toolchain's is not its copy: it is copied in turn.
        let newer = "rustc 1.1.0 (def 2020-02-02)\n";
        assert!(!is_copy(&dest, newer));
        let again = copy_dir(&cache, &dest, newer);
        assert_eq!(prepare(&dest, &again, newer).unwrap(), again);
        assert!(is_copy(&again, newer) && !is_copy(&again, V));
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
        // Something without the mark in the copy's place, and a file in
        // the partial folder's.
        std::fs::create_dir_all(dest.join("core")).unwrap();
        std::fs::write(dest.join("core/stray"), "").unwrap();
        std::fs::write(t.path().join("cache/copy.partial"), "not a folder").unwrap();
        let made: Vec<PathBuf> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| prepare(&source, &dest, V)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap().unwrap())
                .collect()
        });
        assert!(made.iter().all(|d| *d == dest));
        assert!(is_copy(&dest, V));
        assert!(!dest.join("core/stray").exists());
        assert!(dest.join("core/src/lib.rs").is_file());
        assert_eq!(names(&t.path().join("cache")), ["copy", "copy.lock"]);
    }

    #[test]
    fn a_copy_missing_a_crate_is_made_again_and_links_are_followed() {
        use std::os::unix::fs::MetadataExt;
        let t = tempfile::tempdir().unwrap();
        // The library's `stdarch` is a link to a folder outside it (as in a
        // distribution's package), and `std` holds a link to a file.
        let outside = t.path().join("outside");
        library(&outside);
        let source = t.path().join("library");
        library(&source);
        std::fs::remove_dir_all(source.join("stdarch")).unwrap();
        std::os::unix::fs::symlink(outside.join("stdarch"), source.join("stdarch")).unwrap();
        std::os::unix::fs::symlink("lib.rs", source.join("std/src/prelude.rs")).unwrap();
        let dest = t.path().join("cache/copy");
        prepare(&source, &dest, V).unwrap();
        // What the links lead to is in the copy, as files and folders; the
        // intrinsics behind the link are still left out.
        let arch = dest.join("stdarch/crates/core_arch/src");
        assert!(!std::fs::symlink_metadata(dest.join("stdarch"))
            .unwrap()
            .is_symlink());
        assert!(arch.join("aarch64/mod.rs").is_file());
        assert!(!arch.join("x86").exists() && !arch.join("x86_64").exists());
        let prelude = std::fs::symlink_metadata(dest.join("std/src/prelude.rs")).unwrap();
        assert!(prelude.is_file());
        // Hard links, on the same file system: no second copy of the bytes.
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        assert_eq!(
            ino(&dest.join("core/src/lib.rs")),
            ino(&source.join("core/src/lib.rs"))
        );
        // A copy that lost a crate (a cleaner stopped half way) is no copy:
        // it is made again.
        std::fs::remove_dir_all(dest.join("std")).unwrap();
        assert!(!is_copy(&dest, V));
        prepare(&source, &dest, V).unwrap();
        assert!(is_copy(&dest, V));
        assert!(dest.join("std/src/lib.rs").is_file());
    }

    #[test]
    fn a_link_loop_or_a_link_to_the_cache_is_an_error_not_an_endless_copy() {
        let t = tempfile::tempdir().unwrap();
        let source = t.path().join("library");
        library(&source);
        std::os::unix::fs::symlink("..", source.join("core/up")).unwrap();
        let dest = t.path().join("cache/copy");
        let e = prepare(&source, &dest, V).unwrap_err();
        assert!(e.to_string().contains("core/up: "), "{e}");
        assert!(e.to_string().contains("a loop"), "{e}");
        // Nothing half made is left, but the lock.
        assert_eq!(names(&t.path().join("cache")), ["copy.lock"]);
        // A link to the cache, where the copy is being made.
        std::fs::remove_file(source.join("core/up")).unwrap();
        std::os::unix::fs::symlink(t.path().join("cache"), source.join("core/cache")).unwrap();
        let e = prepare(&source, &dest, V).unwrap_err();
        assert!(e.to_string().contains("core/cache: "), "{e}");
        assert!(!dest.exists());
    }

    #[test]
    fn a_new_copy_removes_the_copies_whose_sources_are_gone_and_no_other() {
        use std::os::unix::ffi::OsStrExt;
        let t = tempfile::tempdir().unwrap();
        let cache = t.path().join("cache");
        let (old, kept, new) = (
            t.path().join("old"),
            t.path().join("kept"),
            t.path().join("new"),
        );
        for source in [&old, &kept, &new] {
            library(source);
        }
        let old_copy = prepare(&old, &copy_dir(&cache, &old, V), V).unwrap();
        let kept_copy = prepare(&kept, &copy_dir(&cache, &kept, V), V).unwrap();
        // Something else in the cache, with no mark.
        std::fs::create_dir_all(cache.join("other")).unwrap();
        // A copy by an earlier version of this program, its mark naming no
        // source.
        let earlier = cache.join("earlier");
        std::fs::create_dir_all(&earlier).unwrap();
        std::fs::write(earlier.join(MARK), MARK_TEXT).unwrap();
        // The old toolchain is removed; a copy of the new one is made.
        std::fs::remove_dir_all(&old).unwrap();
        let new_copy = prepare(&new, &copy_dir(&cache, &new, V), V).unwrap();
        assert!(!old_copy.exists() && !earlier.exists());
        assert!(is_copy(&kept_copy, V) && is_copy(&new_copy, V));
        assert!(cache.join("other").is_dir());
        // The kept toolchain is updated in place (rustup's channels): its
        // new copy replaces the one of its old version, and no other.
        let updated = "rustc 1.1.0 (def 2020-02-02)\n";
        let kept_new = prepare(&kept, &copy_dir(&cache, &kept, updated), updated).unwrap();
        assert!(!kept_copy.exists());
        assert!(is_copy(&kept_new, updated) && is_copy(&new_copy, V));
        // A source whose path cannot be written on the mark's line: its copy
        // is never taken for stale.
        let odd = t.path().join(std::ffi::OsStr::from_bytes(b"lib\xff"));
        library(&odd);
        let odd_copy = prepare(&odd, &copy_dir(&cache, &odd, V), V).unwrap();
        prepare(&new, &copy_dir(&cache, &new, updated), updated).unwrap();
        assert!(is_copy(&odd_copy, V));
    }
}
