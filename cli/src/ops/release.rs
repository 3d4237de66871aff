//! `exercises release`: teacher notebooks to their student releases and,
//! with `pages`, the student edition of the book; every notebook is checked
//! before anything is written.

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::course::release::release as release_notebook;
use crate::notebook::chapter::INDEX;
use crate::notebook::io::{self, IoError};
use crate::notebook::ipynb::Notebook;
use crate::notebook::nbgrader::{self, ExerciseError};
use crate::render::{book, html};

/// Why nothing was released.
#[derive(Debug, Error)]
pub enum ReleaseError {
    /// A file problem.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A notebook's exercises cannot be released.
    #[error("releasing {path}: {source}")]
    Exercises {
        /// The teacher's notebook.
        path: PathBuf,
        /// What is wrong.
        source: ExerciseError,
    },
    /// A path with no file name.
    #[error("{0} is not a file")]
    NotAFile(PathBuf),
    /// The release would overwrite the teacher's notebook.
    #[error("--out {out} is the folder of {notebook}: the release would overwrite the teacher's notebook; choose another folder")]
    TeachersFolder {
        /// The release folder.
        out: PathBuf,
        /// The notebook in it.
        notebook: PathBuf,
    },
    /// The release folder holds the teacher's book.
    #[error("--out {out} holds a book that is not a student edition ({index}); the student pages would overwrite it; choose another folder")]
    TeachersBook {
        /// The release folder.
        out: PathBuf,
        /// Its table of contents.
        index: PathBuf,
    },
    /// The release folder cannot be made.
    #[error("cannot create the release folder {out}: {source}")]
    CreateDir {
        /// The release folder.
        out: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// A file the release wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// Where.
    pub path: PathBuf,
    /// For a student notebook, its number of exercise cells.
    pub exercises: Option<usize>,
}

/// A release made but not written: each file, relative to the release
/// folder, with its text.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Each student notebook: its file name, itself, and its number of
    /// exercise cells.
    pub notebooks: Vec<(String, Notebook, usize)>,
    /// The student edition's pages, when asked for.
    pub pages: Vec<(String, String)>,
}

/// Releases `notebooks` into `out` under their own file names, and with
/// `pages` the student edition of the book beside them; `written` hears of
/// each file as it is written, so a failure leaves no doubt what was.
pub fn release(
    notebooks: &[PathBuf],
    out: &Path,
    pages: bool,
    written: impl FnMut(&Written),
) -> Result<(), ReleaseError> {
    let prepared = prepare(notebooks, out, pages)?;
    write(&prepared, out, written)
}

/// The release of `notebooks` into `out`, checked and made, with nothing
/// written: every reason [`release`] refuses is found here.
pub fn prepare(notebooks: &[PathBuf], out: &Path, pages: bool) -> Result<Prepared, ReleaseError> {
    // A folder that does not exist yet is no notebook's folder.
    let out_dir = out.canonicalize().ok();
    let mut released = Vec::new();
    for path in notebooks {
        let nb = io::load_notebook(path)?;
        let exercises = |source| ReleaseError::Exercises {
            path: path.clone(),
            source,
        };
        let student = release_notebook(&nb).map_err(exercises)?;
        let count = nbgrader::exercise_cells(&nb).map_err(exercises)?.len();
        let name = path
            .file_name()
            .ok_or_else(|| ReleaseError::NotAFile(path.clone()))?
            .to_string_lossy()
            .into_owned();
        if out_dir.as_deref().is_some_and(|d| same_dir(path, d)) {
            return Err(ReleaseError::TeachersFolder {
                out: out.to_path_buf(),
                notebook: path.clone(),
            });
        }
        released.push((name, student, count));
    }
    let index = out.join(INDEX);
    if pages
        && std::fs::read_to_string(&index).is_ok_and(|text| !text.contains(html::STUDENT_EDITION))
    {
        return Err(ReleaseError::TeachersBook {
            out: out.to_path_buf(),
            index,
        });
    }
    let pages = match pages {
        true => {
            let edition: Vec<(&Notebook, &str)> = released
                .iter()
                .map(|(name, student, _)| (student, name.as_str()))
                .collect();
            book::student_edition(&edition)
        }
        false => Vec::new(),
    };
    Ok(Prepared {
        notebooks: released,
        pages,
    })
}

/// Writes a prepared release into `out`; `written` hears of each file as
/// it is written.
pub fn write(
    prepared: &Prepared,
    out: &Path,
    mut written: impl FnMut(&Written),
) -> Result<(), ReleaseError> {
    std::fs::create_dir_all(out).map_err(|source| ReleaseError::CreateDir {
        out: out.to_path_buf(),
        source,
    })?;
    for (name, student, count) in &prepared.notebooks {
        let path = io::inside(out, name)?;
        io::write_atomic(&path, &student.to_json())?;
        written(&Written {
            path,
            exercises: Some(*count),
        });
    }
    for (rel, text) in &prepared.pages {
        let path = io::inside(out, rel)?;
        io::write_atomic(&path, text)?;
        written(&Written {
            path,
            exercises: None,
        });
    }
    Ok(())
}

fn same_dir(path: &Path, dir: &Path) -> bool {
    path.canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .is_some_and(|p| p == dir)
}
