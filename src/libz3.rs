//! Which Z3 this build was compiled against, and which libz3 the process loaded.
//!
//! The z3 crate needs Z3 4.13.3 or later; Debian bookworm ships 4.8.12, which
//! puzzlebook is tested on too (README, "Z3 versions"). A z3 function newer
//! than the Z3 a build links fails to link, with an undefined reference to a
//! `Z3_…` symbol; [`Libz3::support_note`] says why in words.

use std::fmt;
use std::path::PathBuf;

/// The Z3 version z3-sys found when this crate was built (from pkg-config,
/// or the `z3` command), as `major.minor.patch`.
pub const BUILT_AGAINST: &str = env!("PUZZLEBOOK_Z3_BUILT");

/// The oldest Z3 the z3 crate supports (z3-sys's `MIN_SUPPORTED`).
pub const MIN_SUPPORTED: &str = env!("PUZZLEBOOK_Z3_MIN_SUPPORTED");

/// The Z3 versions puzzlebook's CI runs on: Debian bookworm's libz3, and the
/// z3-solver wheel that `scripts/with-z3-wheel` builds against.
pub const TESTED: [&str; 2] = ["4.8.12", "5.4.1"];

/// The libz3 this process runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Libz3 {
    /// `major.minor.patch`, from `Z3_get_version`.
    pub version: String,
    /// The file the dynamic loader mapped, where the system says
    /// (`/proc/self/maps`); `None` when Z3 is linked statically or elsewhere.
    pub file: Option<PathBuf>,
}

/// The libz3 this process loaded.
pub fn loaded() -> Libz3 {
    let (mut major, mut minor, mut patch, mut revision) = (0, 0, 0, 0);
    // SAFETY: Z3_get_version only writes the four integers it is given.
    unsafe { z3_sys::Z3_get_version(&mut major, &mut minor, &mut patch, &mut revision) };
    Libz3 {
        version: format!("{major}.{minor}.{patch}"),
        file: mapped_file(),
    }
}

fn mapped_file() -> Option<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| {
            let name = path.rsplit('/').next().unwrap_or(path);
            name == "libz3.so" || name.starts_with("libz3.so.")
        })
        .map(PathBuf::from)
}

/// `"4.8.12"` as `[4, 8, 12]`; parts that are not numbers are dropped.
fn parts(version: &str) -> Vec<u32> {
    version.split('.').filter_map(|p| p.parse().ok()).collect()
}

/// Whether `version` is older than `than` (both dotted).
pub fn older(version: &str, than: &str) -> bool {
    parts(version) < parts(than)
}

impl Libz3 {
    /// What a user of this Z3 should know, or `None` when there is nothing to
    /// say: a Z3 older than the z3 crate supports, a Z3 puzzlebook is not
    /// tested on, or a loaded libz3 that is not the one the build was
    /// compiled against.
    pub fn support_note(&self) -> Option<String> {
        let mut notes = Vec::new();
        if self.version != BUILT_AGAINST {
            notes.push(format!(
                "this build was compiled against Z3 {BUILT_AGAINST} but loaded Z3 {}: \
                 rebuild, or point LD_LIBRARY_PATH at the libz3 it was built with",
                self.version
            ));
        }
        if older(&self.version, MIN_SUPPORTED) {
            notes.push(format!(
                "Z3 {} is older than {MIN_SUPPORTED}, the oldest the z3 crate supports; \
                 a z3 function newer than it fails to link (undefined reference to `Z3_…`)",
                self.version
            ));
        }
        if !TESTED.contains(&self.version.as_str()) {
            notes.push(format!(
                "puzzlebook is tested on Z3 {}; on Z3 {} the answers are the same, but \
                 where Z3 chooses (which expression, which model first) outputs may differ",
                TESTED.join(" and "),
                self.version
            ));
        }
        (!notes.is_empty()).then(|| notes.join("\n"))
    }
}

impl fmt::Display for Libz3 {
    /// `Z3 4.8.12 (/usr/lib/x86_64-linux-gnu/libz3.so.4)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Z3 {}", self.version)?;
        if let Some(file) = &self.file {
            write!(f, " ({})", file.display())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_number_not_text() {
        assert!(older("4.8.12", "4.13.3"));
        assert!(!older("4.13.3", "4.13.3"));
        assert!(!older("5.4.1", "4.13.3"));
        assert!(older("4.13.2", "4.13.3"));
    }

    #[test]
    fn a_tested_supported_z3_needs_no_note_and_an_old_one_says_why() {
        let ok = Libz3 {
            version: "5.4.1".into(),
            file: None,
        };
        let note = ok.support_note().unwrap_or_default();
        assert!(!note.contains("older than"), "{note}");
        assert!(!note.contains("tested on"), "{note}");
        let old = Libz3 {
            version: "4.8.12".into(),
            file: Some("/usr/lib/libz3.so.4".into()),
        };
        let note = old.support_note().unwrap();
        assert!(note.contains("Z3 4.8.12 is older than 4.13.3"), "{note}");
        assert!(note.contains("undefined reference"), "{note}");
        assert_eq!(old.to_string(), "Z3 4.8.12 (/usr/lib/libz3.so.4)");
        let untested = Libz3 {
            version: "4.15.4".into(),
            file: None,
        };
        assert!(untested
            .support_note()
            .unwrap()
            .contains("tested on Z3 4.8.12 and 5.4.1"));
    }
}
