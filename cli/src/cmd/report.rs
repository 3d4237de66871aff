//! `puzzlebook report`: execute stale notebooks, write their outputs and reports.

use std::path::PathBuf;

use clap::Args;
use puzzlebook_cli::ops;
use puzzlebook_cli::runner::mode::Mode;

use super::{Exit, JobsArgs, ProjectArgs};

/// Arguments of `report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Notebooks to report (default: every notebooks/*.ipynb).
    notebooks: Vec<PathBuf>,
    /// Execute even when every hash matches.
    #[arg(long)]
    force: bool,
    /// Write even when CI is set.
    #[arg(long)]
    update: bool,
    #[command(flatten)]
    jobs: JobsArgs,
    #[command(flatten)]
    project: ProjectArgs,
}

/// Reports, or checks when `CI` is set and `--update` is not given.
pub fn execute(a: ReportArgs) -> anyhow::Result<Exit> {
    // Ctrl-C stops the run between steps, with nothing half-written.
    puzzlebook_cli::engine::catch_interrupts();
    let ci = std::env::var("CI").ok();
    let mode = Mode::for_report(a.force, a.update, ci.as_deref());
    if matches!(mode, Mode::Check { .. }) {
        eprintln!("CI is set: checking instead of writing (pass --update to write)");
    }
    let project = a.jobs.apply(a.project.project());
    Ok(ops::report(&project, &a.notebooks, mode)?.into())
}
