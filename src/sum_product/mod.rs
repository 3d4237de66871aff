//! Chapter 4: the Impossible Puzzle (write-up 003, Common Lisp + org-mode).
//!
//! Pete knows the product of two numbers from 1 to 9, Susan their sum. They take
//! turns saying "I don't know", and each answer prunes the candidate table. The
//! tables are polars frames (`frame`, with one of the crate's polars features);
//! a plain-Rust prune ([`rows`]) is the oracle, and needs no polars.

pub mod counts;
pub mod dialogue;
#[cfg(any(feature = "polars", feature = "polars-dylib"))]
pub mod frame;
pub mod rows;

pub use counts::{Counts, StepCount};
pub use dialogue::{Dialogue, Outcome, Person, Step, DONT_KNOWS};
#[cfg(any(feature = "polars", feature = "polars-dylib"))]
pub use frame::{candidates, prune, rebuild, rows_of, table};
pub use rows::{candidate_rows, prune_rows, unique_rows, Key, Row, COLUMNS};

/// What can go wrong in this chapter.
#[derive(Debug, thiserror::Error)]
pub enum SumProductError {
    /// polars failed.
    #[cfg(any(feature = "polars", feature = "polars-dylib"))]
    #[error("polars: {0}")]
    Polars(#[from] crate::polars::prelude::PolarsError),
    /// A frame lacks one of `m s x y`.
    #[error("the frame has no column {0:?}; prune needs columns m, s, x, y")]
    MissingColumn(String),
    /// A frame has a null.
    #[error("column {0:?} has a missing value")]
    Null(String),
    /// The largest number is below 1.
    #[error("the numbers run from 1 to max, so max must be at least 1, not {0}")]
    Max(i64),
}
