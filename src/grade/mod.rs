//! Grading by meaning: a student's constraints against a reference's, compared
//! as solution sets over an exercise's interface variables, with a witness
//! from each side where they differ.
//!
//! A test cell calls [`compare`] with two functions that build constraints
//! over the same interface variables: the student's (from the solution cell)
//! and the reference (from the teacher's hidden tests; never from this crate,
//! which students can read). Both are `fn`s, so they can be defined in one
//! notebook cell and called in a later one; `compare` calls them with fresh
//! interface variables of its own.
//!
//! The comparison is exact:
//!
//! - when both sides have at most [`Exercise::limit`] solutions, by listing
//!   them (a blocking clause after each model, over the interface variables
//!   only, so variables of the student's own are projected away);
//! - otherwise by asking Z3 for a model of `student ∧ ¬reference` and one of
//!   `reference ∧ ¬student`, as z3guide's "Guess the Secret Formula" does,
//!   with each side's own variables projected away: the side that is negated
//!   is `∀ own. ¬side`, so a student's helper (say, the count of B answers
//!   after question 11) is never read as a solution ruled out.
//!
//! Z3's `unknown`, or a timeout, makes the verdict [`Verdict::NotGraded`] with
//! Z3's reason: never "wrong".
//!
//! [`hand_in`] and [`judge`] compare the same way with the two sides apart:
//! the student's process hands its answer over as data (constraints as
//! SMT-LIB, a number, a set), a run of the teacher's notebook writes the
//! reference as data, and the grader judges one against the other with a
//! Z3 of its own ([`handed`] is the format between them).

pub mod hand_in;
pub mod handed;
mod hint;
pub mod inputs;
pub mod judge;

pub use hand_in::{hand_in, hand_in_number, hand_in_set, Answer};
pub use inputs::{inputs, Draw};
pub use judge::Judgement;

use std::collections::{BTreeSet, HashSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use z3::ast::{Ast, Bool, Dynamic, Int};
use z3::AstKind;
use z3::{FuncDecl, SatResult, Solver};

use crate::z3util::{self, SolveError};

/// A named constraint of the reference, so that feedback can say which one
/// a witness breaks ("question 7", "step 2").
#[derive(Debug, Clone)]
pub struct Rule {
    /// What the rule is, as the chapter names it.
    pub name: String,
    /// The constraint.
    pub holds: Bool,
    /// Statements about an assignment, each said of a witness that breaks
    /// the rule when it holds there: [`Rule::noting`].
    pub notes: Vec<Note>,
}

/// A statement about an assignment, in the puzzle's words ("questions 12
/// and 13 have the same answer"), with its constraint.
#[derive(Debug, Clone)]
pub struct Note {
    /// The statement.
    pub text: String,
    /// When it holds.
    pub holds: Bool,
}

/// A [`Rule`] named `name`.
pub fn rule(name: impl Into<String>, holds: Bool) -> Rule {
    Rule {
        name: name.into(),
        holds,
        notes: Vec::new(),
    }
}

/// At most this many notes are said of one witness; the rest are counted.
const NOTES_SAID: usize = 3;

impl Rule {
    /// Adds statements that say *why* a witness breaks the rule: each one
    /// that must hold on a witness breaking it is said with it, after the
    /// names of the rules it breaks. A note is over the interface variables
    /// alone: one that needs another constant to be decided (a helper the
    /// rule defines) never must hold, and is never said. Option A of
    /// "the only two consecutive questions with the same answer are 6 and
    /// 7" notes each other pair, so that feedback reads "it breaks option A
    /// …; there, questions 19 and 20 have the same answer", not a sheet of
    /// twenty letters the student must search.
    pub fn noting(mut self, notes: impl IntoIterator<Item = (impl Into<String>, Bool)>) -> Rule {
        self.notes
            .extend(notes.into_iter().map(|(text, holds)| Note {
                text: text.into(),
                holds,
            }));
        self
    }
}

/// An exercise's interface and limits.
#[derive(Debug, Clone)]
pub struct Exercise {
    /// The exercise's name, as in `todo!("exercise 01-1")`: `01-1`.
    pub id: String,
    /// The interface variables, integers, in the order the constraint
    /// functions receive them.
    pub variables: Vec<String>,
    /// How a variable's value is shown in feedback (`Q1=B` rather than `Q1=2`).
    pub show: Show,
    /// Up to this many solutions a side is listed; above it, the two sides
    /// are compared by two Z3 queries.
    pub limit: usize,
    /// Z3's time limit for each query, in milliseconds.
    pub timeout_ms: u32,
    /// The values witnesses are chosen near, if any: [`Exercise::near`].
    pub near: Option<Near>,
}

/// An assignment of the interface variables that witnesses are chosen near,
/// the puzzle's own solution, say, with the name feedback gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Near {
    /// What it is, as feedback names it: "the write-up's sheet".
    pub name: String,
    /// Its values, in the interface's order.
    pub values: Vec<i64>,
}

impl Near {
    /// How many of `values` differ from its own.
    fn distance(&self, values: &[i64]) -> usize {
        self.values
            .iter()
            .zip(values)
            .filter(|(a, b)| a != b)
            .count()
    }
}

impl Exercise {
    /// An exercise over integer variables named `variables`, shown as
    /// `name=value`, listing up to 200 solutions a side, with a 10-second
    /// limit for each Z3 query.
    pub fn new(
        id: impl Into<String>,
        variables: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Exercise {
            id: id.into(),
            variables: variables.into_iter().map(Into::into).collect(),
            show: Show::Plain,
            limit: 200,
            timeout_ms: 10_000,
            near: None,
        }
    }

    /// Chooses each witness as close to `values` as Z3 finds one: with the
    /// fewest variables that differ from them. Feedback then shows a
    /// witness as `name` with what differs ("the write-up's sheet with
    /// Q20=B"), which a student reads more easily than a list of values Z3
    /// happened to pick.
    ///
    /// # Panics
    /// When `values` does not give one value for each variable: the
    /// teacher's mistake, which fails the teacher's notebook's own test.
    pub fn near(mut self, name: impl Into<String>, values: impl IntoIterator<Item = i64>) -> Self {
        let values: Vec<i64> = values.into_iter().collect();
        assert_eq!(
            values.len(),
            self.variables.len(),
            "exercise {}: `near` needs one value for each of its {} variables",
            self.id,
            self.variables.len()
        );
        self.near = Some(Near {
            name: name.into(),
            values,
        });
        self
    }

    /// Shows values with `show` in feedback. A function cannot be handed to
    /// a grader in another process ([`hand_in`]): there, use
    /// [`Exercise::shown_as_letters`].
    pub fn shown_as(mut self, show: fn(&str, i64) -> String) -> Self {
        self.show = Show::By(show);
        self
    }

    /// Shows the value `v` as the `v`-th of `letters` (`Q1=B` for 2 with
    /// `"ABCDE"`), and `?` for a value outside them.
    pub fn shown_as_letters(mut self, letters: &str) -> Self {
        self.show = Show::Letters(letters.to_string());
        self
    }

    /// Lists up to `limit` solutions a side.
    pub fn listing_up_to(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Gives each Z3 query at most `ms` milliseconds.
    pub fn timeout_ms(mut self, ms: u32) -> Self {
        self.timeout_ms = ms;
        self
    }

    fn variables_in_z3(&self) -> Vec<Int> {
        self.variables
            .iter()
            .map(|n| Int::new_const(n.as_str()))
            .collect()
    }

    /// A solver for one listing or query, with the time limit:
    /// [`z3util::grader_solver`].
    fn solver(&self) -> Solver {
        z3util::grader_solver(self.timeout_ms)
    }

    /// The values as feedback shows them: `Q1=B, Q2=A`, and with a
    /// [`Near`], first how they differ from it.
    fn shown(&self, values: &[i64]) -> String {
        let all = self
            .variables
            .iter()
            .zip(values)
            .map(|(n, v)| self.show.one(n, *v))
            .collect::<Vec<_>>()
            .join(", ");
        let Some(near) = &self.near else {
            return all;
        };
        let changed: Vec<String> = self
            .variables
            .iter()
            .zip(values.iter().zip(&near.values))
            .filter(|(_, (v, n))| v != n)
            .map(|(name, (v, _))| self.show.one(name, *v))
            .collect();
        if changed.is_empty() {
            format!("{} itself ({all})", near.name)
        } else {
            format!("{} with {} ({all})", near.name, changed.join(", "))
        }
    }
}

/// How feedback shows a variable's value.
#[derive(Debug, Clone)]
pub enum Show {
    /// `name=value`.
    Plain,
    /// `name=letter`, the value counting the letters from 1 (`?` outside them).
    Letters(String),
    /// By a function of the name and the value.
    By(fn(&str, i64) -> String),
}

impl Show {
    fn one(&self, name: &str, value: i64) -> String {
        match self {
            Show::Plain => format!("{name}={value}"),
            Show::Letters(letters) => {
                let letter = usize::try_from(value)
                    .ok()
                    .and_then(|v| v.checked_sub(1))
                    .and_then(|i| letters.chars().nth(i))
                    .unwrap_or('?');
                format!("{name}={letter}")
            }
            Show::By(show) => show(name, value),
        }
    }
}

/// An assignment of the interface variables on which the two sides disagree,
/// with what it breaks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witness {
    /// The variables' values, in the interface's order.
    pub values: Vec<i64>,
    /// The values as feedback shows them: `Q1=B, Q2=A`.
    pub shown: String,
    /// What it breaks: the reference rules for an assignment the student
    /// allows, or the student's constraints (`your constraint 3`, counted
    /// from 1) for a solution the student rules out.
    pub breaks: Vec<String>,
    /// What holds there, of the notes of the rules it breaks
    /// ([`Rule::noting`]), in order, each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub there: Vec<String>,
    /// Why the reference keeps or removes this element, in the puzzle's
    /// words: given for a set drawn from candidates
    /// ([`Answer::check_kept_part`](hand_in::Answer::check_kept_part)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// How the student's constraints compare with the reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// The same solutions; their number when they were listed.
    Same {
        /// How many solutions both sides have, when listed.
        solutions: Option<usize>,
    },
    /// The solution sets differ: a witness from each side that has one.
    Differs {
        /// An assignment the student's model allows and the reference rules out.
        allowed: Option<Witness>,
        /// A solution of the reference that the student's model rules out.
        ruled_out: Option<Witness>,
    },
    /// Z3 could not decide (unknown, or the time limit): not graded.
    NotGraded {
        /// Z3's reason, and for which side.
        reason: String,
    },
    /// A number asked for, and the one given.
    Predicted {
        /// The student's number.
        yours: i64,
        /// The right one.
        expected: i64,
        /// Why it is the right one, as a sentence.
        why: String,
    },
    /// Nothing to compare: no answer was handed in, or not one the grader
    /// can read.
    NoAnswer {
        /// Why, for the student.
        why: String,
    },
    /// A wrong answer that means what one of the teacher's typical mistakes
    /// means ([`Answer::mistake`]), with that mistake's hint.
    Hinted {
        /// The verdict on the answer: [`Verdict::Differs`] or a wrong
        /// [`Verdict::Predicted`].
        verdict: Box<Verdict>,
        /// The hint, as the teacher wrote it.
        hint: String,
    },
}

/// How many points a differing answer gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Partial {
    /// None: all points for the same solutions, else none.
    #[default]
    None,
    /// Half the points for each direction that holds: no wrong solution
    /// allowed, and no right solution ruled out.
    PerSide,
}

impl Verdict {
    /// Whether the student's model means what the reference does.
    pub fn is_right(&self) -> bool {
        match self {
            Verdict::Same { .. } => true,
            Verdict::Predicted {
                yours, expected, ..
            } => yours == expected,
            Verdict::Hinted { verdict, .. } => verdict.is_right(),
            _ => false,
        }
    }

    /// The verdict without its hint, and the hint, if it has one.
    pub fn without_hint(&self) -> (&Verdict, Option<&str>) {
        match self {
            Verdict::Hinted { verdict, hint } => (verdict, Some(hint)),
            other => (other, None),
        }
    }

    /// The points out of `max`, or `None` when not graded.
    pub fn points(&self, max: f64, partial: Partial) -> Option<f64> {
        match (self, partial) {
            (Verdict::Same { .. }, _) => Some(max),
            (Verdict::Predicted { .. }, _) => Some(if self.is_right() { max } else { 0.0 }),
            (Verdict::NoAnswer { .. }, _) => Some(0.0),
            (Verdict::NotGraded { .. }, _) => None,
            (Verdict::Hinted { verdict, .. }, partial) => verdict.points(max, partial),
            (Verdict::Differs { .. }, Partial::None) => Some(0.0),
            (Verdict::Differs { allowed, ruled_out }, Partial::PerSide) => {
                let sides = usize::from(allowed.is_none()) + usize::from(ruled_out.is_none());
                Some(max * sides as f64 / 2.0)
            }
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Same { solutions: Some(n) } => write!(
                f,
                "Right: your model has exactly the reference's {n} solution{}.",
                if *n == 1 { "" } else { "s" }
            ),
            Verdict::Same { solutions: None } => {
                write!(
                    f,
                    "Right: your model and the reference agree on every assignment."
                )
            }
            Verdict::Differs { allowed, ruled_out } => {
                f.write_str("Not yet:")?;
                if let Some(Witness {
                    shown,
                    why: Some(why),
                    ..
                }) = allowed
                {
                    write!(
                        f,
                        "\n- you keep {shown}, which the reference removes: {why};"
                    )?;
                } else if let Some(w) = allowed {
                    write!(
                        f,
                        "\n- your model allows {}, which the reference rules out",
                        w.shown
                    )?;
                    if !w.breaks.is_empty() {
                        write!(f, " (it breaks {}", w.breaks.join(", "))?;
                        if !w.there.is_empty() {
                            write!(f, "; there, {}", said(&w.there))?;
                        }
                        f.write_str(")")?;
                    }
                    f.write_str(";")?;
                }
                if let Some(Witness {
                    shown,
                    why: Some(why),
                    ..
                }) = ruled_out
                {
                    write!(
                        f,
                        "\n- you remove {shown}, which the reference keeps: {why};"
                    )?;
                } else if let Some(w) = ruled_out {
                    write!(
                        f,
                        "\n- your model rules out {}, which is a solution",
                        w.shown
                    )?;
                    if !w.breaks.is_empty() {
                        write!(f, " ({} fails there)", w.breaks.join(", "))?;
                    }
                    f.write_str(";")?;
                }
                Ok(())
            }
            Verdict::NotGraded { reason } => write!(
                f,
                "Not graded: {reason}. This does not mean your answer is wrong; \
                 your teacher will look at it."
            ),
            Verdict::Predicted {
                yours,
                expected,
                why,
            } => match yours == expected {
                true => write!(f, "Right: {expected}. {why}"),
                false => write!(f, "Not yet: your answer is {yours}. {why}"),
            },
            Verdict::NoAnswer { why } => write!(f, "Not answered: {why}."),
            Verdict::Hinted { verdict, hint } => write!(f, "{verdict}\nHint: {hint}"),
        }
    }
}

/// Compares the student's constraints with the reference's over the
/// exercise's interface. Both functions receive the interface variables, in
/// order, and may make variables of their own.
pub fn compare(
    exercise: &Exercise,
    student: impl Fn(&[Int]) -> Vec<Bool>,
    reference: impl Fn(&[Int]) -> Vec<Rule>,
) -> Verdict {
    let vars = exercise.variables_in_z3();
    let theirs = student(&vars);
    let ours: Vec<Rule> = reference(&vars);
    compare_built(exercise, &vars, &theirs, &ours)
}

/// [`compare`] of constraints already built over the interface variables
/// `vars` (`exercise`'s, in order).
fn compare_built(exercise: &Exercise, vars: &[Int], theirs: &[Bool], ours: &[Rule]) -> Verdict {
    let ours_holds: Vec<Bool> = ours.iter().map(|r| r.holds.clone()).collect();
    match compare_by_listing(exercise, vars, theirs, &ours_holds) {
        Ok(Some(verdict)) => verdict.described(exercise, vars, theirs, ours),
        Ok(None) => match compare_by_queries(exercise, vars, theirs, &ours_holds) {
            Ok(verdict) => verdict.described(exercise, vars, theirs, ours),
            Err(reason) => Verdict::NotGraded { reason },
        },
        Err(reason) => Verdict::NotGraded { reason },
    }
}

/// Compares two finite sets that a plain-Rust answer computes (the pairs a
/// prune keeps, the sequences a search finds), each element as its numbers;
/// `show` writes an element for the feedback. The witnesses are the smallest
/// element each side has and the other lacks.
///
/// When the reference is a choice among candidates, `reasons` says for each
/// candidate why the reference keeps or removes it, and each witness carries
/// its reason; an element that is no candidate gets one that says so. With
/// no reasons, the witnesses carry none.
pub fn compare_sets(
    student: impl IntoIterator<Item = Vec<i64>>,
    reference: impl IntoIterator<Item = Vec<i64>>,
    show: impl Fn(&[i64]) -> String,
    reasons: &[(Vec<i64>, String)],
) -> Verdict {
    let theirs: BTreeSet<Vec<i64>> = student.into_iter().collect();
    let ours: BTreeSet<Vec<i64>> = reference.into_iter().collect();
    if theirs == ours {
        return Verdict::Same {
            solutions: Some(ours.len()),
        };
    }
    // The reason of an element the student keeps: every candidate has one,
    // and an element that is none is kept by no answer. An element the
    // student removes is the reference's, so a candidate.
    let why = |v: &Vec<i64>, kept_by_student: bool| {
        if reasons.is_empty() {
            return None;
        }
        match reasons.iter().find(|(element, _)| element == v) {
            Some((_, why)) => Some(why.clone()),
            None if kept_by_student => {
                Some("it is not one of the candidates given, so no answer keeps it".to_string())
            }
            None => None,
        }
    };
    let witness = |v: Option<&Vec<i64>>, kept_by_student: bool| {
        v.map(|v| Witness {
            values: v.clone(),
            shown: show(v),
            breaks: Vec::new(),
            there: Vec::new(),
            why: why(v, kept_by_student),
        })
    };
    Verdict::Differs {
        allowed: witness(theirs.difference(&ours).next(), true),
        ruled_out: witness(ours.difference(&theirs).next(), false),
    }
}

/// Both sides listed, when each has at most `limit` solutions; `None` when
/// one has more.
fn compare_by_listing(
    exercise: &Exercise,
    vars: &[Int],
    student: &[Bool],
    reference: &[Bool],
) -> Result<Option<Verdict>, String> {
    let list = |constraints: &[Bool], side: &str| -> Result<Option<BTreeSet<Vec<i64>>>, String> {
        let solver = exercise.solver();
        for c in constraints {
            solver.assert(c);
        }
        let found = z3util::all_solutions(&solver, vars, exercise.limit + 1, side)
            .map_err(|e| reason(&e))?;
        Ok((found.len() <= exercise.limit).then(|| found.into_iter().collect()))
    };
    let Some(theirs) = list(student, "your model")? else {
        return Ok(None);
    };
    let Some(ours) = list(reference, "the reference")? else {
        return Ok(None);
    };
    if theirs == ours {
        return Ok(Some(Verdict::Same {
            solutions: Some(ours.len()),
        }));
    }
    // The first in order, or with a `Near`, the first of those closest to it.
    let witness = |mut values: std::collections::btree_set::Difference<'_, Vec<i64>>| {
        let chosen = match &exercise.near {
            Some(near) => values.min_by_key(|v| near.distance(v)),
            None => values.next(),
        };
        chosen.map(|v| Witness {
            values: v.clone(),
            shown: String::new(),
            breaks: Vec::new(),
            there: Vec::new(),
            why: None,
        })
    };
    Ok(Some(Verdict::Differs {
        allowed: witness(theirs.difference(&ours)),
        ruled_out: witness(ours.difference(&theirs)),
    }))
}

/// `student ∧ ¬reference` and `reference ∧ ¬student`, each a Z3 query;
/// with a [`Near`], each witness found is then brought closer to it
/// ([`closer`]).
fn compare_by_queries(
    exercise: &Exercise,
    vars: &[Int],
    student: &[Bool],
    reference: &[Bool],
) -> Result<Verdict, String> {
    let one_side = |holds: &[Bool], not: &[Bool], side: &str| -> Result<Option<Witness>, String> {
        let not_there = nowhere(not, vars);
        // The side's question, within `distance` of the `Near` if given:
        // `Ok(None)` when it has no answer.
        let ask = |within: Option<(&Near, usize)>| -> Result<Option<Vec<i64>>, String> {
            // A question of the search for a nearer witness only refines
            // one already found, so it gets a short limit: the whole
            // judgement must fit its process's limit.
            let solver = match within {
                None => exercise.solver(),
                Some(_) => z3util::grader_solver(exercise.timeout_ms.min(NEAR_QUERY_MS)),
            };
            for c in holds {
                solver.assert(c);
            }
            solver.assert(&not_there);
            if let Some((near, distance)) = within {
                solver.assert(differences(vars, &near.values).le(distance as i64));
            }
            match solver.check() {
                SatResult::Unsat => Ok(None),
                SatResult::Unknown => Err(format!(
                    "Z3 could not decide whether {side} ({})",
                    solver
                        .get_reason_unknown()
                        .unwrap_or_else(|| "no reason given".into())
                )),
                SatResult::Sat => {
                    let model = solver
                        .get_model()
                        .ok_or_else(|| format!("Z3 gave no model for whether {side}"))?;
                    z3util::read_ints(&model, vars, side)
                        .map(Some)
                        .map_err(|e| reason(&e))
                }
            }
        };
        let Some(found) = ask(None)? else {
            return Ok(None);
        };
        let values = match &exercise.near {
            Some(near) => closer(near, found, |d| ask(Some((near, d))).ok()),
            None => found,
        };
        Ok(Some(Witness {
            values,
            shown: String::new(),
            breaks: Vec::new(),
            there: Vec::new(),
            why: None,
        }))
    };
    let allowed = one_side(
        student,
        reference,
        "your model allows what the reference rules out",
    )?;
    let ruled_out = one_side(reference, student, "your model rules out a solution")?;
    Ok(if allowed.is_none() && ruled_out.is_none() {
        Verdict::Same { solutions: None }
    } else {
        Verdict::Differs { allowed, ruled_out }
    })
}

/// Z3's time limit, in milliseconds, for each question of the search for a
/// nearer witness ([`closer`]), at most the exercise's own.
const NEAR_QUERY_MS: u32 = 2_000;

/// The witness closest to `near` that `within` finds, starting from
/// `found`: a binary search on the distance, where `within(d)` is
/// `Some(Some(witness))` for a witness at most `d` values away from `near`,
/// `Some(None)` when there is none, and `None` when Z3 could not say. A
/// question Z3 cannot decide ends the search with the closest witness found
/// so far, so the search asks at most about log₂ of the number of variables
/// questions, each within [`NEAR_QUERY_MS`].
fn closer(
    near: &Near,
    found: Vec<i64>,
    within: impl Fn(usize) -> Option<Option<Vec<i64>>>,
) -> Vec<i64> {
    let mut best = found;
    // No witness is closer than `low`.
    let mut low = 0;
    while low < near.distance(&best) {
        let mid = (low + near.distance(&best) - 1) / 2;
        match within(mid) {
            Some(Some(values)) if near.distance(&values) <= mid => best = values,
            Some(None) => low = mid + 1,
            // Undecided, or a model that breaks its own bound.
            _ => break,
        }
    }
    best
}

/// How many of `vars` differ from `values`, as a Z3 term.
fn differences(vars: &[Int], values: &[i64]) -> Int {
    let differs: Vec<Bool> = vars
        .iter()
        .zip(values)
        .map(|(v, x)| v.eq(*x).not())
        .collect();
    z3util::count(&differs)
}

/// `¬∃ own. ⋀ constraints`: no values of the side's own variables (those
/// that are not the interface's) satisfy `constraints` with the interface's
/// values. Without variables of its own, this is `¬⋀ constraints`.
fn nowhere(constraints: &[Bool], vars: &[Int]) -> Bool {
    let own = own_variables(constraints, vars);
    let own: Vec<&dyn Ast> = own.iter().map(|v| v as &dyn Ast).collect();
    z3::ast::forall_const(&own, &[], &Bool::and(constraints).not())
}

/// The constants in `constraints` that are not among the interface's `vars`:
/// variables a side made of its own. Each shared subterm is visited once.
///
/// Not seen, so not projected: a constant only inside a quantifier's body
/// (the z3 crate gives no way into it), and an uninterpreted function of
/// arguments.
fn own_variables(constraints: &[Bool], vars: &[Int]) -> Vec<Dynamic> {
    let interface: HashSet<Dynamic> = vars.iter().map(|v| Dynamic::from_ast(v)).collect();
    let mut seen: HashSet<Dynamic> = HashSet::new();
    let mut own = Vec::new();
    let mut todo: Vec<Dynamic> = constraints.iter().map(|c| Dynamic::from_ast(c)).collect();
    while let Some(term) = todo.pop() {
        if term.kind() != AstKind::App || !seen.insert(term.clone()) {
            continue;
        }
        let children = term.children();
        if children.is_empty() {
            if !interface.contains(&term) && is_uninterpreted(&term) {
                own.push(term);
            }
        } else {
            todo.extend(children);
        }
    }
    own.sort_by_key(|v| v.to_string());
    own
}

/// Whether a constant is a variable, not one of Z3's own: it is what
/// declaring its name and sort afresh gives, or it is a fresh constant
/// (`Int::fresh_const("h")`, which Z3 names `h!0`), whose declaration is its
/// own, so that no declaration by name equals it. Z3's own constants are
/// numerals, whose AST kind ([`AstKind::Numeral`]) is not the applications'
/// that [`own_variables`] walks, and operators of no arguments:
/// `true`, `false`, and what `Bool::or(&[])`, `Bool::and(&[])` or
/// `Bool::pb_le(&[], 1)` make, whose names have no `!`.
/// One of those taken for a variable was quantified, which Z3 refuses: the
/// comparison panicked, and the answer was "not graded". Not by Z3's
/// declaration kind, whose numbering z3-sys takes from Z3 5.3 and up: on Z3
/// 4.8.12 it reads as no kind at all.
fn is_uninterpreted(constant: &Dynamic) -> bool {
    let sort = constant.get_sort();
    let name = constant.decl().name();
    let declared = FuncDecl::new(name.as_str(), &[], &sort);
    declared.apply(&[]) == *constant || name.contains('!')
}

/// A grader's solver holding `vars` at `values`, with `limit_ms` a query.
fn solver_at(vars: &[Int], values: &[i64], limit_ms: u32) -> Solver {
    let solver = z3util::grader_solver(limit_ms);
    for (v, x) in vars.iter().zip(values) {
        solver.assert(v.eq(*x));
    }
    solver
}

/// The statements among `notes` that must hold with `values` (their
/// negation cannot), each once, in order: what feedback says of a witness
/// that breaks the rules they note. Notes only explain, so each is decided
/// within the witness search's limit, and one Z3 cannot decide is not said.
fn notes_there<'a>(
    exercise: &Exercise,
    vars: &[Int],
    values: &[i64],
    notes: impl IntoIterator<Item = &'a Note>,
) -> Vec<String> {
    let solver = solver_at(vars, values, exercise.timeout_ms.min(NEAR_QUERY_MS));
    let mut there: Vec<String> = Vec::new();
    for n in notes {
        if there.contains(&n.text) {
            continue;
        }
        solver.push();
        solver.assert(n.holds.not());
        let must = solver.check() == SatResult::Unsat;
        solver.pop(1);
        if must {
            there.push(n.text.clone());
        }
    }
    there
}

/// Notes as feedback says them: the first [`NOTES_SAID`], and how many more.
fn said(notes: &[String]) -> String {
    let shown = notes[..notes.len().min(NOTES_SAID)].join(", ");
    match notes.len().saturating_sub(NOTES_SAID) {
        0 => shown,
        more => format!(
            "{shown}, and {more} more like {}",
            if more == 1 { "it" } else { "them" }
        ),
    }
}

fn reason(e: &SolveError) -> String {
    match e {
        SolveError::Unknown { what, reason } => format!("Z3 could not decide {what} ({reason})"),
        other => other.to_string(),
    }
}

impl Verdict {
    /// Fills in each witness's shown values and what it breaks.
    fn described(
        self,
        exercise: &Exercise,
        vars: &[Int],
        student: &[Bool],
        reference: &[Rule],
    ) -> Verdict {
        let Verdict::Differs { allowed, ruled_out } = self else {
            return self;
        };
        // Whether `c` can hold on `solver`'s values.
        let can_hold = |solver: &Solver, c: &Bool| -> bool {
            solver.push();
            solver.assert(c);
            let holds = solver.check() != SatResult::Unsat;
            solver.pop(1);
            holds
        };
        // The constraints among `named` that cannot hold with these values.
        let broken = |values: &[i64], named: Vec<(String, &Bool)>| -> Vec<String> {
            let solver = solver_at(vars, values, exercise.timeout_ms);
            named
                .into_iter()
                .filter(|(_, c)| !can_hold(&solver, c))
                .map(|(name, _)| name)
                .collect()
        };
        let allowed = allowed.map(|w| {
            let solver = solver_at(vars, &w.values, exercise.timeout_ms);
            let breaking: Vec<&Rule> = reference
                .iter()
                .filter(|r| !can_hold(&solver, &r.holds))
                .collect();
            let there = notes_there(
                exercise,
                vars,
                &w.values,
                breaking.iter().flat_map(|r| &r.notes),
            );
            Witness {
                shown: exercise.shown(&w.values),
                breaks: breaking.iter().map(|r| r.name.clone()).collect(),
                there,
                values: w.values,
                why: None,
            }
        });
        let ruled_out = ruled_out.map(|w| Witness {
            shown: exercise.shown(&w.values),
            breaks: broken(
                &w.values,
                student
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (format!("your constraint {}", i + 1), c))
                    .collect(),
            ),
            there: Vec::new(),
            values: w.values,
            why: None,
        });
        Verdict::Differs { allowed, ruled_out }
    }
}

/// Stops an exercise that is not solved yet, naming it: the stub a student
/// release puts where the solution was.
///
/// The name comes from the function the stub sits in, so one stub serves
/// every exercise (nbgrader's `ClearSolutions.code_stub` is one text per
/// language): in `fn exercise_03_2`, it panics with "exercise 03-2 is not
/// solved yet". Its type is `!`, so it compiles in any function.
#[macro_export]
macro_rules! unsolved {
    () => {{
        fn here() {}
        $crate::grade::stop_unsolved(::std::any::type_name_of_val(&here))
    }};
}

/// What [`unsolved!`](crate::unsolved) panics with; `path` is its marker
/// function's path, `…::exercise_03_2::here`.
pub fn stop_unsolved(path: &str) -> ! {
    panic!("{}", unsolved_message(path))
}

fn unsolved_message(path: &str) -> String {
    let function = path.rsplit("::").nth(1).unwrap_or(path);
    let what = match function.strip_prefix("exercise_") {
        Some(id) => format!("exercise {}", id.replacen('_', "-", 1)),
        None => format!("the exercise in `fn {function}`"),
    };
    format!("{what} is not solved yet: write your answer in place of `puzzlebook::unsolved!()`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_sets_are_compared_with_the_smallest_witness_of_each_side() {
        let pair = |v: &[i64]| format!("({}, {})", v[0], v[1]);
        let right = compare_sets(
            [vec![2, 3], vec![1, 4]],
            [vec![1, 4], vec![2, 3]],
            pair,
            &[],
        );
        assert_eq!(right, Verdict::Same { solutions: Some(2) });
        let wrong = compare_sets(
            [vec![1, 4], vec![5, 5], vec![3, 3]],
            [vec![1, 4], vec![2, 3]],
            pair,
            &[],
        );
        let text = wrong.to_string();
        assert!(
            text.contains("your model allows (3, 3), which the reference rules out;"),
            "{text}"
        );
        assert!(
            text.contains("your model rules out (2, 3), which is a solution;"),
            "{text}"
        );
    }

    #[test]
    fn a_choice_among_candidates_gives_each_witness_its_reason() {
        let pair = |v: &[i64]| format!("({}, {})", v[0], v[1]);
        // Keep the pairs whose sum another pair shares: 5 twice, 6 once.
        let reasons = [
            (vec![1, 4], "(2, 3) also sums to 5".to_string()),
            (vec![2, 3], "(1, 4) also sums to 5".to_string()),
            (vec![3, 3], "no other pair sums to 6".to_string()),
        ];
        let keeps = || [vec![1, 4], vec![2, 3]];
        let text = compare_sets([vec![1, 4], vec![3, 3]], keeps(), pair, &reasons).to_string();
        assert_eq!(
            text,
            "Not yet:\n\
             - you keep (3, 3), which the reference removes: no other pair sums to 6;\n\
             - you remove (2, 3), which the reference keeps: (1, 4) also sums to 5;"
        );
        let stranger = compare_sets(
            keeps().into_iter().chain([vec![0, 9]]),
            keeps(),
            pair,
            &reasons,
        );
        assert!(
            stranger
                .to_string()
                .contains("you keep (0, 9), which the reference removes: it is not one of the candidates given, so no answer keeps it;"),
            "{stranger}"
        );
        assert!(compare_sets(keeps(), keeps(), pair, &reasons).is_right());
    }

    #[test]
    fn the_stub_names_its_exercise() {
        fn exercise_03_2() -> i64 {
            crate::unsolved!()
        }
        let panic = std::panic::catch_unwind(exercise_03_2).unwrap_err();
        let message = panic.downcast_ref::<String>().unwrap();
        assert!(
            message.starts_with("exercise 03-2 is not solved yet"),
            "{message}"
        );
        assert_eq!(
            unsolved_message("run_user_code_3::here"),
            "the exercise in `fn run_user_code_3` is not solved yet: write your answer in place of `puzzlebook::unsolved!()`"
        );
    }

    /// The witness of a verdict whose only difference is an assignment the
    /// student allows.
    fn allowed_only(v: &Verdict) -> &Witness {
        match v {
            Verdict::Differs {
                allowed: Some(w),
                ruled_out: None,
            } => w,
            other => panic!("{other:?}"),
        }
    }

    /// x and y from 1 to 3, with x < y: three solutions.
    fn reference(v: &[Int]) -> Vec<Rule> {
        vec![
            rule(
                "the bounds",
                Bool::and(&[v[0].ge(1), v[0].le(3), v[1].ge(1), v[1].le(3)]),
            ),
            rule("x below y", v[0].lt(&v[1])),
        ]
    }

    fn exercise() -> Exercise {
        Exercise::new("t-1", ["x", "y"])
    }

    #[test]
    fn the_same_meaning_written_otherwise_is_right() {
        // (1,2), (1,3), (2,3), written as a list.
        let v = compare(
            &exercise(),
            |v| {
                let pair = |a: i64, b: i64| Bool::and(&[v[0].eq(a), v[1].eq(b)]);
                vec![Bool::or(&[pair(1, 2), pair(1, 3), pair(2, 3)])]
            },
            reference,
        );
        assert_eq!(v, Verdict::Same { solutions: Some(3) });
        assert_eq!(v.points(2.0, Partial::None), Some(2.0));
    }

    #[test]
    fn a_weaker_model_is_shown_what_it_allows_and_what_that_breaks() {
        // x <= y also allows (1,1), (2,2), (3,3); the smallest is (1,1).
        let v = compare(
            &exercise(),
            |v| vec![v[0].ge(1), v[1].le(3), v[0].le(&v[1])],
            reference,
        );
        let w = allowed_only(&v);
        assert_eq!(w.values, [1, 1]);
        assert_eq!(w.shown, "x=1, y=1");
        assert_eq!(w.breaks, ["x below y"]);
        assert_eq!(v.points(2.0, Partial::None), Some(0.0));
        assert_eq!(v.points(2.0, Partial::PerSide), Some(1.0));
        let text = v.to_string();
        assert!(
            text.contains(
                "your model allows x=1, y=1, which the reference rules out (it breaks x below y)"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_witness_is_told_what_the_notes_of_the_rules_it_breaks_say_of_it() {
        // (1,1) breaks "x below y"; of its notes only "x equals y" must hold
        // there, once however often it is noted. The bounds' note holds
        // there too, but the bounds are not broken, so it is not said.
        let noted = |v: &[Int]| {
            vec![
                rule(
                    "the bounds",
                    Bool::and(&[v[0].ge(1), v[0].le(3), v[1].ge(1), v[1].le(3)]),
                )
                .noting([("x is small", v[0].le(1))]),
                rule("x below y", v[0].lt(&v[1])).noting([
                    ("x above y", v[0].gt(&v[1])),
                    ("x equals y", v[0].eq(&v[1])),
                    ("x equals y", v[1].eq(&v[0])),
                    // True for some value of `z`, but not one the witness
                    // decides.
                    ("z is x", Int::new_const("z").eq(&v[0])),
                ]),
            ]
        };
        let v = compare(
            &exercise(),
            |v| vec![v[0].ge(1), v[1].le(3), v[0].le(&v[1])],
            noted,
        );
        let w = allowed_only(&v);
        assert_eq!(w.values, [1, 1]);
        assert_eq!(w.there, ["x equals y"]);
        let text = v.to_string();
        assert!(
            text.contains("(it breaks x below y; there, x equals y);"),
            "{text}"
        );
    }

    #[test]
    fn many_notes_are_said_three_and_counted() {
        let notes = |n: usize| (1..=n).map(|i| format!("note {i}")).collect::<Vec<_>>();
        assert_eq!(said(&notes(1)), "note 1");
        assert_eq!(said(&notes(3)), "note 1, note 2, note 3");
        assert_eq!(
            said(&notes(4)),
            "note 1, note 2, note 3, and 1 more like it"
        );
        assert_eq!(
            said(&notes(18)),
            "note 1, note 2, note 3, and 15 more like them"
        );
    }

    #[test]
    fn a_stronger_model_is_shown_the_solution_it_rules_out() {
        // y = x + 1 rules out (1,3).
        let v = compare(
            &exercise().shown_as(|n, x| format!("{n}:{x}")),
            |v| vec![v[0].ge(1), v[1].le(3), v[1].eq(&v[0] + 1)],
            reference,
        );
        let Verdict::Differs {
            allowed: None,
            ruled_out: Some(w),
        } = &v
        else {
            panic!("{v:?}");
        };
        assert_eq!(w.shown, "x:1, y:3");
        assert_eq!(w.breaks, ["your constraint 3"]);
        assert!(v
            .to_string()
            .contains("rules out x:1, y:3, which is a solution (your constraint 3 fails there)"));
    }

    #[test]
    fn variables_of_the_student_s_own_are_projected_away() {
        // z is the student's helper: x < y exactly when some z > 0 has x + z = y.
        let v = compare(
            &exercise(),
            with_helper(|n| Int::new_const(n), 0),
            reference,
        );
        assert_eq!(v, Verdict::Same { solutions: Some(3) });
    }

    /// x < y with a helper z of the student's own, made by `make`: some z
    /// above `least` has x + z = y. Right for `least` 0; with -1, x = y too.
    fn with_helper(make: fn(&str) -> Int, least: i64) -> impl Fn(&[Int]) -> Vec<Bool> {
        move |v| {
            let z = make("z");
            vec![v[0].ge(1), v[1].le(3), z.gt(least), (&v[0] + &z).eq(&v[1])]
        }
    }

    #[test]
    fn variables_of_the_student_s_own_are_projected_away_in_queries_too() {
        // As above, compared by queries: `reference ∧ ¬student` with z free
        // found z = 5 for (1, 2), a "solution ruled out" that is not one.
        // `Int::fresh_const` declares a constant that no declaration by name
        // equals: it was left free too, and (1, 3) was "a solution ruled
        // out", with z = 1 not tried.
        let by_name: fn(&str) -> Int = |n| Int::new_const(n);
        let fresh: fn(&str) -> Int = |n| Int::fresh_const(n);
        for make in [by_name, fresh] {
            let v = compare(
                &exercise().listing_up_to(0),
                with_helper(make, 0),
                reference,
            );
            assert_eq!(v, Verdict::Same { solutions: None });
            // And a helper does not hide a wrong answer: z >= 0 also allows x = y.
            let v = compare(
                &exercise().listing_up_to(0),
                with_helper(make, -1),
                reference,
            );
            let w = allowed_only(&v);
            assert_eq!(w.values[0], w.values[1], "{w:?}");
        }
        let (h, p) = (Int::fresh_const("h"), Bool::fresh_const("p"));
        let found = own_variables(&[h.gt(0), p.clone(), Bool::from_bool(true)], &[]);
        assert_eq!(found, [Dynamic::from_ast(&h), Dynamic::from_ast(&p)]);
    }

    /// Chapter 01's sheet helpers, as the notebook's `in_z3` writes them.
    mod sheet {
        use z3::ast::{Bool, Int};

        pub fn bounds(qs: &[Int]) -> Vec<Bool> {
            qs.iter().map(|q| Bool::and(&[q.ge(1), q.le(5)])).collect()
        }

        pub fn answer(qs: &[Int], n: usize, letter: i64) -> Bool {
            qs[n - 1].eq(letter)
        }

        pub fn count_b(qs: &[Int], from: usize) -> Int {
            let ones: Vec<Int> = (from..=20)
                .map(|n| answer(qs, n, 2).ite(&Int::from_i64(1), &Int::from_i64(0)))
                .collect();
            Int::add(&ones)
        }
    }

    #[test]
    fn question_11_with_a_helper_count_is_right() {
        // Exercise 01-1: "the number of questions following this one with the
        // answer B is (A) 0 … (E) 4". The reference counts inline; this
        // student names the count `b` and defines the options over it.
        let ex = Exercise::new("01-1", (1..=20).map(|n| format!("Q{n}"))).listing_up_to(0);
        let options = |qs: &[Int], count: &Int| -> Vec<Bool> {
            (1..=5)
                .map(|letter| sheet::answer(qs, 11, letter).implies(count.eq(letter - 1)))
                .collect()
        };
        let reference = |qs: &[Int]| {
            let mut rules = vec![rule("the bounds", Bool::and(&sheet::bounds(qs)))];
            for (i, c) in options(qs, &sheet::count_b(qs, 12)).into_iter().enumerate() {
                rules.push(rule(format!("option {}", ["A", "B", "C", "D", "E"][i]), c));
            }
            rules
        };
        let with_helper = |qs: &[Int]| {
            let b = Int::new_const("b_after_11");
            let mut mine = sheet::bounds(qs);
            mine.push(b.eq(sheet::count_b(qs, 12)));
            mine.extend(options(qs, &b));
            mine
        };
        assert_eq!(
            compare(&ex, with_helper, reference),
            Verdict::Same { solutions: None }
        );
        // The same helper counted from question 11 on is wrong, and said so.
        let off_by_one = |qs: &[Int]| {
            let b = Int::new_const("b_after_11");
            let mut mine = sheet::bounds(qs);
            mine.push(b.eq(sheet::count_b(qs, 11)));
            mine.extend(options(qs, &b));
            mine
        };
        assert!(
            matches!(compare(&ex, off_by_one, reference), Verdict::Differs { .. }),
            "counting question 11 itself is not question 11"
        );
    }

    #[test]
    fn own_variables_are_the_constants_outside_the_interface_each_once() {
        let (x, y) = (Int::new_const("x"), Int::new_const("y"));
        let (h, k) = (Int::new_const("h"), Int::new_const("k"));
        let shared = &h + &k;
        let found = own_variables(
            &[shared.eq(&x), shared.gt(&y), h.lt(3), Bool::new_const("p")],
            &[x, y],
        );
        let names: Vec<String> = found.iter().map(|v| v.to_string()).collect();
        assert_eq!(names, ["h", "k", "p"]);
    }

    #[test]
    fn z3_s_own_constants_are_not_taken_for_variables() {
        // `pi` and the rounding mode `RNE` are constants of no arguments
        // too; quantifying over them is an error in Z3 (it panicked here).
        let x = Int::new_const("x");
        let answer = crate::smtlib::read(
            "(declare-const x Int)(declare-const h Int)\
             (assert (= (+ x h) (to_int pi)))(assert (= RNE RNE))(assert true)",
        )
        .expect("Z3 reads it");
        let names: Vec<String> = own_variables(&answer, std::slice::from_ref(&x))
            .iter()
            .map(|v| v.to_string())
            .collect();
        assert_eq!(names, ["h"]);
        // Quantified over `h` alone, it is built (taken for a variable, `pi`
        // made it panic). Whether it holds is transcendental: Z3 4.8.12 says
        // unknown, so the meaning is checked on the rounding mode alone.
        nowhere(&answer, std::slice::from_ref(&x));
        let answer = crate::smtlib::read(
            "(declare-const x Int)(declare-const h Int)\
             (assert (= (+ x h) 3))(assert (= RNE RNE))",
        )
        .expect("Z3 reads it");
        // x = 3 - h for some h: every x.
        let everywhere = Solver::new();
        everywhere.assert(nowhere(&answer, std::slice::from_ref(&x)));
        assert_eq!(everywhere.check(), SatResult::Unsat);
    }

    #[test]
    fn infinite_sets_are_compared_by_two_queries() {
        let ex = exercise().listing_up_to(5);
        // x < y over all integers, two ways.
        let right = compare(
            &ex,
            |v| vec![(&v[0] + 1).le(&v[1])],
            |v| vec![rule("x below y", v[0].lt(&v[1]))],
        );
        assert_eq!(right, Verdict::Same { solutions: None });
        let wrong = compare(
            &ex,
            |v| vec![v[0].le(&v[1])],
            |v| vec![rule("x below y", v[0].lt(&v[1]))],
        );
        let w = allowed_only(&wrong);
        assert_eq!(
            w.values[0], w.values[1],
            "a witness of x <= y that is not x < y"
        );
        assert_eq!(w.breaks, ["x below y"]);
    }

    #[test]
    fn unknown_is_not_graded_and_never_wrong() {
        // A nonlinear question with a 1 ms limit: Z3 gives up ("timeout" or
        // "canceled"), and the verdict says so.
        let ex = Exercise::new("t-2", ["x", "y", "z"])
            .listing_up_to(0)
            .timeout_ms(1);
        let cube = |v: &[Int]| {
            let c = |x: &Int| x * x * x;
            vec![
                v[0].gt(0),
                v[1].gt(0),
                v[2].gt(0),
                (c(&v[0]) + c(&v[1])).eq(c(&v[2])),
            ]
        };
        let v = compare(&ex, cube, |v| {
            cube(v).into_iter().map(|c| rule("c", c)).collect()
        });
        let Verdict::NotGraded { reason } = &v else {
            panic!("{v:?}");
        };
        assert!(reason.starts_with("Z3 could not decide"), "{reason}");
        assert_eq!(v.points(2.0, Partial::PerSide), None);
        assert!(v.to_string().contains("does not mean your answer is wrong"));
    }

    #[test]
    fn z3_s_operators_of_no_arguments_are_no_variables_and_compare_without_a_panic() {
        // `Bool::or` of no terms is Z3's `or` of no arguments, false; each of
        // these is an operator of no arguments. `or` was taken for a variable
        // of the answer's own and quantified, which Z3 refuses: the
        // comparison panicked, and the answer was "not graded".
        let x = Int::new_const("x");
        let none: &[Bool] = &[];
        let builtins = [Bool::or(none), Bool::and(none), Bool::pb_le(&[], 1)];
        for c in &builtins {
            let own = own_variables(std::slice::from_ref(c), std::slice::from_ref(&x));
            assert!(own.is_empty(), "{c}: {own:?}");
        }
        let exercise = Exercise::new("or-0", ["x"]).listing_up_to(0);
        let nothing = |_: &[Int]| vec![Bool::or(&[] as &[Bool])];
        let verdict = compare(&exercise, nothing, |v: &[Int]| {
            vec![rule("x is 0 or more", v[0].ge(0))]
        });
        let text = verdict.to_string();
        assert!(text.contains("your model rules out x="), "{text}");
        let none = compare(&exercise, nothing, |_: &[Int]| {
            vec![rule("no x", Bool::from_bool(false))]
        });
        assert!(none.is_right(), "{none}");
    }

    /// Ten digits x0 … x9, each from 0 to 9, summing to 45: the counting
    /// 0, 1, …, 9 is one of them. Compared by queries.
    fn digits() -> Exercise {
        Exercise::new("t-3", (0..10).map(|i| format!("x{i}")))
            .listing_up_to(0)
            .near("the counting", 0..10)
    }

    fn digits_in_bounds(v: &[Int]) -> Vec<Bool> {
        v.iter().flat_map(|x| [x.ge(0), x.le(9)]).collect()
    }

    fn sum_45(v: &[Int]) -> Vec<Rule> {
        vec![
            rule("the bounds", Bool::and(&digits_in_bounds(v))),
            rule("a sum of 45", Int::add(v).eq(45)),
        ]
    }

    #[test]
    fn a_witness_near_the_solution_differs_from_it_in_as_few_values_as_it_can() {
        // "At least 45" allows sums above 45. Every such sheet differs from
        // the counting (sum 45), and raising one digit below 9 gives one:
        // the nearest witness differs in exactly one value.
        let v = compare(
            &digits(),
            |v| {
                let mut c = digits_in_bounds(v);
                c.push(Int::add(v).ge(45));
                c
            },
            sum_45,
        );
        let w = allowed_only(&v);
        let changed: Vec<usize> = (0..10).filter(|&i| w.values[i] != i as i64).collect();
        assert_eq!(changed.len(), 1, "{w:?}");
        let i = changed[0];
        assert!(w.values[i] > i as i64 && w.values[i] <= 9, "{w:?}");
        assert!(
            w.shown
                .starts_with(&format!("the counting with x{i}={} (x0=", w.values[i])),
            "{}",
            w.shown
        );
        assert_eq!(w.breaks, ["a sum of 45"]);
    }

    #[test]
    fn a_solution_ruled_out_is_the_near_one_when_it_is_ruled_out() {
        // x0 >= 1 rules the counting out, and it is a solution: the witness
        // nearest it is itself.
        let v = compare(
            &digits(),
            |v| {
                let mut c = digits_in_bounds(v);
                c.push(Int::add(v).eq(45));
                c.push(v[0].ge(1));
                c
            },
            sum_45,
        );
        let Verdict::Differs {
            allowed: None,
            ruled_out: Some(w),
        } = &v
        else {
            panic!("{v:?}")
        };
        assert_eq!(w.values, (0..10).collect::<Vec<i64>>());
        assert!(
            w.shown.starts_with("the counting itself (x0=0, x1=1"),
            "{}",
            w.shown
        );
        assert_eq!(w.breaks, ["your constraint 22"]);
    }

    #[test]
    fn a_listed_witness_is_the_first_of_those_nearest() {
        // x <= y allows (1,1), (2,2) and (3,3), which the reference rules
        // out; from (2,3), (1,1) differs in two values, the others in one.
        let v = compare(
            &exercise().near("the pair (2, 3)", [2, 3]),
            |v| vec![v[0].ge(1), v[1].le(3), v[0].le(&v[1])],
            reference,
        );
        let w = allowed_only(&v);
        assert_eq!(w.values, [2, 2]);
        assert_eq!(w.shown, "the pair (2, 3) with y=2 (x=2, y=2)");
    }

    #[test]
    fn the_search_for_a_nearer_witness_keeps_the_nearest_when_z3_cannot_say() {
        let near = Near {
            name: "zero".into(),
            values: vec![0; 4],
        };
        // Z3 undecided at every question: the witness found stays.
        assert_eq!(closer(&near, vec![1, 1, 1, 1], |_| None), [1, 1, 1, 1]);
        // None within one value; [1, 1, 0, 0] within two or more.
        let asked = std::cell::RefCell::new(Vec::new());
        let found = closer(&near, vec![1, 1, 1, 1], |d| {
            asked.borrow_mut().push(d);
            Some((d >= 2).then(|| vec![1, 1, 0, 0]))
        });
        assert_eq!(found, [1, 1, 0, 0]);
        // Halving: within 1 (none), within 2 (found), and then 2 is known
        // to be the least.
        assert_eq!(asked.into_inner(), [1, 2]);
        // A model that breaks its bound ends the search rather than loop.
        assert_eq!(
            closer(&near, vec![1, 1, 1, 1], |_| Some(Some(vec![1, 1, 1, 1]))),
            [1, 1, 1, 1]
        );
    }

    #[test]
    #[should_panic(expected = "exercise t-1: `near` needs one value for each of its 2 variables")]
    fn near_needs_a_value_for_each_variable() {
        let _ = exercise().near("three", [1, 2, 3]);
    }
}
