//! File I/O at the edges: reading notebooks, atomic writes, finding notebooks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::notebook::chapter::{self, Chapter};
use crate::notebook::ipynb::{Notebook, NotebookError};

/// A file that could not be read or written.
#[derive(Debug, Error)]
pub enum IoError {
    /// Reading failed.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Writing failed; the old file is untouched.
    #[error("cannot write {path} (the old file is untouched): {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Removing a file left over from an earlier run failed.
    #[error(
        "cannot remove {path}, which the notebook no longer renders: {source}; remove it by hand"
    )]
    Remove {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A path the pipeline was about to write lies outside its folder.
    #[error("refusing to write {name:?}: it would land outside {root}; nothing was written")]
    Outside {
        /// The folder everything must stay in.
        root: PathBuf,
        /// The relative path asked for.
        name: String,
    },
    /// A notebook is malformed.
    #[error("{path} is not a usable notebook: {source}")]
    Notebook {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: NotebookError,
    },
}

/// Reads and parses a notebook, naming the file in any error.
pub fn load_notebook(path: &Path) -> Result<Notebook, IoError> {
    let text = std::fs::read_to_string(path).map_err(|source| IoError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Notebook::parse(&text).map_err(|source| IoError::Notebook {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads a file that may not exist yet.
pub fn read_optional(path: &Path) -> Result<Option<String>, IoError> {
    match std::fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(IoError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// `root` joined with `name`, a path relative to it made of plain file and
/// folder names only: no `..`, no root, nothing absolute. Every file the
/// pipeline writes under the reports folder goes through this, so a name read
/// from a notebook can never send a write elsewhere.
pub fn inside(root: &Path, name: &str) -> Result<PathBuf, IoError> {
    use std::path::Component;
    let rel = Path::new(name);
    let plain = !name.is_empty() && rel.components().all(|c| matches!(c, Component::Normal(_)));
    if !plain {
        return Err(IoError::Outside {
            root: root.to_path_buf(),
            name: name.to_string(),
        });
    }
    Ok(root.join(rel))
}

/// Writes `contents` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over the target. A crash at any point leaves
/// either the old file or the new one, never a mix.
///
/// The file keeps the mode of the one it replaces; a new file gets the mode
/// the umask gives (`rw-r--r--` with the usual 022), as any editor's would,
/// rather than the owner-only mode of a temporary file.
pub fn write_atomic(path: &Path, contents: &str) -> Result<(), IoError> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let err = |source| IoError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(err)?;
    let old_mode = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut tmp = tempfile::Builder::new()
        .prefix(".puzzlebook-")
        .suffix(".tmp")
        // Created through open(2), so the umask applies as to any new file.
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(err)?;
    if let Some(mode) = old_mode {
        tmp.as_file().set_permissions(mode).map_err(err)?;
    }
    tmp.write_all(contents.as_bytes()).map_err(err)?;
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// The files `chapter` has in the reports folder, keyed by path relative to
/// it: its org report, its page and everything in its figure folder. Files
/// that do not exist are left out.
pub fn read_rendered(
    reports: &Path,
    chapter: &Chapter,
) -> Result<BTreeMap<String, String>, IoError> {
    let mut names = vec![chapter.org(), chapter.page()];
    let figures = chapter::figure_dir(&chapter.stem);
    match std::fs::read_dir(reports.join(&figures)) {
        Ok(entries) => {
            for e in entries.flatten() {
                if e.file_type().is_ok_and(|t| t.is_file()) {
                    names.push(format!("{figures}/{}", e.file_name().to_string_lossy()));
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(IoError::Read {
                path: reports.join(&figures),
                source,
            })
        }
    }
    let mut out = BTreeMap::new();
    for name in names {
        if let Some(text) = read_optional(&reports.join(&name))? {
            out.insert(name, text);
        }
    }
    Ok(out)
}

/// Removes a file; one that is already gone is fine.
pub fn remove(path: &Path) -> Result<(), IoError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(IoError::Remove {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The `.ipynb` files in `dir`, sorted by name.
pub fn notebooks_in(dir: &Path) -> Result<Vec<PathBuf>, IoError> {
    let entries = std::fs::read_dir(dir).map_err(|source| IoError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ipynb"))
        .collect();
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_files() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.org");
        write_atomic(&p, "one").unwrap();
        write_atomic(&p, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        let names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn atomic_writes_keep_the_old_mode_and_give_new_files_the_umasks() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("page.html");
        write_atomic(&p, "one").unwrap();
        // What open(2) gives a new file under this process's umask, found
        // independently of the code under test.
        let probe = d.path().join("probe");
        std::fs::File::create(&probe).unwrap();
        assert_eq!(mode(&p), mode(&probe), "a new file follows the umask");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, "two").unwrap();
        assert_eq!(mode(&p), 0o640, "a replaced file keeps its mode");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        write_atomic(&p, "three").unwrap();
        assert_eq!(mode(&p), 0o755);
    }

    #[test]
    fn only_plain_relative_names_stay_inside() {
        let root = Path::new("/book/reports");
        assert_eq!(
            inside(root, "figures/a/g.svg").unwrap(),
            Path::new("/book/reports/figures/a/g.svg")
        );
        for bad in [
            "../x.svg",
            "figures/../../x.svg",
            "figures/a/../../../../tmp/x.svg",
            "/tmp/x.svg",
            "",
            ".",
            "./a/../b",
        ] {
            let e = inside(root, bad).unwrap_err();
            assert!(
                e.to_string().contains("outside /book/reports"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn rendered_files_are_read_with_their_figures() {
        let d = tempfile::tempdir().unwrap();
        write_atomic(&d.path().join("a.org"), "org").unwrap();
        write_atomic(&d.path().join("figures/a/g.svg"), "svg").unwrap();
        write_atomic(&d.path().join("figures/ab/h.svg"), "other chapter").unwrap();
        let chapter = Chapter {
            stem: "a".into(),
            source: "notebooks/a.ipynb".into(),
            title: "A".into(),
            summary: String::new(),
        };
        let got = read_rendered(d.path(), &chapter).unwrap();
        let names: Vec<&str> = got.keys().map(String::as_str).collect();
        assert_eq!(names, ["a.org", "figures/a/g.svg"]);
    }

    #[test]
    fn a_missing_notebook_names_its_path() {
        let e = load_notebook(Path::new("/nonexistent/x.ipynb")).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/x.ipynb"), "{e}");
    }
}
