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
    /// Run the submissions without a sandbox, in this process's engines:
    /// every submission is then trusted with this machine, with the source
    /// notebook's hidden tests and with every other student's grade.
    #[arg(long)]
    no_sandbox: bool,
    /// The seed from which exercises draw the inputs a submission's
    /// functions are graded on (default: one made from the source notebook
    /// and the submissions, printed after grading, so that the same class
    /// graded again draws the same inputs).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
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
        sandbox: !a.no_sandbox,
        seed: a.seed,
    };
    if a.no_sandbox {
        eprintln!(
            "warning: grading without a sandbox (--no-sandbox): each submission runs with this user's rights, and can read the hidden tests, change any grade and leave processes running; grade only work you trust this way"
        );
    }
    let outcome = ops::grade(&project, &grading)
        .with_context(|| format!("grading against {}", grading.source.display()))?;
    puzzlebook_cli::out!("{}", outcome.summary);
    if grading.seed.is_none() {
        eprintln!(
            "exercises that draw their inputs drew them with seed {0}; `--seed {0}` draws the same again",
            outcome.seed
        );
    }
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

/// Arguments of `grade-job`, which `grade` runs inside each sandbox.
#[derive(Debug, Args)]
pub struct GradeJobArgs {
    /// The job's folder, holding `job.json`.
    dir: PathBuf,
}

/// Runs one submission's job; its results go to standard output.
pub fn execute_job(a: GradeJobArgs) -> anyhow::Result<Exit> {
    ops::run_job(&a.dir).with_context(|| format!("running the job in {}", a.dir.display()))?;
    Ok(Exit::Ok)
}

/// Arguments of `judge-job`, which `grade` runs for each answer it judges.
#[derive(Debug, Args)]
pub struct JudgeJobArgs {
    /// The folder holding `reference.json` and `answer.json`.
    dir: PathBuf,
}

/// Judges one answer; the judgement goes to standard output.
pub fn execute_judge_job(a: JudgeJobArgs) -> anyhow::Result<Exit> {
    ops::run_judge_job(&a.dir)
        .with_context(|| format!("judging the answer in {}", a.dir.display()))?;
    Ok(Exit::Ok)
}
