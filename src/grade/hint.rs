//! Hints from typical mistakes: a wrong answer compared by meaning with each
//! mistake the teacher wrote down beside the reference, as Alloy4Fun's hint
//! generator matches past submissions; the first it means gives its hint.

use std::collections::BTreeSet;

use z3::ast::{Bool, Int};

use super::{compare_by_queries, Exercise, Verdict};

/// The most each Z3 query of a comparison with a mistake may take, in
/// milliseconds: a hint is worth little time, and the judgement of the
/// answer itself has already had its own.
pub(crate) const HINT_QUERY_MS: u32 = 2_000;

/// An answer to one part as built in this process: by the student's
/// functions, from a handed-in file, or by the teacher for a mistake.
#[derive(Debug, Clone)]
pub(crate) enum Given {
    Constraints(Vec<Bool>),
    Number(i64),
    Set(Vec<Vec<i64>>),
}

impl Given {
    /// What it is, for feedback: "constraints", "a number", "a set".
    pub(crate) fn what(&self) -> &'static str {
        match self {
            Given::Constraints(_) => "constraints",
            Given::Number(_) => "a number",
            Given::Set(_) => "a set",
        }
    }
}

/// `verdict` on the answer `theirs` builds, with the hint of the first of
/// `mistakes` that means what it means, when the verdict says the answer is
/// wrong (only then is the answer built again).
///
/// Only a wrong answer gets a hint: a right one, one Z3 could not decide, or
/// none at all is left as it is, and so is a comparison with a mistake that
/// Z3 cannot decide (no hint rather than a wrong one). Constraints are
/// compared by the two queries of [`super::compare`], over the interface
/// variables `vars`, so a student's helper variables do not hide a mistake;
/// each query has at most [`HINT_QUERY_MS`], and no witness is described,
/// so a mistake costs the grader at most two short queries.
pub(crate) fn with_hint<'a>(
    verdict: Verdict,
    exercise: &Exercise,
    vars: &[Int],
    theirs: impl FnOnce() -> Option<Given>,
    mistakes: impl IntoIterator<Item = (&'a Given, &'a str)>,
) -> Verdict {
    let wrong = match &verdict {
        Verdict::Differs { .. } => true,
        Verdict::Predicted {
            yours, expected, ..
        } => yours != expected,
        _ => false,
    };
    let mut mistakes = mistakes.into_iter().peekable();
    if !wrong || mistakes.peek().is_none() {
        return verdict;
    }
    let Some(theirs) = theirs() else {
        return verdict;
    };
    for (mistake, hint) in mistakes {
        if means_the_same(exercise, vars, &theirs, mistake) {
            return Verdict::Hinted {
                verdict: Box::new(verdict),
                hint: hint.to_string(),
            };
        }
    }
    verdict
}

/// Whether two answers to a part mean the same; `false` when Z3 cannot
/// decide.
fn means_the_same(exercise: &Exercise, vars: &[Int], theirs: &Given, mistake: &Given) -> bool {
    match (theirs, mistake) {
        (Given::Constraints(theirs), Given::Constraints(mistake)) => {
            // Only whether they mean the same counts: no witness is shown,
            // so none is brought near anything.
            let quick = Exercise {
                timeout_ms: exercise.timeout_ms.min(HINT_QUERY_MS),
                near: None,
                ..exercise.clone()
            };
            matches!(
                compare_by_queries(&quick, vars, theirs, &[Bool::and(mistake)]),
                Ok(Verdict::Same { .. })
            )
        }
        (Given::Number(theirs), Given::Number(mistake)) => theirs == mistake,
        (Given::Set(theirs), Given::Set(mistake)) => {
            theirs.iter().collect::<BTreeSet<_>>() == mistake.iter().collect::<BTreeSet<_>>()
        }
        _ => false,
    }
}
