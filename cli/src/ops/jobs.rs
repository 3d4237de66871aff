//! `-j N`: notebooks executed at once, one evcxr engine and build folder per
//! job, a thread per running notebook.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use indicatif::{MultiProgress, ProgressDrawTarget};

use super::paths::Project;
use super::progress::{bar, cell_progress, Took};
use super::RunnerError;
use crate::engine::{self, BuildDirLock, EngineError, EngineScope};
use crate::notebook::ipynb::Notebook;
use crate::runner::execute::{self, CellResults};

/// A notebook to execute: its index in the caller's list, label and cells.
pub(super) struct Job<'a> {
    /// Where the caller keeps it.
    pub index: usize,
    /// Its path as shown.
    pub label: &'a str,
    /// The notebook.
    pub nb: &'a Notebook,
    /// Where its cells hand answers or a reference over, and through which
    /// variable ([`EngineScope::hand_over`]); `None` for a run that grades
    /// nothing.
    pub hand_over: Option<(&'static str, PathBuf)>,
}

/// A job's cells and time, or why it stopped. Unless it ran past failures,
/// its cells are all outputs or end at the first failure.
pub(super) type Ran = Result<(CellResults, Took), RunnerError>;

/// Executes `jobs` (all in the working folder `folder`, started in the order
/// given) up to `project.jobs` at once, and returns each one's result by index.
///
/// The first job uses the build folder `base`, which the caller holds and
/// which has been built; job `k` the folder [`engine::job_dir`] names, which
/// starts as a copy of `base` ([`engine::copy_build`]). A folder another run
/// holds is not used, so fewer jobs may run. After a notebook fails, no
/// further notebook starts; the caller writes the results in its own order,
/// executes on its own any notebook that did not start, and stops at the
/// first failure, as a run of one job at a time would.
///
/// With `past_failures` (grading), each notebook runs past its failing cells
/// ([`execute::run_started_past_failures`]), and one notebook's failures do
/// not keep the others from starting; an interrupt still does.
pub(super) fn execute_at_once(
    project: &Project,
    base: &Path,
    folder: &Path,
    jobs: &[Job<'_>],
    past_failures: bool,
) -> Result<Vec<(usize, Ran)>, RunnerError> {
    let mut extra = Vec::new();
    for k in 1..project.jobs.min(jobs.len()) {
        let dir = engine::job_dir(base, k);
        let held = match BuildDirLock::acquire(&dir) {
            Ok(held) => held,
            Err(EngineError::Busy(_)) => break,
            Err(e) => return Err(e.into()),
        };
        if !engine::has_built_crate(&dir) {
            eprintln!(
                "note: copying the build in {} to {} for another engine (once)",
                base.display(),
                dir.display()
            );
            if !engine::copy_build(base, &dir) {
                // A cold folder would build z3 and polars again.
                eprintln!("note: could not copy it; running fewer notebooks at once");
                break;
            }
        }
        extra.push(held);
    }
    // Paths are made absolute before the working directory moves, and the
    // scope puts the directory and the environment back at its end.
    let mut scope = EngineScope::enter()?;
    let dirs: Vec<PathBuf> = std::iter::once(base)
        .chain(extra.iter().map(|l| l.dir.as_path()))
        .map(|d| scope.absolute(d))
        .collect();
    let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let root = scope.absolute(&project.root);
    scope.chdir(folder)?;
    Ok(run_jobs(
        project,
        &mut scope,
        jobs,
        &root,
        &dirs,
        past_failures,
    ))
}

/// [`execute_at_once`]'s threads: one per running notebook, one per build
/// folder in `dirs` at most.
///
/// Engines start on this thread, one at a time, because evcxr takes its
/// build folder from the process environment when an engine starts. Other
/// engines' threads run meanwhile; they read the environment only through
/// Rust's `std::env` and `Command`, which take the same lock as setting it.
fn run_jobs(
    project: &Project,
    engines: &mut EngineScope,
    jobs: &[Job<'_>],
    root: &Path,
    dirs: &[&Path],
    past_failures: bool,
) -> Vec<(usize, Ran)> {
    let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
    let failed = AtomicBool::new(false);
    let limits = project.limits;
    std::thread::scope(|scope| {
        let (free, freed) = std::sync::mpsc::channel::<usize>();
        for k in 0..dirs.len() {
            let _ = free.send(k);
        }
        let mut running = Vec::new();
        let mut results = Vec::new();
        for job in jobs {
            let Ok(k) = freed.recv() else { break };
            if engine::interrupted() || failed.load(Ordering::SeqCst) {
                break;
            }
            if let Some((var, dir)) = &job.hand_over {
                engines.hand_over(var, dir);
            }
            let started = engine::pin_versions(root, dirs[k], job.nb.depends_on_crate())
                .map_err(RunnerError::from)
                .and_then(|()| Ok(execute::start(engines, job.label, dirs[k], limits)?));
            if dirs.len() > 1 {
                engines.stop_handing_over();
            }
            let started = match started {
                Ok(started) => started,
                Err(e) => {
                    results.push((job.index, Err(e)));
                    break;
                }
            };
            let total = job.nb.code_cells().count();
            let pb = multi.add(bar(job.label, total));
            let (free, failed) = (free.clone(), &failed);
            running.push((
                job.index,
                scope.spawn(move || {
                    let t0 = Instant::now();
                    let mut progress = cell_progress(&pb, job.label, false, false);
                    let out = if past_failures {
                        execute::run_started_past_failures(
                            started,
                            job.nb,
                            job.label,
                            limits,
                            &mut progress,
                        )
                    } else {
                        execute::run_started(started, job.nb, job.label, limits, &mut progress)
                            .map(|cells| cells.into_iter().map(Ok).collect())
                    };
                    pb.finish_and_clear();
                    if out.is_err() {
                        failed.store(true, Ordering::SeqCst);
                    }
                    let _ = free.send(k);
                    out.map(|o| (o, Took::since(t0, total)))
                        .map_err(RunnerError::from)
                }),
            ));
        }
        for (i, handle) in running {
            let out = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            results.push((i, out));
        }
        results
    })
}
