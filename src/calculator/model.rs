//! The write-up's Z3 model: a 0/1 coefficient per step and button, as the API
//! builds it and as the SMT-LIB 2 script the write-up shows.

use std::fmt::Write as _;

use z3::ast::Int;
use z3::Solver;

use super::button::Button;
use super::level::{Level, Solution};
use crate::table::Table;
use crate::z3util::{self, SolveError};

/// Why a level could not go through the Z3 step model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// A button has no Z3 function in the step model.
    #[error("the button {0} cannot be written in the Z3 step model; use the exhaustive search")]
    Inexpressible(String),
    /// Z3 failed.
    #[error(transparent)]
    Solve(#[from] SolveError),
}

/// One model of the step coefficients: `coefficients[step][button]` is 0 or 1.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct StepModel {
    /// The buttons' SMT-LIB names, in the level's order.
    pub names: Vec<String>,
    /// One row per step, one 0/1 per button.
    pub coefficients: Vec<Vec<i64>>,
}

impl StepModel {
    /// The model as Z3 prints it in the write-up: `sat`, then `(model …)` with
    /// one `define-fun` per coefficient, steps in order.
    pub fn to_smt2_model(&self) -> String {
        let mut out = String::from("sat\n(model\n");
        for (s, row) in self.coefficients.iter().enumerate() {
            for (name, c) in self.names.iter().zip(row) {
                let _ = writeln!(out, "  (define-fun s{}{name} () Int\n    {c})", s + 1);
            }
        }
        out.push_str(")\n");
        out
    }

    /// The model as a table: one row per step, one column per button.
    pub fn table(&self) -> Table {
        let mut t = Table::new(std::iter::once("step".to_string()).chain(self.names.clone()));
        for (s, row) in self.coefficients.iter().enumerate() {
            t.push_row(std::iter::once(s as i64 + 1).chain(row.iter().copied()));
        }
        t
    }

    /// The buttons pressed, one per step, read from the coefficients.
    pub fn presses(&self, buttons: &[Button]) -> Vec<Button> {
        self.coefficients
            .iter()
            .filter_map(|row| row.iter().position(|c| *c == 1).map(|i| buttons[i].clone()))
            .collect()
    }
}

fn names(level: &Level) -> Result<Vec<String>, ModelError> {
    level
        .buttons
        .iter()
        .map(|b| {
            b.smt_name()
                .ok_or_else(|| ModelError::Inexpressible(b.to_string()))
        })
        .collect()
}

/// A numeral in SMT-LIB: negative numbers as `(- n)`.
fn numeral(n: i64) -> String {
    if n < 0 {
        format!("(- {})", n.unsigned_abs())
    } else {
        n.to_string()
    }
}

/// The body of a button's `define-fun` over `x`.
fn smt_body(b: &Button) -> String {
    match b {
        Button::Add(n) => format!("(+ x {n})"),
        Button::Sub(n) => format!("(- x {n})"),
        Button::Mul(n) => format!("(* x {n})"),
        Button::Append(d) => {
            let scale = 10i64.pow(d.len() as u32);
            let d: i64 = d.parse().unwrap_or(0);
            format!("\n    (ite (< x 0) (- (* x {scale}) {d}) (+ (* x {scale}) {d}))\n")
        }
        Button::Delete => "\n    (ite (< x 0) (- (div (- x) 10)) (div x 10))\n".to_string(),
        Button::Negate => "(- x)".to_string(),
        Button::Square => "(* x x)".to_string(),
        Button::Cube => "(* x x x)".to_string(),
        _ => unreachable!("checked by names()"),
    }
}

/// The write-up's SMT-LIB 2 script for `steps` moves: a `define-fun` per button,
/// `declare-fun sNButton` with the 0/1 bounds, a `define-fun StepN` per step, the
/// level function, the goal, `check-sat` and `get-model`.
///
/// ```
/// use puzzlebook::calculator::{smt2_script, Level};
/// let script = smt2_script(&Level::level_38(-120), 4).unwrap();
/// assert!(script.starts_with("(define-fun Mul5 ((x Int)) Int (* x 5))\n"));
/// assert!(script.contains("(assert (= (Level38 0) -120))"));
/// ```
pub fn smt2_script(level: &Level, steps: usize) -> Result<String, ModelError> {
    let mut s = smt2_constraints(level, steps)?;
    s.push_str("\n(check-sat)\n(get-model)\n");
    Ok(s)
}

/// [`smt2_script`] without `check-sat` and `get-model`: what a solver can load.
pub fn smt2_constraints(level: &Level, steps: usize) -> Result<String, ModelError> {
    let names = names(level)?;
    let mut s = String::new();
    for (b, name) in level.buttons.iter().zip(&names) {
        let body = smt_body(b);
        let sep = if body.starts_with('\n') { "" } else { " " };
        let _ = writeln!(s, "(define-fun {name} ((x Int)) Int{sep}{body})");
    }
    for step in 1..=steps {
        s.push('\n');
        for name in &names {
            let _ = writeln!(s, "(declare-fun s{step}{name} () Int)");
        }
        for name in &names {
            let v = format!("s{step}{name}");
            let _ = writeln!(s, "(assert (and (<= 0 {v}) (<= {v} 1)))");
        }
        let sum: Vec<String> = names.iter().map(|n| format!("s{step}{n}")).collect();
        let _ = writeln!(s, "(assert (= 1 (+ {})))", sum.join(" "));
        s.push('\n');
        let terms: Vec<String> = names
            .iter()
            .map(|n| format!("(* s{step}{n} ({n} x))"))
            .collect();
        let _ = writeln!(
            s,
            "(define-fun Step{step} ((x Int)) Int\n    (+ {})\n)",
            terms.join(" ")
        );
    }
    let mut chain = "x".to_string();
    for step in 1..=steps {
        chain = format!("(Step{step} {chain})");
    }
    let _ = writeln!(
        s,
        "\n(define-fun {} ((x Int)) Int\n    {chain}\n)",
        level.name
    );
    // The write-up writes a negative goal as `-120`; Z3's parser accepts it.
    let _ = writeln!(
        s,
        "\n(assert (= ({} {}) {}))",
        level.name,
        numeral(level.start),
        level.goal
    );
    Ok(s)
}

/// The coefficient variables `s{step}{name}`, step-major.
fn coefficient_vars(names: &[String], steps: usize) -> Vec<Vec<Int>> {
    (1..=steps)
        .map(|s| {
            names
                .iter()
                .map(|n| Int::new_const(format!("s{s}{n}")))
                .collect()
        })
        .collect()
}

/// A button's function applied to a Z3 term, mirroring [`smt_body`].
fn apply_z3(b: &Button, x: &Int) -> Int {
    let zero = Int::from_i64(0);
    match b {
        Button::Add(n) => x + *n,
        Button::Sub(n) => x - *n,
        Button::Mul(n) => x * *n,
        Button::Append(d) => {
            let scale = 10i64.pow(d.len() as u32);
            let d: i64 = d.parse().unwrap_or(0);
            x.lt(&zero).ite(&(x * scale - d), &(x * scale + d))
        }
        Button::Delete => x
            .lt(&zero)
            .ite(&(x.unary_minus().div(10)).unary_minus(), &x.div(10)),
        Button::Negate => x.unary_minus(),
        Button::Square => x * x,
        Button::Cube => x * x * x,
        _ => unreachable!("checked by names()"),
    }
}

/// Builds the step model for exactly `steps` moves with the Z3 API.
///
/// The coefficients and their bounds are the write-up's. The step itself is
/// written in the equivalent linear form, with a value variable per step:
/// `sNButton = 1 → vN = Button(vN-1)`. Given the 0/1 bounds and exactly one
/// coefficient per step, that says the same as the write-up's
/// `vN = Σ sNButton · Button(vN-1)`, but it keeps Z3 in linear arithmetic, where
/// enumerating every model takes milliseconds instead of minutes.
#[allow(clippy::type_complexity)]
fn build(level: &Level, steps: usize) -> Result<(Solver, Vec<Vec<Int>>, Vec<String>), ModelError> {
    let names = names(level)?;
    let solver = Solver::new();
    let coeffs = coefficient_vars(&names, steps);
    let mut value = Int::from_i64(level.start);
    for (s, row) in coeffs.iter().enumerate() {
        for c in row {
            solver.assert(c.ge(0));
            solver.assert(c.le(1));
        }
        solver.assert(Int::add(row).eq(1));
        let next = Int::new_const(format!("v{}", s + 1));
        for (c, b) in row.iter().zip(&level.buttons) {
            solver.assert(c.eq(1).implies(next.eq(apply_z3(b, &value))));
        }
        value = next;
    }
    solver.assert(value.eq(level.goal));
    Ok((solver, coeffs, names))
}

/// Every model of the step coefficients for exactly `steps` moves, up to `limit`,
/// sorted.
pub fn step_models(
    level: &Level,
    steps: usize,
    limit: usize,
) -> Result<Vec<StepModel>, ModelError> {
    let (solver, coeffs, names) = build(level, steps)?;
    models_of(&solver, &coeffs, &names, limit)
}

/// Every model of the coefficients after loading an SMT-LIB script into Z3:
/// the proof that [`smt2_script`] says what the API model says.
///
/// The script multiplies variables, so it is nonlinear integer arithmetic. A
/// fresh solver for the `QF_NIA` logic answers it in milliseconds; once a solver
/// has been checked and given more assertions, Z3 switches to its incremental
/// engine, which takes minutes here with libz3 4.8. So each model is found by a
/// fresh solver loaded with the script and every blocking clause so far.
pub fn step_models_from_smt2(
    level: &Level,
    steps: usize,
    limit: usize,
) -> Result<Vec<StepModel>, ModelError> {
    let names = names(level)?;
    let script = smt2_constraints(level, steps)?;
    let coeffs = coefficient_vars(&names, steps);
    let flat: Vec<Int> = coeffs.iter().flatten().cloned().collect();
    let width = names.len().max(1);
    let mut found: Vec<Vec<i64>> = Vec::new();
    while found.len() < limit {
        let solver = Solver::new_for_logic("QF_NIA").unwrap_or_default();
        solver.from_string(script.as_str());
        for m in &found {
            let differs: Vec<z3::ast::Bool> = flat.iter().zip(m).map(|(v, x)| v.ne(*x)).collect();
            solver.assert(z3::ast::Bool::or(&differs));
        }
        match z3util::check_model(&solver, "the SMT-LIB script") {
            Ok(model) => found.push(z3util::read_ints(&model, &flat, "the SMT-LIB script")?),
            Err(SolveError::Unsat(_)) => break,
            Err(e) => return Err(e.into()),
        }
    }
    found.sort();
    Ok(found
        .into_iter()
        .map(|v| StepModel {
            names: names.clone(),
            coefficients: v.chunks(width).map(<[i64]>::to_vec).collect(),
        })
        .collect())
}

fn models_of(
    solver: &Solver,
    coeffs: &[Vec<Int>],
    names: &[String],
    limit: usize,
) -> Result<Vec<StepModel>, ModelError> {
    let flat: Vec<Int> = coeffs.iter().flatten().cloned().collect();
    let width = names.len();
    let all = z3util::all_solutions(solver, &flat, limit, "the calculator level")?;
    Ok(all
        .into_iter()
        .map(|v| StepModel {
            names: names.to_vec(),
            coefficients: v.chunks(width.max(1)).map(<[i64]>::to_vec).collect(),
        })
        .collect())
}

/// Solves a level with Z3, fewest moves first: for 1, 2, … moves, the models of
/// the step model, each replayed by the simulator before it is returned.
pub fn solve_z3(level: &Level, all: bool) -> Result<Vec<(StepModel, Solution)>, ModelError> {
    let limit = if all { 10_000 } else { 1 };
    for steps in 1..=level.moves {
        let mut out = Vec::new();
        for m in step_models(level, steps, limit)? {
            // Z3's integers are unbounded; the simulator's are not. A model that
            // does not replay (an overflow) is not a solution.
            if let Some(s) = level.verify(m.presses(&level.buttons)) {
                out.push((m, s));
            }
        }
        if !out.is_empty() {
            return Ok(out);
        }
    }
    Ok(Vec::new())
}
