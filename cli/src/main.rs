//! The `puzzlebook` command: parses arguments and dispatches to one file per
//! command under `cmd/`.

mod cmd;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use puzzlebook_cli::kernel::serve;

/// Literate, reproducible notebooks that teach constraint solving with Z3.
#[derive(Debug, Parser)]
#[command(name = "puzzlebook", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Solve one chapter's puzzle and print the answer.
    #[command(subcommand)]
    Solve(cmd::solve::Puzzle),
    /// Execute a notebook cell by cell through evcxr, printing each cell's output.
    Run(cmd::run::RunArgs),
    /// Execute stale notebooks and regenerate their outputs and org reports.
    ///
    /// With CI set, checks instead of writing (pass --update to write anyway).
    Report(cmd::report::ReportArgs),
    /// Check that notebooks and reports match the sources; never writes.
    ///
    /// Exit codes: 0 fresh and identical, 1 differences, 2 an error.
    Check(cmd::check::CheckArgs),
    /// Measure the solvers and the runner side by side; print a Markdown table.
    ///
    /// Each group's first row is its baseline; `ratio` is a row's total over it.
    Bench(cmd::bench::BenchArgs),
    /// Release exercises to students: solutions become stubs, hidden tests go.
    #[command(subcommand)]
    Exercises(cmd::exercises::ExercisesCommand),
    /// Grade students' notebooks against the teacher's notebook.
    ///
    /// Writes grades.csv and a feedback page per student. Exit codes: 0 all
    /// graded, 1 some submissions could not be graded, 2 an error.
    Grade(cmd::grade::GradeArgs),
    /// Run one submission inside its sandbox, for `grade`.
    #[command(hide = true)]
    GradeJob(cmd::grade::GradeJobArgs),
    /// Judge one handed-in answer against its reference, for `grade`.
    #[command(hide = true)]
    JudgeJob(cmd::grade::JudgeJobArgs),
    /// Install or remove the Jupyter kernel "Rust (puzzlebook)".
    #[command(subcommand)]
    Kernel(cmd::kernel::KernelCommand),
}

/// The arguments; `--version` also names the libz3 this process loaded.
fn parse() -> Cli {
    let long_version = cmd::version::long_version();
    let matches = Cli::command().long_version(long_version).get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// jemalloc for every allocation of the process, C libraries' too (the
/// crate's unprefixed build defines `malloc` itself).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    // evcxr runs cells in a child process started from this binary: ours
    // first gets its memory limit and marks `?` errors, then evcxr takes over.
    puzzlebook_cli::engine::cell_process::hook();
    evcxr::runtime_hook();
    // Jupyter starts the installed kernel as `puzzlebook --control_file FILE`.
    if let Some(file) = serve::connection_file_arg(std::env::args_os()) {
        return match serve::serve(std::path::Path::new(&file)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => cmd::fail(&anyhow::Error::new(e)),
        };
    }
    let result = match parse().command {
        Command::Solve(p) => cmd::solve::execute(p),
        Command::Run(a) => cmd::run::execute(a),
        Command::Report(a) => cmd::report::execute(a),
        Command::Check(a) => cmd::check::execute(a),
        Command::Bench(a) => cmd::bench::execute(a),
        Command::Kernel(k) => cmd::kernel::execute(k),
        Command::Exercises(c) => cmd::exercises::execute(c),
        Command::Grade(a) => cmd::grade::execute(a),
        Command::GradeJob(a) => cmd::grade::execute_job(a),
        Command::JudgeJob(a) => cmd::grade::execute_judge_job(a),
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => cmd::fail(&e),
    }
}
