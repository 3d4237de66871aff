//! Everything a notebook cell names, in one import: `use puzzlebook::prelude::*;`.

pub use crate::calculator::{self, Button, Level, Solution};
pub use crate::figure::{self, Axes, Figure, Grid, Node};
pub use crate::grade;
pub use crate::rich::{RichDisplay, ORG_MIME};
pub use crate::srat::{self, Answers, Formula, Q13Form, Q20Mode, Term, Test};
pub use crate::sum_product::{self, Dialogue, Key};
pub use crate::table::{Cell, Table};
pub use crate::twenty_four::{self, Expr};
pub use crate::z3util::{self, SolveError};

/// The `z3` crate (a notebook can only name crates it loaded).
pub use crate::z3;

/// The `polars` crate, for the same reason.
#[cfg(any(feature = "polars", feature = "polars-dylib"))]
pub use crate::polars;

/// The frame type notebooks hold in variables (evcxr cannot infer it unnamed).
#[cfg(any(feature = "polars", feature = "polars-dylib"))]
pub use crate::polars::prelude::DataFrame;
