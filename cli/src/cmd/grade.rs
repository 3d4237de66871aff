//! `puzzlebook grade SUBMISSION… --source NOTEBOOK`: grade students'
//! notebooks against the teacher's, with its hidden tests.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::Args;
use puzzlebook_cli::ops::{self, Grading};

use super::{Exit, JobsArgs, ProjectArgs};

/// Arguments of `grade`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// The students' notebooks. Each names its student: its file's stem, or
    /// its folder's name when the file has the source's name
    /// (`alice/03-twenty-four.ipynb`).
    #[arg(required = true)]
    submissions: Vec<PathBuf>,
    /// The teacher's notebook, hidden tests included.
    #[arg(long, value_name = "NOTEBOOK")]
    source: PathBuf,
    /// Where grades.csv and feedback/STUDENT.html go.
    #[arg(long, value_name = "DIR", default_value = "grades")]
    out: PathBuf,
    #[command(flatten)]
    jobs: JobsArgs,
    #[command(flatten)]
    project: ProjectArgs,
}

/// Grades the submissions; exit code 1 when some could not be graded.
pub fn execute(a: GradeArgs) -> anyhow::Result<Exit> {
    // Ctrl-C stops grading with nothing written.
    puzzlebook_cli::engine::catch_interrupts();
    let project = a.jobs.apply(a.project.project());
    let grading = Grading {
        source: a.source,
        submissions: a.submissions,
        out: a.out,
    };
    let outcome = ops::grade(&project, &grading)
        .with_context(|| format!("grading against {}", grading.source.display()))?;
    puzzlebook_cli::out!("{}", outcome.summary);
    eprintln!(
        "wrote {} and {} feedback page{} in {}",
        grading.out.join("grades.csv").display(),
        outcome.wrote.len() - 1,
        if outcome.wrote.len() == 2 { "" } else { "s" },
        grading.out.join("feedback").display()
    );
    Ok(if outcome.not_graded > 0 {
        Exit::No
    } else {
        Exit::Ok
    })
}
