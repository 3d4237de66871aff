//! An exercise's answer, handed in by a test cell's visible part and checked
//! by its hidden part: in one process as nbgrader runs a notebook, or apart,
//! the answer written as data for a grader that judges it with a Z3 of its
//! own ([`super::judge`]).
//!
//! A test cell's visible part, which students see and run, builds the
//! answer from the student's functions:
//!
//! ```text
//! let exercise = grade::Exercise::new("02-2", ["x", "y"]).listing_up_to(0);
//! let answer = grade::hand_in(&exercise, |v| vec![v[1].eq(exercise_02_2(&v[0]))]);
//! ```
//!
//! and its hidden part checks it against the reference:
//!
//! ```text
//! let verdict = answer.check(|v| vec![grade::rule("…", …)]);
//! assert!(verdict.is_right(), "{verdict}");
//! ```
//!
//! The hidden part may also write down typical mistakes, each with a hint,
//! before it checks the part they are for; a wrong answer that means what a
//! mistake means gets its hint ([`super::hint`]):
//!
//! ```text
//! answer.mistake("Z3's `/` rounds down; the game's `<<` rounds towards zero.", |v| …);
//! ```
//!
//! Two variables change what these do besides ([`super::handed`]): with
//! `PUZZLEBOOK_HAND_IN=<dir>`, each answer is also written to
//! `<dir>/<id>.json` as it is handed in (constraints as SMT-LIB); with
//! `PUZZLEBOOK_REFERENCE=<dir>`, each check also writes the reference there.
//! `puzzlebook grade` runs the teacher's notebook once with the second, and
//! each student's released notebook (no hidden tests) with the first.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use z3::ast::{Bool, Int};

use super::handed::{
    self, Expected, Handed, HandedIn, Interface, Mistake, NoteText, Part, Reference, RuleText,
    Scoring, HAND_IN_VAR, REFERENCE_VAR,
};
use super::hint::{with_hint, Given};
use super::{compare_built, compare_sets, Exercise, Rule, Verdict};
use crate::smtlib;

/// An exercise's answer, in parts; see the [module](self).
#[derive(Debug)]
pub struct Answer {
    exercise: Exercise,
    given: Vec<(String, Given)>,
    handed: Vec<Part<Handed>>,
    reference: RefCell<Vec<Part<Expected>>>,
    /// The typical mistakes written down so far: the part, the mistake as
    /// built here and as handed to the grader.
    mistakes: RefCell<Vec<(String, Given, Mistake)>>,
    /// The parts checked so far.
    checked: RefCell<BTreeSet<String>>,
    /// How the grader shares the points among the parts.
    scoring: Cell<Scoring>,
    /// Where answers are written ([`HAND_IN_VAR`]).
    hand_in_to: Option<PathBuf>,
    /// Where the reference is written ([`REFERENCE_VAR`]).
    reference_to: Option<PathBuf>,
}

/// The student's constraints for `exercise`, handed in as its one part:
/// `student` receives the interface variables, in order.
pub fn hand_in(exercise: &Exercise, student: impl Fn(&[Int]) -> Vec<Bool>) -> Answer {
    let mut answer = Answer::new(exercise);
    answer.constraints("", student);
    answer
}

/// A number handed in as exercise `id`'s answer, as its one part.
pub fn hand_in_number(id: &str, value: impl TryInto<i64>) -> Answer {
    let mut answer = Answer::named(id);
    answer.number("", value);
    answer
}

/// A set of tuples handed in as exercise `id`'s answer.
pub fn hand_in_set(id: &str, elements: impl IntoIterator<Item = Vec<i64>>) -> Answer {
    let mut answer = Answer::named(id);
    answer.set("", elements);
    answer
}

impl Answer {
    /// An answer to `exercise` with no part yet.
    pub fn new(exercise: &Exercise) -> Answer {
        Answer::writing_to(exercise, folder(HAND_IN_VAR), folder(REFERENCE_VAR))
    }

    /// An answer to exercise `id`, which has no interface variables: one
    /// handed in as numbers or sets.
    pub fn named(id: &str) -> Answer {
        Answer::new(&Exercise::new(id, Vec::<String>::new()))
    }

    /// An answer that writes itself to `hand_in_to` and its reference to
    /// `reference_to`, whatever the environment says.
    pub(crate) fn writing_to(
        exercise: &Exercise,
        hand_in_to: Option<PathBuf>,
        reference_to: Option<PathBuf>,
    ) -> Answer {
        Answer {
            exercise: exercise.clone(),
            given: Vec::new(),
            handed: Vec::new(),
            reference: RefCell::new(Vec::new()),
            mistakes: RefCell::new(Vec::new()),
            checked: RefCell::new(BTreeSet::new()),
            scoring: Cell::new(Scoring::PerPart),
            hand_in_to,
            reference_to,
        }
    }

    /// Hands in the student's constraints as the part `label` (an input,
    /// as feedback shows it).
    pub fn constraints(
        &mut self,
        label: impl Into<String>,
        student: impl Fn(&[Int]) -> Vec<Bool>,
    ) -> &mut Self {
        let built = student(&self.exercise.variables_in_z3());
        // Printed only when written: in one process (nbgrader, the book),
        // an answer gives Z3 nothing but its constraints, as `compare` does.
        let text = match self.hand_in_to {
            Some(_) => smtlib::write(&built),
            None => String::new(),
        };
        self.add(
            label.into(),
            Given::Constraints(built),
            Handed::Constraints { smtlib: text },
        )
    }

    /// Writes down a typical mistake for the one part: constraints over the
    /// interface variables, as a student's function might build them, and
    /// the hint a student whose constraints mean the same reads. Write each
    /// mistake before [`Answer::check`].
    pub fn mistake(&self, hint: impl Into<String>, wrong: impl Fn(&[Int]) -> Vec<Bool>) -> &Self {
        self.mistake_in("", hint, wrong)
    }

    /// [`Answer::mistake`] for the part `label`, before
    /// [`Answer::check_part`] checks it.
    pub fn mistake_in(
        &self,
        label: &str,
        hint: impl Into<String>,
        wrong: impl Fn(&[Int]) -> Vec<Bool>,
    ) -> &Self {
        let built = wrong(&self.exercise.variables_in_z3());
        let text = match self.reference_to {
            Some(_) => smtlib::write(&built),
            None => String::new(),
        };
        self.write_down(
            label,
            hint.into(),
            Given::Constraints(built),
            Handed::Constraints { smtlib: text },
        )
    }

    /// Writes down a typical wrong number for the one part, with its hint,
    /// before [`Answer::check_number`].
    pub fn mistaken_number(&self, value: impl TryInto<i64>, hint: impl Into<String>) -> &Self {
        self.mistaken_number_in("", value, hint)
    }

    /// Writes down a typical wrong number for the part `label`, with its
    /// hint, before [`Answer::check_number_part`].
    pub fn mistaken_number_in(
        &self,
        label: &str,
        value: impl TryInto<i64>,
        hint: impl Into<String>,
    ) -> &Self {
        let Ok(value) = value.try_into() else {
            panic!(
                "exercise {}: the mistaken number is too large",
                self.exercise.id
            );
        };
        self.write_down(
            label,
            hint.into(),
            Given::Number(value),
            Handed::Number { value },
        )
    }

    /// Writes down a typical wrong set for the part `label`, with its hint,
    /// before [`Answer::check_set_part`] (`""` for [`Answer::check_set`]).
    pub fn mistaken_set_in(
        &self,
        label: &str,
        elements: impl IntoIterator<Item = Vec<i64>>,
        hint: impl Into<String>,
    ) -> &Self {
        let elements: Vec<Vec<i64>> = elements
            .into_iter()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        self.write_down(
            label,
            hint.into(),
            Given::Set(elements.clone()),
            Handed::Set { elements },
        )
    }

    /// Grades the exercise all or nothing: its points only when every part
    /// is right. By default each right part gets its share
    /// ([`Scoring::PerPart`]); this is for parts that are samples of one
    /// function with small answers, where a constant guess is right for some.
    /// Called in the hidden part, before any check.
    pub fn all_or_nothing(&self) -> &Self {
        if !self.checked.borrow().is_empty() {
            let id = &self.exercise.id;
            panic!("exercise {id}: `all_or_nothing` is called after a part was checked; call it before the checks");
        }
        self.scoring.set(Scoring::AllOrNothing);
        self
    }

    fn write_down(&self, label: &str, hint: String, given: Given, answer: Handed) -> &Self {
        let id = &self.exercise.id;
        if self.checked.borrow().contains(label) {
            panic!("exercise {id}: a mistake for the part {label:?} is written down after the part was checked; write each mistake before its check");
        }
        if hint.trim().is_empty() {
            panic!("exercise {id}: a mistake needs a hint for the student");
        }
        if let Handed::Constraints { smtlib: text } = &answer {
            if let Err(e) = smtlib::read(text) {
                panic!("exercise {id}: the mistake {hint:?} cannot be handed to the grader: {e}");
            }
        }
        self.mistakes
            .borrow_mut()
            .push((label.to_string(), given, Mistake { hint, answer }));
        self
    }

    /// The verdict on the part `label`, with the hint of the first mistake
    /// written down for it that the student's answer means.
    fn hinted(&self, label: &str, verdict: Verdict, vars: &[Int]) -> Verdict {
        let mistakes = self.mistakes.borrow();
        let for_part = mistakes
            .iter()
            .filter(|(l, _, _)| l == label)
            .map(|(_, given, m)| (given, m.hint.as_str()));
        let theirs = || self.given(label).cloned();
        with_hint(verdict, &self.exercise, vars, theirs, for_part)
    }

    /// Hands in a number as the part `label`.
    pub fn number(&mut self, label: impl Into<String>, value: impl TryInto<i64>) -> &mut Self {
        let label = label.into();
        let Ok(value) = value.try_into() else {
            panic!(
                "exercise {}: the number handed in is too large",
                self.exercise.id
            );
        };
        self.add(label, Given::Number(value), Handed::Number { value })
    }

    /// Hands in a set of tuples as the part `label`.
    pub fn set(
        &mut self,
        label: impl Into<String>,
        elements: impl IntoIterator<Item = Vec<i64>>,
    ) -> &mut Self {
        let elements: Vec<Vec<i64>> = elements
            .into_iter()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        self.add(
            label.into(),
            Given::Set(elements.clone()),
            Handed::Set { elements },
        )
    }

    fn add(&mut self, label: String, given: Given, handed: Handed) -> &mut Self {
        if self.given.iter().any(|(l, _)| *l == label) {
            panic!(
                "exercise {}: the part {label:?} is handed in twice",
                self.exercise.id
            );
        }
        self.given.push((label.clone(), given));
        self.handed.push(Part {
            label,
            value: handed,
        });
        if let Some(dir) = &self.hand_in_to {
            let file = HandedIn {
                exercise: self.exercise.id.clone(),
                parts: self.handed.clone(),
            };
            if let Err(e) = handed::write(dir, &self.exercise.id, &file) {
                panic!(
                    "exercise {}: the answer could not be handed in: {e}",
                    self.exercise.id
                );
            }
        }
        self
    }

    /// The one part's constraints against the reference's rules, built over
    /// the same interface variables.
    pub fn check(&self, reference: impl Fn(&[Int]) -> Vec<Rule>) -> Verdict {
        self.check_part("", reference)
    }

    /// The part `label`'s constraints against the reference's rules.
    pub fn check_part(&self, label: &str, reference: impl Fn(&[Int]) -> Vec<Rule>) -> Verdict {
        let vars = self.exercise.variables_in_z3();
        let rules = reference(&vars);
        self.record(label, || Expected::Rules {
            rules: rules
                .iter()
                .map(|r| RuleText {
                    name: r.name.clone(),
                    smtlib: smtlib::write(std::slice::from_ref(&r.holds)),
                    notes: r
                        .notes
                        .iter()
                        .map(|n| NoteText {
                            text: n.text.clone(),
                            smtlib: smtlib::write(std::slice::from_ref(&n.holds)),
                        })
                        .collect(),
                })
                .collect(),
        });
        let verdict = match self.given(label) {
            Some(Given::Constraints(theirs)) => {
                compare_built(&self.exercise, &vars, theirs, &rules)
            }
            other => not_given(label, other, "constraints"),
        };
        self.hinted(label, verdict, &vars)
    }

    /// The one part's number against `expected`; `why` says, as a sentence,
    /// why it is the number.
    pub fn check_number(&self, expected: impl TryInto<i64>, why: impl Into<String>) -> Verdict {
        self.check_number_part("", expected, why)
    }

    /// The part `label`'s number against `expected`, with `why`.
    pub fn check_number_part(
        &self,
        label: &str,
        expected: impl TryInto<i64>,
        why: impl Into<String>,
    ) -> Verdict {
        let Ok(expected) = expected.try_into() else {
            panic!(
                "exercise {}: the expected number is too large",
                self.exercise.id
            );
        };
        let why = why.into();
        self.record(label, || Expected::Number {
            value: expected,
            why: why.clone(),
        });
        let verdict = match self.given(label) {
            Some(Given::Number(yours)) => Verdict::Predicted {
                yours: *yours,
                expected,
                why,
            },
            other => not_given(label, other, "a number"),
        };
        self.hinted(label, verdict, &[])
    }

    /// The one part's set against the reference's.
    pub fn check_set(&self, reference: impl IntoIterator<Item = Vec<i64>>) -> Verdict {
        self.check_set_part("", reference)
    }

    /// The part `label`'s set against the reference's.
    pub fn check_set_part(
        &self,
        label: &str,
        reference: impl IntoIterator<Item = Vec<i64>>,
    ) -> Verdict {
        self.check_elements(label, reference.into_iter().collect(), Vec::new())
    }

    /// The part `label`'s set against the reference's, when the reference
    /// is a choice among `candidates`: each candidate, whether the reference
    /// keeps it, and why, in the puzzle's words ("(1, 4) also sums to 5").
    /// On a wrong answer, the feedback gives the reason of each witness:
    /// "you keep (3, 3), which the reference removes: no other pair sums to
    /// 6".
    pub fn check_kept_part(
        &self,
        label: &str,
        candidates: impl IntoIterator<Item = (Vec<i64>, bool, String)>,
    ) -> Verdict {
        let mut all = BTreeMap::new();
        for (element, keeps, why) in candidates {
            if all.contains_key(&element) {
                panic!(
                    "exercise {}: the candidate {element:?} is listed twice; list each once, with whether it is kept",
                    self.exercise.id
                );
            }
            all.insert(element, (keeps, why));
        }
        let kept = all
            .iter()
            .filter(|(_, (keeps, _))| *keeps)
            .map(|(element, _)| element.clone())
            .collect();
        let reasons = all.into_iter().map(|(e, (_, why))| (e, why)).collect();
        self.check_elements(label, kept, reasons)
    }

    fn check_elements(
        &self,
        label: &str,
        reference: Vec<Vec<i64>>,
        reasons: Vec<(Vec<i64>, String)>,
    ) -> Verdict {
        let ours: Vec<Vec<i64>> = reference
            .into_iter()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        self.record(label, || Expected::Set {
            elements: ours.clone(),
            reasons: reasons.clone(),
        });
        let verdict = match self.given(label) {
            Some(Given::Set(theirs)) => compare_sets(theirs.clone(), ours, show_tuple, &reasons),
            other => not_given(label, other, "a set"),
        };
        self.hinted(label, verdict, &[])
    }

    fn given(&self, label: &str) -> Option<&Given> {
        self.given.iter().find(|(l, _)| l == label).map(|(_, g)| g)
    }

    /// Writes the reference so far, when the reference is asked for.
    fn record(&self, label: &str, expected: impl FnOnce() -> Expected) {
        self.checked.borrow_mut().insert(label.to_string());
        let Some(dir) = &self.reference_to else {
            return;
        };
        let expected = expected();
        let id = &self.exercise.id;
        if let Expected::Rules { rules } = &expected {
            let mut names = std::collections::BTreeSet::new();
            for r in rules {
                if !names.insert(&r.name) {
                    panic!(
                        "exercise {id}: two rules are named {:?}; name each once, so that feedback says which one a witness breaks",
                        r.name
                    );
                }
                if let Err(e) = smtlib::read(&r.smtlib) {
                    panic!(
                        "exercise {id}: the rule {:?} cannot be handed to the grader: {e}",
                        r.name
                    );
                }
                for n in &r.notes {
                    if let Err(e) = smtlib::read(&n.smtlib) {
                        panic!(
                            "exercise {id}: the note {:?} of the rule {:?} cannot be handed to the grader: {e}",
                            n.text, r.name
                        );
                    }
                }
            }
        }
        let interface =
            Interface::of(&self.exercise).unwrap_or_else(|e| panic!("exercise {id}: {e}"));
        let mut parts = self.reference.borrow_mut();
        // A second answer checked for the same exercise would write its
        // parts over the first's.
        if parts.is_empty() && handed::file_of(dir, id).is_ok_and(|f| f.exists()) {
            panic!("exercise {id} is checked by two answers; hand it in once, in parts (`Answer::new`, then a part for each input), or, if the reference folder holds an earlier run's files, empty it");
        }
        parts.retain(|p| p.label != label);
        parts.push(Part {
            label: label.to_string(),
            value: expected,
        });
        let file = Reference {
            exercise: interface,
            parts: parts.clone(),
            mistakes: self
                .mistakes
                .borrow()
                .iter()
                .map(|(label, _, m)| Part {
                    label: label.clone(),
                    value: m.clone(),
                })
                .collect(),
            scoring: self.scoring.get(),
        };
        if let Err(e) = handed::write(dir, id, &file) {
            panic!("exercise {id}: the reference could not be written: {e}");
        }
    }
}

/// The folder a variable names, when it is set and not empty.
fn folder(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn not_given(label: &str, given: Option<&Given>, asked: &str) -> Verdict {
    let part = match label {
        "" => String::new(),
        l => format!(" for {l}"),
    };
    let why = match given {
        None => format!("nothing was handed in{part}"),
        Some(g) => format!(
            "{} was handed in{part}, where {asked} is asked for",
            g.what()
        ),
    };
    Verdict::NoAnswer { why }
}

/// An element of a set as feedback shows it: `(2, 9)`.
pub(super) fn show_tuple(v: &[i64]) -> String {
    let inner: Vec<String> = v.iter().map(i64::to_string).collect();
    format!("({})", inner.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::rule;

    fn exercise() -> Exercise {
        Exercise::new("t-1", ["x", "y"]).listing_up_to(0)
    }

    fn twice(v: &[Int]) -> Vec<Rule> {
        vec![rule("y is twice x", v[1].eq(&v[0] * 2))]
    }

    #[test]
    fn in_one_process_a_check_compares_as_compare_does() {
        let right = hand_in(&exercise(), |v| vec![v[1].eq(&v[0] + &v[0])]);
        assert!(right.check(twice).is_right());
        let wrong = hand_in(&exercise(), |v| vec![v[1].eq(&v[0] + 2)]);
        let verdict = wrong.check(twice);
        assert!(!verdict.is_right());
        assert!(
            verdict.to_string().contains("it breaks y is twice x"),
            "{verdict}"
        );
    }

    #[test]
    fn a_number_or_a_set_of_the_wrong_kind_is_not_an_answer() {
        let n = hand_in_number("t-2", 3usize);
        assert!(n.check_number(3, "Three.").is_right());
        assert_eq!(
            n.check_number(4u8, "Four.").to_string(),
            "Not yet: your answer is 3. Four."
        );
        assert_eq!(
            n.check_set([vec![1]]).to_string(),
            "Not answered: a number was handed in, where a set is asked for."
        );
        let s = hand_in_set("t-3", [vec![2, 1], vec![1, 2], vec![1, 2]]);
        assert!(s.check_set([vec![1, 2], vec![2, 1]]).is_right());
        let Verdict::Differs { ruled_out, .. } = s.check_set([vec![1, 2], vec![2, 1], vec![3, 3]])
        else {
            panic!("not differs");
        };
        assert_eq!(ruled_out.unwrap().shown, "(3, 3)");
        let mut parts = Answer::new(&exercise());
        parts.constraints("a", |v| vec![v[1].eq(&v[0] * 2)]);
        assert_eq!(
            parts.check_part("b", twice).to_string(),
            "Not answered: nothing was handed in for b."
        );
    }

    #[test]
    #[should_panic(expected = "the candidate [1, 2] is listed twice")]
    fn a_candidate_listed_twice_is_refused() {
        let s = hand_in_set("t-3", [vec![1, 2]]);
        s.check_kept_part(
            "",
            [
                (vec![1, 2], true, "kept".to_string()),
                (vec![1, 2], false, "removed".to_string()),
            ],
        );
    }

    #[test]
    #[should_panic(expected = "handed in twice")]
    fn a_part_handed_in_twice_is_refused() {
        let mut a = Answer::new(&exercise());
        a.number("p", 1).number("p", 2);
    }
}
