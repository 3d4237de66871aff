//! Where a project's things are (checkout, reports, build folder, limits,
//! jobs), and how its paths are shown in reports and messages.

use std::path::{Path, PathBuf};

use super::RunnerError;
use crate::engine;
use crate::notebook::chapter::{Book, Chapter, Edition};
use crate::notebook::io;
use crate::notebook::ipynb::Notebook;
use crate::runner::execute::CellLimits;

/// Where things are.
#[derive(Debug, Clone)]
pub struct Project {
    /// The checkout: the library's `Cargo.toml` and `src/`, and `Cargo.lock`,
    /// are fingerprinted ([`crate::runner::hash`]).
    pub root: PathBuf,
    /// Where reports go (`<root>/reports`).
    pub reports: PathBuf,
    /// The evcxr build folder.
    pub build_dir: PathBuf,
    /// How long one cell may run, and how much memory the cells may hold.
    pub limits: CellLimits,
    /// How many notebooks `report` and `check --execute` may execute at once,
    /// each with an evcxr engine and build folder of its own.
    pub jobs: usize,
}

impl Project {
    /// A project rooted at `root`, reports in `<root>/reports`, the default build folder.
    pub fn new(root: &Path) -> Project {
        Project {
            root: root.to_path_buf(),
            reports: root.join("reports"),
            build_dir: engine::evcxr_dir(),
            limits: CellLimits::default(),
            jobs: 1,
        }
    }

    /// The notebooks to work on: `given`, or every `<root>/notebooks/*.ipynb`.
    pub fn notebooks(&self, given: &[PathBuf]) -> Result<Vec<PathBuf>, RunnerError> {
        if !given.is_empty() {
            return Ok(given.to_vec());
        }
        let dir = self.root.join("notebooks");
        let found = io::notebooks_in(&dir)?;
        if found.is_empty() {
            return Err(RunnerError::NoNotebooks(dir));
        }
        Ok(found)
    }

    /// The book: every notebook in `<root>/notebooks` as a chapter, in order
    /// (`loaded` gives those already read by their labels; the others are read
    /// for their titles). Notebooks given from elsewhere are rendered but not
    /// listed.
    pub(super) fn book<'a>(
        &self,
        loaded: impl Fn(&str) -> Option<&'a Notebook>,
    ) -> Result<Book, RunnerError> {
        let dir = self.root.join("notebooks");
        let paths = if dir.is_dir() {
            io::notebooks_in(&dir)?
        } else {
            Vec::new()
        };
        let mut chapters = Vec::new();
        for p in paths {
            let label = self.label(&p);
            let chapter = match loaded(&label) {
                Some(nb) => Chapter::of(nb, &label),
                None => Chapter::of(&io::load_notebook(&p)?, &label),
            };
            chapters.push(chapter);
        }
        Ok(Book {
            chapters,
            root_from_reports: self.root_from_reports(),
            edition: Edition::Teacher,
        })
    }

    /// The checkout as a relative URL from the reports folder: `../` for
    /// `<root>/reports`. Empty when the reports are outside the checkout (the
    /// pages' links to notebooks then name them relative to the checkout).
    fn root_from_reports(&self) -> String {
        let parent = self.reports.parent().unwrap_or(Path::new("."));
        let parent = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
        let reports = parent.join(self.reports.file_name().unwrap_or_default());
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        match reports.strip_prefix(&root) {
            Ok(rel) => "../".repeat(rel.components().count()),
            Err(_) => String::new(),
        }
    }

    /// The notebook's path as shown in reports and messages: relative to the
    /// root when inside it, else its file name (never an absolute path).
    pub fn label(&self, path: &Path) -> String {
        // Canonicalise the nearest folder that exists (a report, or the
        // reports folder itself, may not exist yet), then add the rest back.
        let abs = |p: &Path| -> PathBuf {
            let p = if p.is_absolute() {
                p.to_path_buf()
            } else {
                std::env::current_dir().unwrap_or_default().join(p)
            };
            let mut rest = Vec::new();
            let mut cur = p.as_path();
            loop {
                if let Ok(c) = std::fs::canonicalize(cur) {
                    return rest
                        .iter()
                        .rev()
                        .fold(c, |acc: PathBuf, part| acc.join(part));
                }
                match (cur.parent(), cur.file_name()) {
                    (Some(parent), Some(name)) => {
                        rest.push(name.to_os_string());
                        cur = parent;
                    }
                    _ => return p.clone(),
                }
            }
        };
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        match abs(path).strip_prefix(&root) {
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
        }
    }

    /// A file in the reports folder (`name` relative to it) as shown in messages.
    pub(super) fn report_label(&self, name: &str) -> String {
        self.label(&self.reports.join(name))
    }

    /// The fingerprint of the crate the notebooks load ([`crate::runner::hash::fingerprint`]).
    pub(super) fn fingerprint(&self) -> Result<String, RunnerError> {
        crate::runner::hash::fingerprint(&self.root).map_err(|source| RunnerError::Fingerprint {
            path: self.root.clone(),
            source,
        })
    }
}

/// The folder a notebook is in, `.` for a bare file name.
pub(super) fn folder_of(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
}
