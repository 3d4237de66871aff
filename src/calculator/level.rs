//! A level of the game, a solution, and the simulator that replays it.

use std::fmt;

use super::button::Button;
use crate::rich::{Rendering, RichDisplay};
use crate::table::Table;

/// A level: the start value, the goal, the most moves allowed, and the buttons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    /// The name used for the level function in SMT-LIB (`Level38`).
    pub name: String,
    /// The value on the display at the start.
    pub start: i64,
    /// The value to reach.
    pub goal: i64,
    /// The most moves allowed.
    pub moves: usize,
    /// The buttons, in the order the model lists them.
    pub buttons: Vec<Button>,
}

impl Level {
    /// A level named `Level`.
    pub fn new(start: i64, goal: i64, moves: usize, buttons: Vec<Button>) -> Self {
        Level {
            name: "Level".to_string(),
            start,
            goal,
            moves,
            buttons,
        }
    }

    /// Level 38 of the write-up: start 0, 4 moves, buttons `x5`, `-6`, `4`.
    pub fn level_38(goal: i64) -> Self {
        Level {
            name: "Level38".to_string(),
            start: 0,
            goal,
            moves: 4,
            buttons: vec![Button::Mul(5), Button::Sub(6), Button::Append("4".into())],
        }
    }

    /// Whether every button can be written in the Z3 step model.
    pub fn z3_expressible(&self) -> bool {
        self.buttons.iter().all(|b| b.smt_name().is_some())
    }

    /// Replays a sequence of buttons from the start: the value after each move,
    /// or `None` if a move is invalid.
    pub fn replay(&self, presses: &[Button]) -> Option<Vec<i64>> {
        let mut v = self.start;
        let mut values = Vec::with_capacity(presses.len());
        for b in presses {
            v = b.apply(v)?;
            values.push(v);
        }
        Some(values)
    }

    /// Checks a candidate: valid moves, at most `moves` of them, ending on the goal.
    /// Returns the solution with its values.
    pub fn verify(&self, presses: Vec<Button>) -> Option<Solution> {
        if presses.len() > self.moves {
            return None;
        }
        let values = self.replay(&presses)?;
        (values.last().copied().unwrap_or(self.start) == self.goal).then_some(Solution {
            start: self.start,
            presses,
            values,
        })
    }
}

/// A sequence of presses that solves a level, with the value after each press.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Solution {
    /// The value at the start.
    pub start: i64,
    /// The buttons pressed, in order.
    pub presses: Vec<Button>,
    /// The value after each press.
    pub values: Vec<i64>,
}

impl PartialOrd for Button {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Button {
    /// Orders buttons by their labels, so solutions sort deterministically.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.to_string().cmp(&other.to_string())
    }
}

impl Solution {
    /// The presses as one line of labels: `4, -6, 4, x5`.
    pub fn labels(&self) -> String {
        self.presses
            .iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The steps as a table: step, button, value before, value after.
    pub fn steps(&self) -> Table {
        let mut t = Table::new(["step", "button", "from", "to"]);
        let mut before = self.start;
        for (i, (b, v)) in self.presses.iter().zip(&self.values).enumerate() {
            t.push_row([
                crate::Cell::from(i + 1),
                b.to_string().into(),
                before.into(),
                (*v).into(),
            ]);
            before = *v;
        }
        t
    }
}

impl fmt::Display for Solution {
    /// The labels on one line, then one line per step: `step 1: 4 → 4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.labels())?;
        for (i, (b, v)) in self.presses.iter().zip(&self.values).enumerate() {
            writeln!(f, "step {}: {b} → {v}", i + 1)?;
        }
        Ok(())
    }
}

impl RichDisplay for Solution {
    fn renderings(&self) -> Vec<Rendering> {
        let mut r = self.steps().renderings();
        for x in &mut r {
            if x.mime == "text/plain" {
                x.content = self.to_string();
            }
        }
        r
    }
}
crate::impl_evcxr_display!(Solution);
