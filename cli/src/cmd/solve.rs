//! `puzzlebook solve …`: answer one chapter's puzzle in the terminal.

use clap::{Args, Subcommand, ValueEnum};
use puzzlebook::twenty_four::Method;
use puzzlebook_cli::ops::solve::{self, TableFormat};

use super::Exit;

/// The puzzles `solve` answers.
#[derive(Debug, Subcommand)]
pub enum Puzzle {
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

/// Arguments of `solve srat`.
#[derive(Debug, Args)]
pub struct SratArgs {
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

/// Arguments of `solve calculator`.
#[derive(Debug, Args)]
pub struct CalculatorArgs {
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

/// How `solve 24` solves: the library's [`Method`], as the command line names it.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum MethodArg {
    /// The write-up's `solve_24`: permutation constraints, left to right.
    Permutation,
    /// The write-up's `solve_24_by_function`.
    Function,
    /// Z3 over every bracketing.
    Complete,
    /// Z3 chooses only the operators; orderings and bracketings are enumerated.
    Operators,
    /// Exact search over every bracketing, no Z3.
    Exhaustive,
}

impl From<MethodArg> for Method {
    fn from(m: MethodArg) -> Method {
        match m {
            MethodArg::Permutation => Method::Permutation,
            MethodArg::Function => Method::Function,
            MethodArg::Complete => Method::Complete,
            MethodArg::Operators => Method::Operators,
            MethodArg::Exhaustive => Method::Exhaustive,
        }
    }
}

/// Arguments of `solve 24`.
#[derive(Debug, Args)]
pub struct TwentyFourArgs {
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

/// Arguments of `solve sum-product`.
#[derive(Debug, Args)]
pub struct SumProductArgs {
    /// The largest number.
    #[arg(long, default_value_t = 9)]
    max: i64,
    /// How to print the tables; `summary` prints only how many candidates
    /// each step leaves, for a large --max.
    #[arg(long, value_enum, default_value = "tsv")]
    format: TableFormat,
}

/// Solves and prints; exit code 1 when there is no solution.
pub fn execute(p: Puzzle) -> anyhow::Result<Exit> {
    let found = match p {
        Puzzle::Srat(a) => {
            puzzlebook_cli::out!(
                "{}",
                solve::srat(solve::SratOptions {
                    q20_free: a.q20_free,
                    q13_iff: a.q13_iff,
                    explain: a.explain,
                })?
            );
            true
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
            puzzlebook_cli::out!("{text}");
            found
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
            let (text, found) = solve::twenty_four(&numbers, a.target, a.method.into(), a.all)?;
            puzzlebook_cli::out!("{text}");
            found
        }
        Puzzle::SumProduct(a) => {
            // A spinner on a terminal while the large tables are counted;
            // nothing in a pipe.
            let spinner = indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stderr(),
            );
            spinner.enable_steady_tick(std::time::Duration::from_millis(200));
            spinner.set_message("building the candidate pairs");
            let text = solve::sum_product(a.max, a.format, |s| {
                spinner.set_message(format!(
                    "{}: {} candidates; pruning the next",
                    s.name, s.left
                ));
            })?;
            spinner.finish_and_clear();
            puzzlebook_cli::out!("{text}");
            true
        }
    };
    Ok(if found { Exit::Ok } else { Exit::No })
}
