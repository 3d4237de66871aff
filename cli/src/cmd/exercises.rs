//! `puzzlebook exercises release`: the student edition of notebooks with
//! exercises (solutions replaced by stubs, hidden tests removed), with
//! `--pages` of the book, and with `--kit` a folder a student uses alone.

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
    /// must not be the folder of a notebook it releases. With --kit, the
    /// kit's folder, and the notebooks go to its notebooks/.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The puzzlebook checkout (for the default notebooks).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Also write the student edition of the book beside them: a page per
    /// released notebook and an index, with no solution and no hidden test.
    #[arg(long)]
    pages: bool,
    /// Write a student kit: the notebooks under notebooks/, and beside them
    /// the crate they load (from --root) with a README, and nothing of the
    /// teacher's; refused if any file of it holds a line of a solution or a
    /// hidden test that the notebooks do not show.
    #[arg(long)]
    kit: bool,
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
    let written = |w: &ops::release::Written| match w.exercises {
        Some(n) => outln!(
            "{}: {n} exercise cell{}",
            w.path.display(),
            if n == 1 { "" } else { "s" }
        ),
        None => outln!("{}", w.path.display()),
    };
    match a.kit {
        true => ops::kit::kit(&a.root, &notebooks, &a.out, a.pages, written)?,
        false => ops::release::release(&notebooks, &a.out, a.pages, written)?,
    }
    Ok(Exit::Ok)
}
