//! One notebook executed on this thread with its progress bar: all of `run`,
//! and `report` or `check` when notebooks execute one at a time.

use std::path::Path;
use std::time::Instant;

use super::paths::{folder_of, Project};
use super::progress::{bar, cell_progress, Took};
use super::{RunnerError, Verdict};
use crate::engine::{self, BuildDirLock};
use crate::notebook::io;
use crate::notebook::ipynb::{Notebook, Output};
use crate::runner::execute;

/// Takes the project's build folder, saying when its first cell will build
/// the dependencies.
pub(super) fn lock(project: &Project) -> Result<BuildDirLock, RunnerError> {
    let lock = BuildDirLock::acquire(&project.build_dir)?;
    if lock.cold {
        eprintln!(
            "note: the evcxr build folder {} is empty, so the first cell compiles z3, polars and \
             puzzlebook for evcxr; that takes several minutes (about 15 on two cores). Later runs \
             reuse it and take seconds per cell.",
            lock.dir.display()
        );
    }
    Ok(lock)
}

/// `puzzlebook run NOTEBOOK`: executes every cell, printing outputs (and with
/// `timings`, each cell's time and compiles); writes nothing.
pub fn run(project: &Project, path: &Path, timings: bool) -> Result<Verdict, RunnerError> {
    let nb = io::load_notebook(path)?;
    let lock = lock(project)?;
    let label = project.label(path);
    let (_, took) = run_cells(project, &lock, path, &nb, true, timings)?;
    eprintln!("{label}: {took}");
    Ok(Verdict::Ok)
}

/// Executes a notebook with a progress bar; `echo` prints each cell's output as
/// it comes, and `timings` each cell's time and compiles on stderr.
pub(super) fn run_cells(
    project: &Project,
    lock: &BuildDirLock,
    path: &Path,
    nb: &Notebook,
    echo: bool,
    timings: bool,
) -> Result<(Vec<Vec<Output>>, Took), RunnerError> {
    let label = project.label(path);
    let total = nb.code_cells().count();
    let pb = bar(&label, total);
    let started = Instant::now();
    engine::pin_versions(&project.root, &lock.dir, nb.depends_on_crate())?;
    let out = execute::execute(
        nb,
        &label,
        &folder_of(path),
        &lock.dir,
        project.limits,
        cell_progress(&pb, &label, echo, timings),
    );
    pb.finish_and_clear();
    Ok((out?, Took::since(started, total)))
}
