//! `puzzlebook run NOTEBOOK`: execute a notebook and print each cell's output.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use puzzlebook_cli::ops;

use super::{Exit, ProjectArgs};

/// Arguments of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The notebook (.ipynb).
    notebook: PathBuf,
    /// Print each cell's time and number of compiles on stderr
    #[arg(long)]
    timings: bool,
    #[command(flatten)]
    project: ProjectArgs,
}

/// Runs the notebook; writes nothing.
pub fn execute(a: RunArgs) -> anyhow::Result<Exit> {
    // Ctrl-C stops the run between steps, with nothing half-written.
    puzzlebook_cli::engine::catch_interrupts();
    let v = ops::run(&a.project.project(), &a.notebook, a.timings)
        .with_context(|| format!("running {}", a.notebook.display()))?;
    Ok(v.into())
}
