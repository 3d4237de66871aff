//! File I/O at the edges: reading notebooks, atomic writes, finding notebooks.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::book;
use super::notebook::{Notebook, NotebookError};

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

/// Writes `contents` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over the target. A crash at any point leaves
/// either the old file or the new one, never a mix.
pub fn write_atomic(path: &Path, contents: &str) -> Result<(), IoError> {
    use std::io::Write;
    let err = |source| IoError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(err)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".puzzlebook-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(err)?;
    tmp.write_all(contents.as_bytes()).map_err(err)?;
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// The files a chapter has in the reports folder, keyed by path relative to
/// it: `<stem>.org`, `<stem>.html` and everything in `figures/<stem>/`.
/// Files that do not exist are left out.
pub fn read_rendered(reports: &Path, stem: &str) -> Result<BTreeMap<String, String>, IoError> {
    let mut names = vec![format!("{stem}.org"), format!("{stem}.html")];
    let figures = book::figure_dir(stem);
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
    fn rendered_files_are_read_with_their_figures() {
        let d = tempfile::tempdir().unwrap();
        write_atomic(&d.path().join("a.org"), "org").unwrap();
        write_atomic(&d.path().join("figures/a/g.svg"), "svg").unwrap();
        write_atomic(&d.path().join("figures/ab/h.svg"), "other chapter").unwrap();
        let got = read_rendered(d.path(), "a").unwrap();
        let names: Vec<&str> = got.keys().map(String::as_str).collect();
        assert_eq!(names, ["a.org", "figures/a/g.svg"]);
    }

    #[test]
    fn a_missing_notebook_names_its_path() {
        let e = load_notebook(Path::new("/nonexistent/x.ipynb")).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/x.ipynb"), "{e}");
    }
}
