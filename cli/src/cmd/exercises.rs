//! `puzzlebook exercises release`: the student edition of notebooks with
//! exercises (solutions replaced by stubs, hidden tests removed), and with
//! `--pages` of the book.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use puzzlebook_cli::notebook::io;
use puzzlebook_cli::{ops, outln};

use super::Exit;

/// The exercises subcommands.
#[derive(Debug, Subcommand)]
pub enum ExercisesCommand {
    /// Write student notebooks: each solution replaced by a stub that stops
    /// with its exercise's name, hidden tests removed, the outputs of solution
    /// and test cells cleared, every other cell as committed.
    Release(ReleaseArgs),
}

/// Arguments of `exercises release`.
#[derive(Debug, Args)]
pub struct ReleaseArgs {
    /// Teacher notebooks to release (default: every notebooks/*.ipynb under --root).
    notebooks: Vec<PathBuf>,
    /// The folder the student notebooks go to, under the same file names; it
    /// must not be the folder of a notebook it releases.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The puzzlebook checkout (for the default notebooks).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Also write the student edition of the book beside them: a page per
    /// released notebook and an index, with no solution and no hidden test.
    #[arg(long)]
    pages: bool,
}

/// Runs an exercises subcommand.
pub fn execute(c: ExercisesCommand) -> anyhow::Result<Exit> {
    match c {
        ExercisesCommand::Release(a) => release(a),
    }
}

fn release(a: ReleaseArgs) -> anyhow::Result<Exit> {
    let notebooks = if a.notebooks.is_empty() {
        io::notebooks_in(&a.root.join("notebooks"))?
    } else {
        a.notebooks
    };
    ops::release::release(&notebooks, &a.out, a.pages, |w| match w.exercises {
        Some(n) => outln!(
            "{}: {n} exercise cell{}",
            w.path.display(),
            if n == 1 { "" } else { "s" }
        ),
        None => outln!("{}", w.path.display()),
    })?;
    Ok(Exit::Ok)
}
