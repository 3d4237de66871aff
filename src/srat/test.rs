//! `Test`: the write-up's solver class, as plain data that is solved in one call.

use z3::ast::Int;
use z3::Solver;

use super::formula::{answer, letter_value, Formula, LETTERS};
use super::Answers;
use crate::z3util::{self, SolveError};

/// A self-referential test under construction: the `define` implications and any
/// plain assertions, over `questions` answers of `A`–`E`.
///
/// It holds no Z3 objects, so it can be built up over many notebook cells.
///
/// ```
/// use puzzlebook::srat::{answer, Test};
/// let mut t = Test::new(2);
/// t.define(1, 'A', answer(2, 'B'));
/// t.assert(answer(2, 'B'));
/// t.assert(answer(1, 'A'));
/// assert_eq!(t.solve().unwrap().letters(), "AB");
/// ```
#[derive(Debug, Clone)]
pub struct Test {
    questions: u8,
    defines: Vec<(u8, char, Formula)>,
    asserts: Vec<Formula>,
}

impl Test {
    /// A test of `questions` questions with no constraints yet but `1 <= q <= 5`.
    pub fn new(questions: u8) -> Self {
        Test {
            questions,
            defines: Vec::new(),
            asserts: Vec::new(),
        }
    }

    /// The number of questions.
    pub fn questions(&self) -> u8 {
        self.questions
    }

    /// `define(q, letter, body)`: the answer to `q` can be `letter` only if `body`
    /// holds (an implication, not an equivalence: several answers may be valid).
    ///
    /// # Panics
    /// When `q` is not a question of this test or `letter` is not `A`–`E`.
    pub fn define(&mut self, q: u8, letter: char, body: impl Into<Formula>) -> &mut Self {
        assert!(
            (1..=self.questions).contains(&q),
            "question {q} is not in 1..={}",
            self.questions
        );
        letter_value(letter);
        self.defines
            .push((q, letter.to_ascii_uppercase(), body.into()));
        self
    }

    /// Asserts a formula outright (the write-up's `@solver.assert`).
    pub fn assert(&mut self, f: impl Into<Formula>) -> &mut Self {
        self.asserts.push(f.into());
        self
    }

    /// The `define` statements so far, in order.
    pub fn defines(&self) -> &[(u8, char, Formula)] {
        &self.defines
    }

    /// The plain assertions so far, in order.
    pub fn asserts(&self) -> &[Formula] {
        &self.asserts
    }

    /// Every constraint as one formula each: the ranges, the implications and the
    /// assertions.
    pub fn constraints(&self) -> Vec<Formula> {
        let mut out = Vec::new();
        for (q, letter, body) in &self.defines {
            out.push(answer(*q, *letter).implies(body.clone()));
        }
        out.extend(self.asserts.iter().cloned());
        out
    }

    /// Builds a Z3 solver with every constraint, and the answer variables.
    pub(crate) fn to_solver(&self) -> (Solver, Vec<Int>) {
        let solver = Solver::new();
        let qs: Vec<Int> = (1..=self.questions)
            .map(|i| Int::new_const(format!("Q{i}")))
            .collect();
        for x in &qs {
            solver.assert(x.ge(1));
            solver.assert(x.le(5));
        }
        for f in self.constraints() {
            solver.assert(f.to_z3(&qs));
        }
        (solver, qs)
    }

    /// Solves the test: the first model Z3 finds.
    pub fn solve(&self) -> Result<Answers, SolveError> {
        let (solver, qs) = self.to_solver();
        let model = z3util::check_model(&solver, "the test")?;
        let values = z3util::read_ints(&model, &qs, "the test")?;
        Ok(Answers::from_values(&values))
    }

    /// Every answer sheet that satisfies the test, at most `limit`, sorted.
    pub fn all_solutions(&self, limit: usize) -> Result<Vec<Answers>, SolveError> {
        let (solver, qs) = self.to_solver();
        let all = z3util::all_solutions(&solver, &qs, limit, "the test")?;
        Ok(all.iter().map(|v| Answers::from_values(v)).collect())
    }

    /// How many answer sheets satisfy the test, counting up to `limit`.
    /// `1` proves the answer unique.
    pub fn count_solutions(&self, limit: usize) -> Result<usize, SolveError> {
        Ok(self.all_solutions(limit)?.len())
    }

    /// Whether each letter's `define` bodies hold for question `q` under `answers`,
    /// evaluated in a Z3 model that fixes the answers.
    ///
    /// A letter with no `define` for `q` counts as holding when no define restricts it.
    pub fn options_hold(&self, q: u8, answers: &Answers) -> Result<[bool; 5], SolveError> {
        let qs: Vec<Int> = (1..=self.questions)
            .map(|i| Int::new_const(format!("Q{i}")))
            .collect();
        let solver = Solver::new();
        for (x, v) in qs.iter().zip(answers.values()) {
            solver.assert(x.eq(v));
        }
        let model = z3util::check_model(&solver, "the answer sheet")?;
        let mut out = [true; 5];
        for (i, letter) in LETTERS.iter().enumerate() {
            for (dq, dl, body) in &self.defines {
                if *dq == q && dl == letter {
                    let holds = model
                        .eval(&body.to_z3(&qs), true)
                        .and_then(|b| b.as_bool())
                        .ok_or_else(|| SolveError::Unreadable {
                            what: format!("question {q} option {letter}"),
                            var: body.to_string(),
                        })?;
                    out[i] &= holds;
                }
            }
        }
        Ok(out)
    }
}
