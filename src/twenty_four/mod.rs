//! Chapter 3: the 24 game (write-up 002, Python + Z3, written in Chinese).
//!
//! Four numbers, three operators, and an order of evaluation. The write-up's
//! `permutation()`, `output()`, `solve_24` and `solve_24_by_function` are in
//! [`z3solve`] and [`expr`]; [`exhaustive`] holds exact solvers that check Z3.
//! Every expression returned is re-evaluated with exact rationals first.

pub mod exhaustive;
pub mod expr;
pub mod z3solve;

pub use exhaustive::{all_expressions, left_to_right_solutions, multisets, solvable};
pub use expr::{left_to_right, op_code, output, parse, verify, Expr, Op, Rational};
pub use z3solve::{permutation, permutations};

use crate::table::Table;
use crate::z3util::SolveError;

/// The ten questions of the write-up.
pub const QUESTIONS: [[i64; 4]; 10] = [
    [1, 5, 5, 5],
    [3, 3, 8, 8],
    [3, 3, 7, 7],
    [1, 4, 5, 6],
    [2, 2, 2, 9],
    [2, 7, 8, 9],
    [6, 9, 9, 10],
    [1, 2, 7, 7],
    [4, 4, 10, 10],
    [2, 5, 5, 10],
];

/// A left-to-right solution: the numbers in order and the write-up's operator codes.
pub type LeftToRight = (Vec<i64>, Vec<u8>);

/// What can go wrong in this chapter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TwentyFourError {
    /// Too few or too many numbers.
    #[error("the game takes 1 to 6 numbers, not {0}")]
    Count(usize),
    /// Z3 failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
    /// A model's expression did not evaluate to the target: never returned.
    #[error("Z3's model gives {0:?}, which does not evaluate to the target exactly")]
    Unverified(String),
    /// A model put a fraction where a number of the question belongs.
    #[error("Z3's model uses {0}, which is not one of the numbers")]
    NotANumber(String),
}

/// How to solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// `solve_24`: numbers ordered by [`permutation`] constraints, left to right.
    #[default]
    Permutation,
    /// `solve_24_by_function`: a Z3 function from index to number, left to right.
    Function,
    /// Z3 over every bracketing.
    Complete,
    /// Z3 chooses only the operators; orderings and bracketings are enumerated
    /// in Rust, one query each under push/pop.
    Operators,
    /// Exact search over every bracketing, no Z3.
    Exhaustive,
}

/// Solutions of `numbers` for `target` by `method`: the first one, or with `all`
/// every distinct one, as expression strings, each verified exactly.
pub fn solve(
    numbers: &[i64],
    target: i64,
    method: Method,
    all: bool,
) -> Result<Vec<String>, TwentyFourError> {
    if !(1..=6).contains(&numbers.len()) {
        return Err(TwentyFourError::Count(numbers.len()));
    }
    let limit = if all { usize::MAX } else { 1 };
    let render =
        |v: Vec<LeftToRight>| -> Vec<String> { v.iter().map(|(n, o)| output(n, o)).collect() };
    let out = match method {
        Method::Permutation => render(z3solve::solve_permutation(numbers, target, limit)?),
        Method::Function => render(z3solve::solve_function(numbers, target, limit)?),
        Method::Complete => z3solve::solve_complete(numbers, target, limit)?,
        Method::Operators => z3solve::solve_operators(numbers, target, limit)?,
        Method::Exhaustive => all_expressions(numbers, target, limit),
    };
    debug_assert!(out.iter().all(|e| verify(e, numbers, target)));
    Ok(out)
}

/// The write-up's `solve_24(*numbers)`: an expression for 24, or `None`.
///
/// ```
/// use puzzlebook::twenty_four::{solve_24, verify};
/// let e = solve_24(&[1, 5, 5, 5]).unwrap().unwrap();
/// assert!(verify(&e, &[1, 5, 5, 5], 24));
/// ```
pub fn solve_24(numbers: &[i64]) -> Result<Option<String>, TwentyFourError> {
    Ok(solve(numbers, 24, Method::Permutation, false)?
        .into_iter()
        .next())
}

/// The write-up's `solve_24_by_function(*numbers)`.
pub fn solve_24_by_function(numbers: &[i64]) -> Result<Option<String>, TwentyFourError> {
    Ok(solve(numbers, 24, Method::Function, false)?
        .into_iter()
        .next())
}

/// The line the write-up prints for a question: `[1, 5, 5, 5]: EXPR = 24`, or
/// `[…]: no solution`.
pub fn question_line(numbers: &[i64], expr: Option<&str>, target: i64) -> String {
    let q = format!("{numbers:?}");
    match expr {
        Some(e) => format!("{q}: {e} = {target}"),
        None => format!("{q}: no solution"),
    }
}

/// The write-up's comparison of the two methods, with the assertion counts the
/// two solvers actually hold for `[1, 5, 5, 5]`.
pub fn comparison_table() -> Table {
    let (p, f) = z3solve::assertion_counts(&[1, 5, 5, 5]);
    Table::new(["", "permutation()", "Function"])
        .with_row([
            "ordering of the numbers",
            "a count constraint per value",
            "index-to-number map plus Distinct",
        ])
        .with_row([
            "repeated numbers",
            "counting occurrences handles them",
            "distinct indices may map to equal values",
        ])
        .with_row(["length of the code", "shorter", "slightly longer"])
        .with_row([
            "assertions for [1, 5, 5, 5]".to_string(),
            p.to_string(),
            f.to_string(),
        ])
}
