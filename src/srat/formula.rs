//! The test's little language: integer terms and formulas as plain data.
//!
//! The write-up builds Z3 expressions directly, and so does chapter 01's
//! notebook. The crate's own encoding of the test (`srat::solve`, which
//! `puzzlebook solve srat` runs, and which the notebook checks its sheet
//! against) is written as a [`Formula`] of our own, evaluated without Z3 as
//! well as translated to it ([`Formula::to_z3`]).

use std::fmt;
use std::ops::{Add, BitAnd, BitOr, Neg, Not, Sub};

use z3::ast::{Bool, Int};

use crate::z3util;

/// The letters of the answers, `A` = 1 … `E` = 5.
pub const LETTERS: [char; 5] = ['A', 'B', 'C', 'D', 'E'];

/// The number of a letter: `A` is 1, `E` is 5.
///
/// # Panics
/// On anything but `A`–`E` (upper or lower case): a typo in a question.
pub fn letter_value(letter: char) -> i64 {
    match letter.to_ascii_uppercase() {
        'A' => 1,
        'B' => 2,
        'C' => 3,
        'D' => 4,
        'E' => 5,
        other => panic!("answers are A to E, not {other:?}"),
    }
}

/// An integer-valued expression over the answers.
#[derive(Debug, Clone)]
pub enum Term {
    /// A constant.
    Const(i64),
    /// The answer to question n, as 1 (A) to 5 (E).
    Answer(u8),
    /// A sum.
    Sum(Vec<Term>),
    /// A difference.
    Diff(Box<Term>, Box<Term>),
    /// A negation.
    Neg(Box<Term>),
    /// The absolute value.
    Abs(Box<Term>),
    /// The number of true formulas.
    Count(Vec<Formula>),
}

/// A true-or-false statement about the answers.
#[derive(Debug, Clone)]
pub enum Formula {
    /// A constant.
    Lit(bool),
    /// Two terms are equal.
    Eq(Term, Term),
    /// Negation.
    Not(Box<Formula>),
    /// All hold.
    And(Vec<Formula>),
    /// At least one holds.
    Or(Vec<Formula>),
    /// The first implies the second.
    Implies(Box<Formula>, Box<Formula>),
    /// Both hold or neither does.
    Iff(Box<Formula>, Box<Formula>),
}

/// `q(n)`: the answer to question `n` as a number (the write-up's `q[n]`).
pub fn q(n: u8) -> Term {
    Term::Answer(n)
}

/// `answer(n, 'A')`: the answer to question `n` is the letter.
pub fn answer(n: u8, letter: char) -> Formula {
    Formula::Eq(Term::Answer(n), Term::Const(letter_value(letter)))
}

/// The number of `statements` that hold.
pub fn count(statements: impl IntoIterator<Item = Formula>) -> Term {
    Term::Count(statements.into_iter().collect())
}

/// The number of questions in `range` whose answer is `letter`.
pub fn count_answers(letter: char, range: impl IntoIterator<Item = u8>) -> Term {
    count(range.into_iter().map(|i| answer(i, letter)))
}

/// The absolute value.
pub fn abs(x: Term) -> Term {
    Term::Abs(Box::new(x))
}

/// `x` equals one of `values`.
pub fn equals_one_of(x: Term, values: &[i64]) -> Formula {
    Formula::Or(values.iter().map(|v| x.clone().eq(*v)).collect())
}

/// All of `fs` hold (the write-up's `Z3.And(...)`).
pub fn all(fs: impl IntoIterator<Item = Formula>) -> Formula {
    Formula::And(fs.into_iter().collect())
}

/// At least one of `fs` holds.
pub fn any(fs: impl IntoIterator<Item = Formula>) -> Formula {
    Formula::Or(fs.into_iter().collect())
}

impl From<i64> for Term {
    fn from(v: i64) -> Self {
        Term::Const(v)
    }
}
impl From<i32> for Term {
    fn from(v: i32) -> Self {
        Term::Const(v.into())
    }
}
impl From<bool> for Formula {
    fn from(v: bool) -> Self {
        Formula::Lit(v)
    }
}

impl Term {
    /// `self == other`, as a formula (named as in z3.rs).
    #[allow(clippy::should_implement_trait)]
    pub fn eq(self, other: impl Into<Term>) -> Formula {
        Formula::Eq(self, other.into())
    }

    /// `self != other`, as a formula.
    #[allow(clippy::should_implement_trait)]
    pub fn ne(self, other: impl Into<Term>) -> Formula {
        !self.eq(other)
    }

    /// The value of this term when the answers are `answers` (1 to 5 each,
    /// question n at index n-1): a plain-Rust evaluation, independent of Z3.
    pub fn eval(&self, answers: &[i64]) -> i64 {
        match self {
            Term::Const(c) => *c,
            Term::Answer(n) => answers[usize::from(*n) - 1],
            Term::Sum(ts) => ts.iter().map(|t| t.eval(answers)).sum(),
            Term::Diff(a, b) => a.eval(answers) - b.eval(answers),
            Term::Neg(a) => -a.eval(answers),
            Term::Abs(a) => a.eval(answers).abs(),
            Term::Count(fs) => fs.iter().filter(|f| f.eval(answers)).count() as i64,
        }
    }

    /// This term in Z3, over the answer variables `qs` (question n at index n-1).
    pub fn to_z3(&self, qs: &[Int]) -> Int {
        match self {
            Term::Const(c) => Int::from_i64(*c),
            Term::Answer(n) => qs[usize::from(*n) - 1].clone(),
            Term::Sum(ts) => {
                let zs: Vec<Int> = ts.iter().map(|t| t.to_z3(qs)).collect();
                if zs.is_empty() {
                    Int::from_i64(0)
                } else {
                    Int::add(&zs)
                }
            }
            Term::Diff(a, b) => a.to_z3(qs) - b.to_z3(qs),
            Term::Neg(a) => a.to_z3(qs).unary_minus(),
            Term::Abs(a) => z3util::abs(&a.to_z3(qs)),
            Term::Count(fs) => {
                let bs: Vec<Bool> = fs.iter().map(|f| f.to_z3(qs)).collect();
                z3util::count(&bs)
            }
        }
    }
}

impl Formula {
    /// `self` implies `other`.
    pub fn implies(self, other: impl Into<Formula>) -> Formula {
        Formula::Implies(Box::new(self), Box::new(other.into()))
    }

    /// `self` holds exactly when `other` does.
    pub fn iff(self, other: impl Into<Formula>) -> Formula {
        Formula::Iff(Box::new(self), Box::new(other.into()))
    }

    /// Whether this formula holds when the answers are `answers`, evaluated in
    /// plain Rust (independent of Z3).
    pub fn eval(&self, answers: &[i64]) -> bool {
        match self {
            Formula::Lit(b) => *b,
            Formula::Eq(a, b) => a.eval(answers) == b.eval(answers),
            Formula::Not(f) => !f.eval(answers),
            Formula::And(fs) => fs.iter().all(|f| f.eval(answers)),
            Formula::Or(fs) => fs.iter().any(|f| f.eval(answers)),
            Formula::Implies(a, b) => !a.eval(answers) || b.eval(answers),
            Formula::Iff(a, b) => a.eval(answers) == b.eval(answers),
        }
    }

    /// This formula in Z3, over the answer variables `qs`.
    pub fn to_z3(&self, qs: &[Int]) -> Bool {
        match self {
            Formula::Lit(b) => Bool::from_bool(*b),
            Formula::Eq(a, b) => a.to_z3(qs).eq(b.to_z3(qs)),
            Formula::Not(f) => f.to_z3(qs).not(),
            Formula::And(fs) => {
                let bs: Vec<Bool> = fs.iter().map(|f| f.to_z3(qs)).collect();
                Bool::and(&bs)
            }
            Formula::Or(fs) => {
                let bs: Vec<Bool> = fs.iter().map(|f| f.to_z3(qs)).collect();
                Bool::or(&bs)
            }
            Formula::Implies(a, b) => a.to_z3(qs).implies(b.to_z3(qs)),
            Formula::Iff(a, b) => a.to_z3(qs).iff(b.to_z3(qs)),
        }
    }
}

impl<T: Into<Term>> Add<T> for Term {
    type Output = Term;
    fn add(self, rhs: T) -> Term {
        match (self, rhs.into()) {
            (Term::Sum(mut a), Term::Sum(b)) => {
                a.extend(b);
                Term::Sum(a)
            }
            (Term::Sum(mut a), b) => {
                a.push(b);
                Term::Sum(a)
            }
            (a, b) => Term::Sum(vec![a, b]),
        }
    }
}
impl<T: Into<Term>> Sub<T> for Term {
    type Output = Term;
    fn sub(self, rhs: T) -> Term {
        Term::Diff(Box::new(self), Box::new(rhs.into()))
    }
}
impl Neg for Term {
    type Output = Term;
    fn neg(self) -> Term {
        Term::Neg(Box::new(self))
    }
}
impl Not for Formula {
    type Output = Formula;
    fn not(self) -> Formula {
        Formula::Not(Box::new(self))
    }
}
impl BitAnd for Formula {
    type Output = Formula;
    fn bitand(self, rhs: Formula) -> Formula {
        match self {
            Formula::And(mut fs) => {
                fs.push(rhs);
                Formula::And(fs)
            }
            f => Formula::And(vec![f, rhs]),
        }
    }
}
impl BitOr for Formula {
    type Output = Formula;
    fn bitor(self, rhs: Formula) -> Formula {
        match self {
            Formula::Or(mut fs) => {
                fs.push(rhs);
                Formula::Or(fs)
            }
            f => Formula::Or(vec![f, rhs]),
        }
    }
}

fn join<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T], sep: &str) -> fmt::Result {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

impl fmt::Display for Term {
    /// Shows the term the way a reader writes it, with the Z3 variables' names:
    /// `Q7 - Q8`, `count(Q1 = B, …)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Const(c) => write!(f, "{c}"),
            Term::Answer(n) => write!(f, "Q{n}"),
            Term::Sum(ts) => {
                f.write_str("(")?;
                join(f, ts, " + ")?;
                f.write_str(")")
            }
            Term::Diff(a, b) => write!(f, "({a} - {b})"),
            Term::Neg(a) => write!(f, "-{a}"),
            Term::Abs(a) => write!(f, "|{a}|"),
            Term::Count(fs) => {
                f.write_str("count(")?;
                join(f, fs, ", ")?;
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for Formula {
    /// Shows the formula with answers as letters where it can: `Q1 = B`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Formula::Lit(b) => write!(f, "{b}"),
            Formula::Eq(Term::Answer(n), Term::Const(c)) if (1..=5).contains(c) => {
                write!(f, "Q{n} = {}", LETTERS[(*c - 1) as usize])
            }
            Formula::Eq(a, b) => write!(f, "{a} = {b}"),
            Formula::Not(inner) => match inner.as_ref() {
                Formula::Eq(Term::Answer(n), Term::Const(c)) if (1..=5).contains(c) => {
                    write!(f, "Q{n} ≠ {}", LETTERS[(*c - 1) as usize])
                }
                Formula::Eq(a, b) => write!(f, "{a} ≠ {b}"),
                other => write!(f, "¬({other})"),
            },
            Formula::And(fs) => {
                f.write_str("(")?;
                join(f, fs, " ∧ ")?;
                f.write_str(")")
            }
            Formula::Or(fs) => {
                f.write_str("(")?;
                join(f, fs, " ∨ ")?;
                f.write_str(")")
            }
            Formula::Implies(a, b) => write!(f, "({a} → {b})"),
            Formula::Iff(a, b) => write!(f, "({a} ↔ {b})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_follows_the_meaning() {
        let mut a = vec![1; 20];
        a[0] = 2; // q1 = B
        assert!(answer(1, 'B').eval(&a));
        assert_eq!(count_answers('A', 1..=20).eval(&a), 19);
        assert_eq!(abs(q(1) - q(2) - 3).eval(&a), 2);
        assert!(equals_one_of(q(1), &[5, 2]).eval(&a));
        assert!((answer(1, 'A') | answer(2, 'A')).eval(&a));
        assert!(!(answer(1, 'A') & answer(2, 'A')).eval(&a));
        assert!(answer(1, 'A').implies(false).eval(&a));
    }

    #[test]
    fn display_reads_like_the_write_up() {
        let f = !answer(1, 'B') & answer(2, 'B');
        assert_eq!(f.to_string(), "(Q1 ≠ B ∧ Q2 = B)");
        assert_eq!(abs(q(7) - q(8)).eq(4).to_string(), "|(Q7 - Q8)| = 4");
    }

    #[test]
    #[should_panic(expected = "answers are A to E")]
    fn bad_letters_panic_with_the_letter() {
        answer(1, 'F');
    }
}

impl crate::rich::RichDisplay for Term {
    fn renderings(&self) -> Vec<crate::rich::Rendering> {
        vec![crate::rich::Rendering {
            mime: "text/plain",
            content: self.to_string(),
        }]
    }
}
impl crate::rich::RichDisplay for Formula {
    fn renderings(&self) -> Vec<crate::rich::Rendering> {
        vec![crate::rich::Rendering {
            mime: "text/plain",
            content: self.to_string(),
        }]
    }
}
crate::impl_evcxr_display!(Term, Formula);
