//! `puzzlebook exercises release`: the student edition of notebooks with
//! exercises (solutions replaced by stubs, hidden tests removed), and with
//! `--pages` of the book.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};
use clap::{Args, Subcommand};
use puzzlebook_cli::course::release;
use puzzlebook_cli::notebook::chapter::{Book, Chapter, Edition, INDEX};
use puzzlebook_cli::notebook::io;
use puzzlebook_cli::notebook::ipynb::Notebook;
use puzzlebook_cli::notebook::nbgrader;
use puzzlebook_cli::render::html;

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
    // A folder that does not exist yet is no notebook's folder.
    let out_dir = a.out.canonicalize().ok();
    // Every notebook is checked before anything is written.
    let mut released = Vec::new();
    for path in &notebooks {
        let nb = io::load_notebook(path)?;
        let student =
            release::release(&nb).with_context(|| format!("releasing {}", path.display()))?;
        let exercises = nbgrader::exercise_cells(&nb)?.len();
        let name = path
            .file_name()
            .with_context(|| format!("{} is not a file", path.display()))?;
        if out_dir.as_deref().is_some_and(|d| same_dir(path, d)) {
            bail!(
                "--out {} is the folder of {}: the release would overwrite the teacher's notebook; choose another folder",
                a.out.display(),
                path.display()
            );
        }
        released.push((a.out.join(name), student, exercises));
    }
    // The teacher's book must not be overwritten with the students'.
    let index = a.out.join(INDEX);
    if a.pages
        && std::fs::read_to_string(&index).is_ok_and(|text| !text.contains(html::STUDENT_EDITION))
    {
        bail!(
            "--out {} holds a book that is not a student edition ({}); the student pages would overwrite it; choose another folder",
            a.out.display(),
            index.display()
        );
    }
    std::fs::create_dir_all(&a.out)
        .with_context(|| format!("cannot create the release folder {}", a.out.display()))?;
    for (target, student, exercises) in &released {
        io::write_atomic(target, &student.to_json())?;
        println!(
            "{}: {exercises} exercise cell{}",
            target.display(),
            if *exercises == 1 { "" } else { "s" }
        );
    }
    if a.pages {
        let edition: Vec<(&Notebook, Chapter)> = released
            .iter()
            .map(|(target, student, _)| {
                let name = target.file_name().unwrap_or_default().to_string_lossy();
                (student, Chapter::of(student, &name))
            })
            .collect();
        let mut chapters: Vec<Chapter> = edition.iter().map(|(_, c)| c.clone()).collect();
        chapters.sort_by(|x, y| x.stem.cmp(&y.stem));
        let book = Book {
            chapters,
            root_from_reports: String::new(),
            edition: Edition::Student,
        };
        for (student, chapter) in &edition {
            let page = io::inside(&a.out, &chapter.page())?;
            io::write_atomic(&page, &html::page(student, chapter, &book))?;
            println!("{}", page.display());
        }
        let index = io::inside(&a.out, INDEX)?;
        io::write_atomic(&index, &html::index(&book))?;
        println!("{}", index.display());
    }
    Ok(Exit::Ok)
}

fn same_dir(path: &Path, dir: &Path) -> bool {
    path.canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .is_some_and(|p| p == dir)
}
