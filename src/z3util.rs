//! Z3 helpers the write-ups define in their own languages, and model reading.
//!
//! Everything here works on Z3 objects of the calling thread's context, so it is
//! meant to be called inside one library call, never across notebook cells.

use thiserror::Error;
use z3::ast::{Bool, Int, Real};
use z3::{Model, Params, SatResult, Solver};

/// Why a solve produced no model.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SolveError {
    /// The constraints have no solution.
    #[error("unsatisfiable: the constraints of {0} have no solution")]
    Unsat(String),
    /// Z3 gave up.
    #[error("unknown: Z3 could not decide {what} ({reason})")]
    Unknown {
        /// What was being solved.
        what: String,
        /// Z3's reason.
        reason: String,
    },
    /// A model was found but a value could not be read from it.
    #[error("the model of {what} has no integer value for {var}")]
    Unreadable {
        /// What was being solved.
        what: String,
        /// The variable.
        var: String,
    },
}

/// A solver set as the grader's ([`grade::Exercise`](crate::grade::Exercise)
/// uses one for each listing or query): a time limit of `timeout_ms`, and
/// Z3's legacy arithmetic solver (`arith.solver = 2`), as the 24 game's
/// solvers use. Students write products and remainders of unknowns: 04-4's
/// right answer by divisibility (`(x·y) mod a = 0`) took 5.7 s to list for 1
/// to 13 on Z3 4.8.12's default, and 30 s for 1 to 15, ending in
/// "incomplete (theory arithmetic)"; with this setting 0.07 s each. A visible
/// check built on it judges as the grader will.
pub fn grader_solver(timeout_ms: u32) -> Solver {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32("timeout", timeout_ms);
    params.set_u32("arith.solver", 2);
    solver.set_params(&params);
    solver
}

/// Checks `solver` and returns its model, or a [`SolveError`] naming `what`.
pub fn check_model(solver: &Solver, what: &str) -> Result<Model, SolveError> {
    match solver.check() {
        SatResult::Sat => solver.get_model().ok_or_else(|| SolveError::Unknown {
            what: what.to_string(),
            reason: "no model was produced".to_string(),
        }),
        SatResult::Unsat => Err(SolveError::Unsat(what.to_string())),
        SatResult::Unknown => Err(SolveError::Unknown {
            what: what.to_string(),
            reason: solver
                .get_reason_unknown()
                .unwrap_or_else(|| "no reason given".to_string()),
        }),
    }
}

/// The number of `statements` that are true, as a Z3 integer (`ite(b, 1, 0)` summed).
pub fn count(statements: &[Bool]) -> Int {
    let ones: Vec<Int> = statements
        .iter()
        .map(|b| b.ite(&Int::from_i64(1), &Int::from_i64(0)))
        .collect();
    if ones.is_empty() {
        Int::from_i64(0)
    } else {
        Int::add(&ones)
    }
}

/// `|x|` as `ite(x >= 0, x, -x)`.
pub fn abs(x: &Int) -> Int {
    x.ge(Int::from_i64(0)).ite(x, &x.unary_minus())
}

/// `x` equals one of `values`.
pub fn equals_one_of(x: &Int, values: &[i64]) -> Bool {
    let eqs: Vec<Bool> = values.iter().map(|v| x.eq(Int::from_i64(*v))).collect();
    Bool::or(&eqs)
}

/// The real numeral `v`.
///
/// (`Real::from_rational` needs `Z3_mk_real_int64`, which Debian's libz3 4.8 lacks;
/// a numeral string works with every version.)
pub fn real(v: i64) -> Real {
    Real::from_rational_str(&v.to_string(), "1").expect("an integer is a valid numeral")
}

/// Reads integer variables from a model (with model completion).
pub fn read_ints(model: &Model, vars: &[Int], what: &str) -> Result<Vec<i64>, SolveError> {
    vars.iter()
        .map(|v| {
            model
                .eval(v, true)
                .and_then(|x| x.as_i64())
                .ok_or_else(|| SolveError::Unreadable {
                    what: what.to_string(),
                    var: v.to_string(),
                })
        })
        .collect()
}

/// Reads a real variable from a model as a reduced fraction `(numerator, denominator)`.
pub fn read_rational(model: &Model, var: &Real, what: &str) -> Result<(i64, i64), SolveError> {
    model
        .eval(var, true)
        .and_then(|x| x.as_rational())
        .ok_or_else(|| SolveError::Unreadable {
            what: what.to_string(),
            var: var.to_string(),
        })
}

/// Every assignment of `vars` that satisfies `solver`, at most `limit` of them,
/// sorted so output is deterministic.
///
/// Each model found is blocked (`vars != model`) before the next check. The solver
/// is left as it was: the blocking clauses live in a pushed scope.
///
/// ```
/// use puzzlebook::z3util::all_solutions;
/// use z3::{ast::Int, Solver};
/// let s = Solver::new();
/// let x = Int::new_const("x");
/// s.assert(x.ge(1));
/// s.assert(x.le(3));
/// assert_eq!(all_solutions(&s, &[x], 10, "x").unwrap(), vec![vec![1], vec![2], vec![3]]);
/// ```
pub fn all_solutions(
    solver: &Solver,
    vars: &[Int],
    limit: usize,
    what: &str,
) -> Result<Vec<Vec<i64>>, SolveError> {
    solver.push();
    let mut found = Vec::new();
    let result = loop {
        if found.len() >= limit {
            break Ok(());
        }
        match solver.check() {
            SatResult::Unsat => break Ok(()),
            SatResult::Unknown => {
                break Err(SolveError::Unknown {
                    what: what.to_string(),
                    reason: solver
                        .get_reason_unknown()
                        .unwrap_or_else(|| "no reason given".to_string()),
                })
            }
            SatResult::Sat => {}
        }
        let model = match solver.get_model() {
            Some(m) => m,
            None => {
                break Err(SolveError::Unknown {
                    what: what.to_string(),
                    reason: "no model was produced".to_string(),
                })
            }
        };
        let values = match read_ints(&model, vars, what) {
            Ok(v) => v,
            Err(e) => break Err(e),
        };
        let differs: Vec<Bool> = vars
            .iter()
            .zip(&values)
            .map(|(v, x)| v.ne(Int::from_i64(*x)))
            .collect();
        solver.assert(Bool::or(&differs));
        found.push(values);
    };
    solver.pop(1);
    result?;
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_abs_and_equals_one_of() {
        let s = Solver::new();
        let x = Int::new_const("x");
        let bs = [x.gt(0), x.gt(1), x.gt(2)];
        s.assert(count(&bs).eq(2));
        s.assert(abs(&x).eq(2));
        let m = check_model(&s, "test").unwrap();
        assert_eq!(
            read_ints(&m, std::slice::from_ref(&x), "test").unwrap(),
            vec![2]
        );
        let s = Solver::new();
        s.assert(equals_one_of(&x, &[-3, 5]));
        s.assert(abs(&x).gt(4));
        assert_eq!(all_solutions(&s, &[x], 10, "t").unwrap(), vec![vec![5]]);
    }

    #[test]
    fn unsat_is_an_error_value() {
        let s = Solver::new();
        s.assert(Bool::from_bool(false));
        assert_eq!(
            check_model(&s, "nothing").unwrap_err(),
            SolveError::Unsat("nothing".into())
        );
    }

    #[test]
    fn all_solutions_respects_limit_and_restores_solver() {
        let s = Solver::new();
        let x = Int::new_const("x");
        s.assert(x.ge(0));
        s.assert(x.le(9));
        assert_eq!(
            all_solutions(&s, std::slice::from_ref(&x), 3, "x")
                .unwrap()
                .len(),
            3
        );
        assert_eq!(all_solutions(&s, &[x], 100, "x").unwrap().len(), 10);
    }
}
