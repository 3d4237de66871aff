//! `puzzlebook check`: compare notebooks and reports with their sources; never writes.

use std::path::PathBuf;

use clap::Args;
use puzzlebook_cli::ops;
use puzzlebook_cli::runner::mode::Mode;

use super::{Exit, JobsArgs, ProjectArgs};

/// Arguments of `check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Notebooks to check (default: every notebooks/*.ipynb).
    notebooks: Vec<PathBuf>,
    /// Also execute the notebooks and compare every output byte for byte.
    #[arg(long)]
    execute: bool,
    #[command(flatten)]
    jobs: JobsArgs,
    #[command(flatten)]
    project: ProjectArgs,
}

/// Checks; exit code 1 on any difference.
pub fn execute(a: CheckArgs) -> anyhow::Result<Exit> {
    // Ctrl-C stops the run between steps, with nothing half-written.
    puzzlebook_cli::engine::catch_interrupts();
    let mode = Mode::Check { execute: a.execute };
    let project = a.jobs.apply(a.project.project());
    Ok(ops::report(&project, &a.notebooks, mode)?.into())
}
