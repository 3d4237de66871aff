//! puzzlebook: literate, reproducible notebooks that teach constraint solving with Z3.
//!
//! The library is what a notebook loads with `:dep puzzlebook = { path = ".." }`:
//! one module per chapter, the shared Z3 helpers, and a [`Table`] that renders as
//! org, terminal, HTML and tab-separated text. Notebooks import [`prelude`]. The
//! `puzzlebook` command is a separate package (`cli/`), so a notebook's `:dep`
//! compiles none of it.
//!
//! # Values that cross notebook cells
//!
//! evcxr links its own copy of every dependency into every cell. A Z3 object made
//! in one cell belongs to that cell's Z3 context and crashes the kernel when used in
//! another, so every value this crate hands a notebook is plain data (a formula of
//! our own, a level, a table, answers) and all Z3 work happens inside one call.
//! Polars frames are rebuilt on entry for the same reason (see `sum_product`).
//!
//! # Features
//!
//! `polars` adds the Impossible Puzzle's chapter, `sum_product`, whose tables
//! are polars frames: `:dep puzzlebook = { path = "..", features = ["polars"] }`.
//! It is off by default because every cell of a notebook that loads polars
//! links it, and such a cell compiles about 0.4 s slower.

pub mod calculator;
pub mod figure;
pub mod prelude;
pub mod rich;
pub mod srat;
#[cfg(feature = "polars")]
pub mod sum_product;
pub mod table;
pub mod twenty_four;
pub mod z3util;

pub use table::{Cell, Table};
pub use z3util::SolveError;

/// The `z3` crate, re-exported: a notebook can only name crates it has loaded.
pub use z3;

/// The `polars` crate, re-exported for the same reason as [`z3`].
#[cfg(feature = "polars")]
pub use polars;
