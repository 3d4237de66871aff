//! The pipeline wired to a project's files: `run`, `report` and `check` load
//! notebooks, decide freshness, execute, render and compare, with progress;
//! `grade` runs students' submissions and writes their grades.
//! They return what happened; the binary maps it to the process exit code.
//!
//! One job per file, as cargo's `ops/`: [`paths`] (where things are and how
//! they are shown), [`progress`] (bars and timing lines), [`run`] (one
//! notebook on this thread: `run`), [`report`] (`report` and `check`: plan,
//! check, update, index, summary), [`jobs`] (`-j`, one engine per job) and
//! [`grade`] (`grade`: submissions run past their failures, then scored),
//! [`sandbox`] (a submission's sandbox) and [`sandboxed`] (runs in them),
//! [`judging`] (each answer judged in a process of its own), with
//! [`release`] (`exercises release`), [`kit`] (its `--kit`, a folder a
//! student uses alone) and [`solve`] (`solve`'s answers).

use std::path::PathBuf;

use thiserror::Error;

use crate::engine::EngineError;
use crate::notebook::io::IoError;
use crate::notebook::nbgrader::ExerciseError;
use crate::runner::execute::ExecError;

mod grade;
mod jobs;
mod judging;
pub mod kit;
mod paths;
mod progress;
pub mod release;
mod report;
mod run;
mod sandbox;
mod sandboxed;
pub mod solve;

pub use grade::{grade, Grading, Outcome};
pub use judging::run_judge_job;
pub use paths::Project;
pub use progress::{parse_timing_line, timing_line};
pub use report::report;
pub use run::run;
pub use sandbox::SandboxError;
pub use sandboxed::run_job;

/// A runner failure (exit code 2): bad input, a failing cell, a busy build folder.
#[derive(Debug, Error)]
pub enum RunnerError {
    /// A file problem.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A cell or the engine failed.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// The evcxr build folder cannot be used.
    #[error(transparent)]
    BuildDir(#[from] EngineError),
    /// The crate's sources could not be fingerprinted.
    #[error("cannot fingerprint the crate at {path}: {source}; run from the puzzlebook folder or pass --root")]
    Fingerprint {
        /// The crate folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Ctrl-C before anything was written for the next notebook.
    #[error("interrupted; the notebooks and reports not yet written were left as they were")]
    Interrupted,
    /// No notebooks were found.
    #[error("no notebooks in {0}; pass notebook paths or --root")]
    NoNotebooks(PathBuf),
    /// The source notebook's exercises cannot be read.
    #[error("{path}: {source}")]
    Exercises {
        /// The source notebook.
        path: PathBuf,
        /// What is wrong.
        source: ExerciseError,
    },
    /// Submissions cannot be sandboxed here.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The teacher's notebook, run for the reference answers, did not give them.
    #[error("the teacher's notebook, run for the reference answers, {0}")]
    Reference(String),
    /// The source notebook has nothing to grade.
    #[error("{0} has no exercise with a test cell (nbgrader metadata with \"grade\": true and points), so there is nothing to grade; pass the teacher's notebook as --source")]
    NoExercises(PathBuf),
}

/// How a command ended, short of an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Everything fresh and identical, or written.
    Ok,
    /// A check found differences (exit code 1).
    Differences,
}
