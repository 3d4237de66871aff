//! Chapter 2: Calculator: The Game, level 38 (write-up 001, SMT-LIB 2).
//!
//! Buttons and their simulator ([`Button`]), levels ([`Level`]), the write-up's
//! Z3 step model and its SMT-LIB script ([`model`]), and an exhaustive search
//! for the buttons the model cannot express ([`search`](mod@search)).

pub mod button;
pub mod level;
pub mod model;
pub mod search;

pub use button::{Button, ButtonError, ACCEPTED};
pub use level::{Level, Solution};
pub use model::{
    smt2_constraints, smt2_script, solve_z3, step_models, step_models_from_smt2, ModelError,
    StepModel,
};
pub use search::search;

/// How a level was solved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SolvedBy {
    /// The write-up's Z3 step model.
    Z3,
    /// Exhaustive search over the simulator.
    Search,
}

/// The solutions of a level (sorted, every one replayed by the simulator), and
/// how they were found. Empty when there is no solution within the moves.
pub fn solve(level: &Level, all: bool) -> Result<(SolvedBy, Vec<Solution>), ModelError> {
    if level.z3_expressible() {
        let found = solve_z3(level, all)?;
        let mut sols: Vec<Solution> = found.into_iter().map(|(_, s)| s).collect();
        sols.sort();
        Ok((SolvedBy::Z3, sols))
    } else {
        Ok((SolvedBy::Search, search(level, all)))
    }
}
