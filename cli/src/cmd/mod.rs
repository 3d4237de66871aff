//! One file per command, each with its arguments and its `execute`, as mdBook
//! lays out its commands; and what they share: the project arguments, the exit
//! codes, and printing an error.

pub mod bench;
pub mod check;
pub mod exercises;
pub mod grade;
pub mod kernel;
pub mod report;
pub mod run;
pub mod solve;
pub mod version;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use puzzlebook_cli::ops::{Project, RunnerError, Verdict};
use puzzlebook_cli::runner::execute::ExecError;
use puzzlebook_cli::{engine, limits};

/// How a command that did not fail ended; the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// Solved, fresh, identical, written.
    Ok = 0,
    /// "No": a puzzle has no solution, or a check found differences.
    No = 1,
}

/// The exit code of an error: bad input, a failing cell, a crash of a stage.
pub const EXIT_ERROR: u8 = 2;

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells report it).
pub const EXIT_INTERRUPTED: u8 = 130;

impl From<Verdict> for Exit {
    fn from(v: Verdict) -> Exit {
        match v {
            Verdict::Ok => Exit::Ok,
            Verdict::Differences => Exit::No,
        }
    }
}

/// Prints `e` and its causes, each once, and returns the error exit code.
///
/// Library errors say their cause in their own message, and anyhow's chain
/// repeats it; a cause whose text is already printed is not printed again.
pub fn fail(e: &anyhow::Error) -> ExitCode {
    eprintln!("error: {}", error_text(e));
    let interrupted = e.chain().any(|c| {
        matches!(
            c.downcast_ref(),
            Some(RunnerError::Interrupted | RunnerError::Exec(ExecError::Interrupted { .. }))
        )
    });
    ExitCode::from(if interrupted {
        EXIT_INTERRUPTED
    } else {
        EXIT_ERROR
    })
}

fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if text.contains(&c) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&c);
    }
    text
}

/// Where a checkout's files are: `--root` and `--reports`.
#[derive(Debug, Args)]
pub struct ProjectArgs {
    /// The puzzlebook checkout (its Cargo.toml, Cargo.lock, src/, notebooks/ and reports/).
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Where reports go (default: ROOT/reports).
    #[arg(long)]
    pub reports: Option<PathBuf>,
    /// Stop a cell still running after this many seconds (its evcxr process is
    /// killed, nothing is written, exit code 2).
    #[arg(long, env = "PUZZLEBOOK_CELL_TIMEOUT", value_name = "SECONDS", default_value_t = engine::DEFAULT_CELL_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    pub cell_timeout: u64,
    /// How much memory the cells' process may hold, such as 2G or 512M, or
    /// off: a cell that allocates past it is stopped, nothing is written, exit
    /// code 2. Default: half of this machine's memory.
    #[arg(long, env = limits::CELL_MEMORY_ENV, value_name = "SIZE", value_parser = memory_limit)]
    pub cell_memory: Option<MemoryLimit>,
}

/// A `--cell-memory` value: bytes, or `None` for `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryLimit(pub Option<u64>);

fn memory_limit(text: &str) -> Result<MemoryLimit, String> {
    limits::parse_memory(text).map(MemoryLimit)
}

/// How many notebooks `report` and `check` execute at once.
#[derive(Debug, Args)]
pub struct JobsArgs {
    /// Execute up to N notebooks at once, each with an evcxr engine and build
    /// folder of its own; the second and later folders start as a copy of the
    /// first (about 1.6 GB each). Default: 2, or 1 on a one-core machine; one
    /// at a time while the first folder has not been built yet.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=16))]
    jobs: Option<u64>,
}

impl JobsArgs {
    /// `project`, executing as many notebooks at once as `-j` says, else
    /// two where the machine has two cores or more. More would cost a build
    /// folder each for little: notebook 04 takes about as long as the other
    /// three together.
    pub fn apply(&self, project: Project) -> Project {
        let jobs = self.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get().min(2)),
            |n| n as usize,
        );
        Project { jobs, ..project }
    }
}

impl ProjectArgs {
    /// The project these arguments name.
    pub fn project(&self) -> Project {
        let mut p = Project::new(&self.root);
        if let Some(r) = &self.reports {
            p.reports = r.clone();
        }
        p.limits.timeout = std::time::Duration::from_secs(self.cell_timeout);
        if let Some(MemoryLimit(memory)) = self.cell_memory {
            p.limits.memory = memory;
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_printed_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("not valid JSON (EOF); fix the file")]
        struct Inner;
        #[derive(Debug, thiserror::Error)]
        #[error("x.ipynb is not a usable notebook: {0}")]
        struct Outer(#[source] Inner);
        let e = anyhow::Error::new(Outer(Inner)).context("loading x.ipynb");
        assert_eq!(
            error_text(&e),
            "loading x.ipynb: x.ipynb is not a usable notebook: not valid JSON (EOF); fix the file"
        );
    }
}
