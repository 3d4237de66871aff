//! The `puzzlebook` command: parses arguments and dispatches to the library's stages.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand, ValueEnum};
use puzzlebook::runner::bench::{self, Group};
use puzzlebook::runner::commands::{self, Project, Verdict};
use puzzlebook::runner::kernel;
use puzzlebook::runner::kernelspec::{self, KernelSpec, Location};
use puzzlebook::runner::mode::Mode;
use puzzlebook::runner::solve;

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
    Solve(Puzzle),
    /// Execute a notebook cell by cell through evcxr, printing each cell's output.
    Run {
        /// The notebook (.ipynb).
        notebook: PathBuf,
        #[command(flatten)]
        where_: Where,
    },
    /// Execute stale notebooks and regenerate their outputs and org reports.
    ///
    /// With CI set, checks instead of writing (pass --update to write anyway).
    Report {
        /// Notebooks to report (default: every notebooks/*.ipynb).
        notebooks: Vec<PathBuf>,
        /// Execute even when every hash matches.
        #[arg(long)]
        force: bool,
        /// Write even when CI is set.
        #[arg(long)]
        update: bool,
        #[command(flatten)]
        where_: Where,
    },
    /// Check that notebooks and reports match the sources; never writes.
    ///
    /// Exit codes: 0 fresh and identical, 1 differences, 2 an error.
    Check {
        /// Notebooks to check (default: every notebooks/*.ipynb).
        notebooks: Vec<PathBuf>,
        /// Also execute the notebooks and compare every output byte for byte.
        #[arg(long)]
        execute: bool,
        #[command(flatten)]
        where_: Where,
    },
    /// Measure the solvers and the runner side by side; print a Markdown table.
    ///
    /// Each group's first row is its baseline; `ratio` is a row's total over it.
    /// Build with `--profile perf` for figures worth comparing.
    Bench {
        /// Groups to run (default: all).
        #[arg(long = "only", value_enum)]
        only: Vec<Group>,
        /// Runs per case for the small cases.
        #[arg(long, default_value_t = 10)]
        repeat: usize,
        /// Take every N-th of the 1820 multisets in the 24 group (1: all).
        #[arg(long, default_value_t = 1)]
        stride: usize,
        /// The puzzlebook checkout, for the report group.
        #[arg(long, default_value = ".")]
        root: PathBuf,
    },
    /// Install or remove the Jupyter kernel "Rust (puzzlebook)".
    #[command(subcommand)]
    Kernel(KernelCommand),
}

#[derive(Debug, Subcommand)]
enum KernelCommand {
    /// Write the kernelspec: this binary as an evcxr kernel with the crate
    /// loaded and its prelude imported.
    Install {
        #[command(flatten)]
        location: LocationArgs,
        /// The puzzlebook checkout the kernel loads.
        #[arg(long, default_value = ".")]
        root: PathBuf,
    },
    /// Remove the kernelspec `install` wrote.
    Uninstall {
        #[command(flatten)]
        location: LocationArgs,
    },
}

#[derive(Debug, Args)]
struct LocationArgs {
    /// In your Jupyter data folder (the default).
    #[arg(long, conflicts_with = "prefix")]
    user: bool,
    /// In DIR/share/jupyter/kernels, e.g. a virtual environment's folder.
    #[arg(long, value_name = "DIR")]
    prefix: Option<PathBuf>,
}

impl LocationArgs {
    fn kernels_dir(&self) -> anyhow::Result<PathBuf> {
        let location = match &self.prefix {
            Some(p) => Location::Prefix(p.clone()),
            None => Location::User,
        };
        Ok(location.kernels_dir(|k| std::env::var(k).ok())?)
    }
}

#[derive(Debug, Args)]
struct Where {
    /// The puzzlebook folder (its src/, Cargo.lock, notebooks/ and reports/).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Where reports go (default: ROOT/reports).
    #[arg(long)]
    reports: Option<PathBuf>,
}

impl Where {
    fn project(&self) -> Project {
        let mut p = Project::new(&self.root);
        if let Some(r) = &self.reports {
            p.reports = r.clone();
        }
        p
    }
}

#[derive(Debug, Subcommand)]
enum Puzzle {
    /// The Self-Referential Aptitude Test: the 20 answers and whether they are unique.
    Srat(SratArgs),
    /// Calculator: The Game: the presses that reach the goal.
    Calculator(CalculatorArgs),
    /// The 24 game: expressions over the numbers that make the target.
    #[command(name = "24")]
    TwentyFour(TwentyFourArgs),
    /// The Impossible Puzzle: the prune tables and who knows when.
    SumProduct(SumProductArgs),
}

#[derive(Debug, Args)]
struct SratArgs {
    /// Leave question 20 (outside knowledge) unconstrained and list every sheet.
    #[arg(long)]
    q20_free: bool,
    /// Write question 13 in the write-up's iff form instead of implications.
    #[arg(long)]
    q13_iff: bool,
    /// Also print, per question, which of its five options hold.
    #[arg(long)]
    explain: bool,
}

#[derive(Debug, Args)]
struct CalculatorArgs {
    /// The value on the display at the start.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    start: i64,
    /// The value to reach.
    #[arg(long, allow_hyphen_values = true)]
    goal: i64,
    /// The most moves.
    #[arg(long)]
    moves: usize,
    /// Comma-separated buttons: +N, -N, xN, /N, N (append), <<, +/-, Reverse, SUM,
    /// <Shift, Shift>, Mirror, a=>b, x^2, x^3, Inv10.
    #[arg(long, allow_hyphen_values = true)]
    buttons: String,
    /// List every solution, not just the first.
    #[arg(long)]
    all: bool,
    /// Print the write-up's SMT-LIB 2 script first.
    #[arg(long)]
    smt2: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum MethodArg {
    Permutation,
    Function,
    Complete,
    Exhaustive,
}

#[derive(Debug, Args)]
struct TwentyFourArgs {
    /// The numbers (1 to 6 of them).
    #[arg(required = true, allow_negative_numbers = true)]
    numbers: Vec<String>,
    /// Print every distinct solution.
    #[arg(long)]
    all: bool,
    /// The value to make.
    #[arg(long, default_value_t = 24, allow_hyphen_values = true)]
    target: i64,
    /// How to solve.
    #[arg(long, value_enum, default_value = "permutation")]
    method: MethodArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FormatArg {
    Org,
    Tsv,
    Text,
}

#[derive(Debug, Args)]
struct SumProductArgs {
    /// The largest number.
    #[arg(long, default_value_t = 9)]
    max: i64,
    /// How to print the tables.
    #[arg(long, value_enum, default_value = "tsv")]
    format: FormatArg,
}

/// Exit code for "the answer is no": no solution, or a check found differences.
const EXIT_NO: u8 = 1;
/// Exit code for an error: bad input, a failing cell, a crash of a stage.
const EXIT_ERROR: u8 = 2;

fn main() -> ExitCode {
    // evcxr runs cells in a child process started from this binary.
    evcxr::runtime_hook();
    // Jupyter starts the installed kernel as `puzzlebook --control_file FILE`.
    if kernel::connection_file_arg(std::env::args_os()).is_some() {
        return match kernel::serve() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(EXIT_ERROR)
            }
        };
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn verdict(v: Verdict) -> u8 {
    match v {
        Verdict::Ok => 0,
        Verdict::Differences => EXIT_NO,
    }
}

fn run(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Solve(p) => solve_puzzle(p),
        Command::Run { notebook, where_ } => {
            let v = commands::run(&where_.project(), &notebook)
                .with_context(|| format!("running {}", notebook.display()))?;
            Ok(verdict(v))
        }
        Command::Report {
            notebooks,
            force,
            update,
            where_,
        } => {
            let ci = std::env::var("CI").ok();
            let mode = Mode::for_report(force, update, ci.as_deref());
            if matches!(mode, Mode::Check { .. }) {
                eprintln!("CI is set: checking instead of writing (pass --update to write)");
            }
            Ok(verdict(commands::report(
                &where_.project(),
                &notebooks,
                mode,
            )?))
        }
        Command::Check {
            notebooks,
            execute,
            where_,
        } => Ok(verdict(commands::report(
            &where_.project(),
            &notebooks,
            Mode::Check { execute },
        )?)),
        Command::Kernel(k) => kernel_command(k),
        Command::Bench {
            only,
            repeat,
            stride,
            root,
        } => bench_command(only, repeat, stride, root),
    }
}

fn bench_command(
    only: Vec<Group>,
    repeat: usize,
    stride: usize,
    root: PathBuf,
) -> anyhow::Result<u8> {
    let groups = if only.is_empty() {
        Group::ALL.to_vec()
    } else {
        Group::ALL
            .into_iter()
            .filter(|g| only.contains(g))
            .collect()
    };
    let options = bench::Options {
        groups,
        repeat,
        stride,
        binary: std::env::current_exe().context("finding this binary's path")?,
        root,
    };
    let rows = bench::run(&options, |g| eprintln!("bench: {g:?}…"))?;
    let build = if cfg!(debug_assertions) {
        "the dev profile (this crate at opt-level 3 with debug assertions, dependencies at 1)"
    } else {
        "an optimised profile without debug assertions"
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("Built with {build}; {cores} cores.\n");
    print!("{}", bench::table(&rows).to_markdown());
    Ok(0)
}

fn kernel_command(k: KernelCommand) -> anyhow::Result<u8> {
    match k {
        KernelCommand::Install { location, root } => {
            let exe = std::env::current_exe().context("finding this binary's path")?;
            let spec = KernelSpec::new(exe, &root)?;
            let kernels = location.kernels_dir()?;
            let dir = spec
                .install(&kernels)
                .with_context(|| format!("installing the kernel into {}", kernels.display()))?;
            println!(
                "Installed the Jupyter kernel {:?} in {}\n\
                 It runs {} and loads the crate at {}.\n\
                 Open the notebooks with `jupyter notebook notebooks/` (or `jupyter lab`) and pick that kernel.\n\
                 Its first start on a machine compiles z3 and polars, a few minutes; later starts reuse that build.",
                kernelspec::DISPLAY_NAME,
                dir.display(),
                spec.exe.display(),
                spec.crate_dir.display(),
            );
            Ok(0)
        }
        KernelCommand::Uninstall { location } => {
            let kernels = location.kernels_dir()?;
            let dir = kernelspec::uninstall(&kernels)?;
            println!("Removed the Jupyter kernel at {}", dir.display());
            Ok(0)
        }
    }
}

fn solve_puzzle(p: Puzzle) -> anyhow::Result<u8> {
    match p {
        Puzzle::Srat(a) => {
            let text = solve::srat(solve::SratOptions {
                q20_free: a.q20_free,
                q13_iff: a.q13_iff,
                explain: a.explain,
            })?;
            print!("{text}");
            Ok(0)
        }
        Puzzle::Calculator(a) => {
            let (text, found) = solve::calculator(&solve::CalculatorOptions {
                start: a.start,
                goal: a.goal,
                moves: a.moves,
                buttons: a.buttons,
                all: a.all,
                smt2: a.smt2,
            })?;
            print!("{text}");
            Ok(if found { 0 } else { EXIT_NO })
        }
        Puzzle::TwentyFour(a) => {
            let numbers = a
                .numbers
                .iter()
                .map(|s| {
                    s.parse::<i64>().map_err(|_| {
                        anyhow::anyhow!("{s:?} is not a whole number; give 1 to 6 numbers, e.g. `puzzlebook solve 24 1 5 5 5`")
                    })
                })
                .collect::<anyhow::Result<Vec<i64>>>()?;
            let method = match a.method {
                MethodArg::Permutation => puzzlebook::twenty_four::Method::Permutation,
                MethodArg::Function => puzzlebook::twenty_four::Method::Function,
                MethodArg::Complete => puzzlebook::twenty_four::Method::Complete,
                MethodArg::Exhaustive => puzzlebook::twenty_four::Method::Exhaustive,
            };
            let (text, found) = solve::twenty_four(&numbers, a.target, method, a.all)?;
            print!("{text}");
            Ok(if found { 0 } else { EXIT_NO })
        }
        Puzzle::SumProduct(a) => {
            let format = match a.format {
                FormatArg::Org => solve::TableFormat::Org,
                FormatArg::Tsv => solve::TableFormat::Tsv,
                FormatArg::Text => solve::TableFormat::Text,
            };
            print!("{}", solve::sum_product(a.max, format)?);
            Ok(0)
        }
    }
}
