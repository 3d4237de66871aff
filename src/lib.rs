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
//! evcxr links its own copy of every dependency into every cell. With the
//! `z3-dylib` feature (below), which every notebook asks for, the z3 crate
//! comes from one shared library instead, so all cells and this crate share
//! one Z3 context per thread: a `Solver`, an `Int` or a `Model` made in one
//! cell can be used in any later one. Without it, each cell has its own
//! context, and a Z3 value from an earlier cell crashes the process.
//! Polars frames cross cells the same way with `polars-dylib` (see
//! `sum_product::frame`).
//!
//! # Features
//!
//! Two features add the polars side of the Impossible Puzzle's chapter,
//! `sum_product`: its tables as polars frames, and `prune` as a polars query.
//! Without them the chapter's plain-Rust dialogue is still there (the
//! `puzzlebook` command prints it). They differ in how polars is linked:
//!
//! - `polars-dylib`, for notebooks: `:dep puzzlebook = { path = "..",
//!   features = ["polars-dylib"] }`. polars comes from one Rust shared library
//!   (`polars-dylib/`), which every cell links to instead of linking polars
//!   itself: a cell that uses polars then compiles in about half the time.
//! - `polars`, for programs (the library's tests, the command's polars bench): polars
//!   linked statically, as usual.
//!
//! They cannot be combined. Both are off by default, because a cell of a
//! notebook that loads polars compiles slower even if it never uses a frame.
//!
//! A third, `z3-dylib`, is for every notebook (`polars-dylib` turns it on):
//! z3 from one Rust shared library (`z3-dylib/`), so that Z3 values cross
//! cells. Programs leave it off and link z3 statically.

pub mod calculator;
pub mod figure;
pub mod grade;
pub mod libz3;
pub mod prelude;
pub mod rich;
pub mod smtlib;
pub mod srat;
pub mod sum_product;
pub mod table;
pub mod twenty_four;
pub mod z3util;

pub use table::{Cell, Table};
pub use z3util::SolveError;

/// The `z3` crate, re-exported: a notebook can only name crates it has loaded.
pub use z3;

// With `z3-dylib`, the z3 crate (the same crate as `z3` above) comes from its
// shared library: naming that library here is what makes rustc link it, and
// then take z3 and z3-sys from it instead of linking them into each cell.
#[cfg(feature = "z3-dylib")]
use puzzlebook_z3_dylib as _;

/// The `polars` crate, re-exported for the same reason as [`z3`].
#[cfg(feature = "polars")]
pub use polars;

/// The `polars` crate, from its shared library (the `polars-dylib` feature).
#[cfg(all(feature = "polars-dylib", not(feature = "polars")))]
pub use puzzlebook_polars_dylib::polars;

#[cfg(all(feature = "polars", feature = "polars-dylib"))]
compile_error!(
    "the features `polars` and `polars-dylib` link polars twice: a notebook asks for \
     `polars-dylib`, a program for `polars`, never both"
);
