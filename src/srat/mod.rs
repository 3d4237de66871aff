//! Chapter 1: the Self-Referential Aptitude Test (write-up 000, Ruby + Z3).
//!
//! Twenty multiple-choice questions whose answers depend on each other. The
//! write-up's DSL (`answer`, `define`, `count_answers`, `abs`, `equals_one_of`)
//! lives in [`formula`] and [`Test`]; the twenty encodings in [`questions`].

pub mod formula;
pub mod questions;
pub mod test;

use std::fmt;

pub use formula::{
    abs, all, answer, any, count, count_answers, equals_one_of, q, Formula, Term, LETTERS,
};
pub use questions::{define_options, options, question_13_iff, standard_test, Q13Form, Q20Mode};
pub use test::Test;

use crate::rich::{Rendering, RichDisplay};
use crate::table::Table;
use crate::z3util::SolveError;

/// An answer sheet: one letter per question.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Answers(Vec<char>);

impl Answers {
    /// From numeric answers, 1 (A) to 5 (E).
    ///
    /// # Panics
    /// On a value outside 1..=5 (the solver's range constraints rule that out).
    pub fn from_values(values: &[i64]) -> Self {
        Answers(
            values
                .iter()
                .map(|v| LETTERS[usize::try_from(*v - 1).expect("answers are 1 to 5")])
                .collect(),
        )
    }

    /// From a string of letters such as `"DADB…"`.
    pub fn from_letters(letters: &str) -> Self {
        Answers(letters.chars().map(|c| c.to_ascii_uppercase()).collect())
    }

    /// The letters in order, e.g. `"DADBEDDEDABADBADBABE"`.
    pub fn letters(&self) -> String {
        self.0.iter().collect()
    }

    /// The answer to question `n` (1-based).
    pub fn get(&self, n: u8) -> Option<char> {
        self.0.get(usize::from(n).checked_sub(1)?).copied()
    }

    /// The answers as numbers, 1 (A) to 5 (E).
    pub fn values(&self) -> Vec<i64> {
        self.0.iter().map(|c| formula::letter_value(*c)).collect()
    }
}

impl fmt::Display for Answers {
    /// The write-up's output: `Q 1: D` … `Q20: E`, one line each.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.0.iter().enumerate() {
            writeln!(f, "Q{:2}: {c}", i + 1)?;
        }
        Ok(())
    }
}

impl RichDisplay for Answers {
    fn renderings(&self) -> Vec<Rendering> {
        vec![Rendering {
            mime: "text/plain",
            content: self.to_string(),
        }]
    }
}
crate::impl_evcxr_display!(Answers);

/// Solves the test as the write-up does (Q13 as implications, Q20 defined).
pub fn solve() -> Result<Answers, SolveError> {
    standard_test(Q13Form::Implications, Q20Mode::Define).solve()
}

/// Counts the answer sheets of the standard test, up to `limit`: 1 proves uniqueness.
pub fn count_solutions(limit: usize) -> Result<usize, SolveError> {
    standard_test(Q13Form::Implications, Q20Mode::Define).count_solutions(limit)
}

/// For each question, its answer and which of its five options hold under the
/// answer sheet, evaluated in a Z3 model of that sheet.
///
/// Columns: `Q`, `answer`, `A` … `E` (`yes`/`no`). A learner sees that each
/// answer's own option holds, and that option E of questions 6 and 17 never does.
pub fn explain(test: &Test, answers: &Answers) -> Result<Table, SolveError> {
    let mut t = Table::new(["Q", "answer", "A", "B", "C", "D", "E"]);
    for n in 1..=test.questions() {
        let holds = test.options_hold(n, answers)?;
        let mut row = vec![crate::Cell::from(n), answers.get(n).unwrap_or('?').into()];
        row.extend(holds.iter().map(|b| crate::Cell::from(*b)));
        t.push_row(row);
    }
    Ok(t)
}

/// [`explain`] for a test whose options are given for every question: the standard
/// encodings from [`options`] evaluated under `answers`, whatever form was solved.
pub fn explain_standard(answers: &Answers) -> Result<Table, SolveError> {
    let mut full = Test::new(20);
    for n in 1..=20 {
        define_options(&mut full, n);
    }
    explain(&full, answers)
}

/// Answer sheets as a one-column table (`sheet`), for listing several solutions.
pub fn solutions_table(sheets: &[Answers]) -> Table {
    let mut t = Table::new(["sheet"]);
    for s in sheets {
        t.push_row([s.letters()]);
    }
    t
}
