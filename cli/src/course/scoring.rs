//! Points and feedback for each exercise of a graded run. The points come
//! from the grader's judgement of the answers the run handed in, as data
//! ([`puzzlebook::grade::judge`]), never from what its cells printed or how
//! they ended: those are feedback only, and say why an answer is missing.

use std::collections::BTreeMap;

use puzzlebook::grade::judge::Judgement;
use puzzlebook::grade::Verdict;

use crate::course::submission::Exercise;
use crate::notebook::ipynb::Output;
use crate::runner::execute::{CellResults, ExecError};

/// How an exercise went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// All its points.
    Right,
    /// Some of its points.
    Partial,
    /// None: the answer is not right, or none was handed in.
    Wrong,
    /// None: a cell before its tests stopped the run (a timeout, the memory
    /// limit), so they did not run.
    NotRun,
    /// The grader's Z3 could not decide; a teacher looks at it.
    NotGraded,
}

impl Status {
    /// Its word in `grades.csv` and the summary.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Right => "right",
            Status::Partial => "partial",
            Status::Wrong => "wrong",
            Status::NotRun => "not run",
            Status::NotGraded => "not graded",
        }
    }
}

/// One exercise's grade.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// The exercise.
    pub exercise: String,
    /// Its points.
    pub score: f64,
    /// The most it could get.
    pub max: f64,
    /// How it went.
    pub status: Status,
    /// What its cells said, and the judgement of its answer.
    pub feedback: String,
}

/// Each exercise's mark from the run's `cells` (one result per code cell,
/// in order; a run that stopped is shorter) and the judgement of each
/// exercise's handed-in answer, by exercise.
pub fn score(
    exercises: &[Exercise],
    cells: &CellResults,
    judged: &BTreeMap<String, Judgement>,
) -> Vec<Mark> {
    exercises
        .iter()
        .map(|e| mark(e, cells, judged.get(&e.id)))
        .collect()
}

fn mark(exercise: &Exercise, cells: &CellResults, judged: Option<&Judgement>) -> Mark {
    let mut feedback = Vec::new();
    let mut not_run = false;
    if let Some(Some(Err(e))) = exercise.solution.map(|n| cells.get(n - 1)) {
        feedback.push(format!("Your solution cell failed:\n{}", failure(e)));
    }
    for &(number, _) in &exercise.tests {
        match cells.get(number - 1) {
            Some(Ok(outputs)) => feedback.extend(printed(outputs)),
            Some(Err(e)) => feedback.push(failure(e)),
            None => {
                not_run = true;
                feedback.push(match cells.last() {
                    Some(Err(e)) => format!("The tests did not run: {}", failure(e)),
                    _ => "The tests did not run.".to_string(),
                });
            }
        }
    }
    let max = exercise.max();
    // A run that stopped before an exercise's tests, and handed nothing in
    // for it, did not get to answer it.
    let answered = judged.is_some_and(|j| {
        j.parts
            .iter()
            .any(|(_, v)| !matches!(v, Verdict::NoAnswer { .. }))
    });
    let (score, status) = match judged {
        _ if not_run && !answered => (0.0, Status::NotRun),
        None => {
            feedback.push("Not answered: nothing was judged.".into());
            (0.0, Status::Wrong)
        }
        Some(j) => {
            feedback.push(j.feedback());
            match j.points(max) {
                Some(p) if j.is_right() => (p, Status::Right),
                Some(p) if p > 0.0 => (p, Status::Partial),
                Some(p) => (p, Status::Wrong),
                None => (0.0, Status::NotGraded),
            }
        }
    };
    Mark {
        exercise: exercise.id.clone(),
        score,
        max,
        status,
        feedback: feedback.join("\n"),
    }
}

/// What a test cell's visible part printed, as text.
fn printed(outputs: &[Output]) -> Vec<String> {
    outputs
        .iter()
        .filter_map(|o| match o {
            Output::Stream { text, .. } => Some(text.trim_end().to_string()),
            Output::ExecuteResult { data } | Output::DisplayData { data } => {
                data.get("text/plain").map(|t| t.trim().to_string())
            }
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// Why a cell failed, for the student: the message, without the runner's
/// advice about reports.
pub fn failure(e: &ExecError) -> String {
    match e {
        ExecError::Cell { at, message } => match panic_message(message) {
            Some(said) => format!("{} panicked:\n{said}", at.label),
            None => format!("{} failed:\n{message}", at.label),
        },
        ExecError::Timeout { at, seconds } => format!(
            "{} was still running after {seconds} s, the cell timeout, so it was stopped",
            at.label
        ),
        ExecError::Memory { at, limit, .. } => format!(
            "{} needed more memory than the limit of {limit}, so it was stopped",
            at.label
        ),
        ExecError::Interrupted { at } => format!("{} was interrupted", at.label),
        other => other.to_string(),
    }
}

/// What a panic said, from the runner's message of a cell that panicked:
/// the lines after Rust's `thread '…' (id) panicked at file:line:col:` up
/// to the backtrace or its note. The thread's id and the file's path say
/// nothing to a student and differ from run to run.
fn panic_message(message: &str) -> Option<String> {
    let start = message.find("panicked at ")?;
    let after = &message[start..];
    let body = &after[after.find('\n').map_or(after.len(), |i| i + 1)..];
    let end = ["\nstack backtrace:", "\nnote: run with `RUST_BACKTRACE"]
        .iter()
        .filter_map(|m| body.find(m))
        .min()
        .unwrap_or(body.len());
    Some(body[..end].trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::execute::CellAt;

    fn exercise() -> Exercise {
        Exercise {
            id: "09-1".into(),
            solution: Some(1),
            tests: vec![(2, 2.0)],
        }
    }

    fn at(n: usize) -> CellAt {
        CellAt {
            notebook: "x.ipynb".into(),
            cell: n,
            label: format!("code cell {n}"),
        }
    }

    fn out(text: &str) -> Output {
        Output::Stream {
            name: "stdout".into(),
            text: text.into(),
        }
    }

    fn judged(verdict: Verdict) -> BTreeMap<String, Judgement> {
        BTreeMap::from([(
            "09-1".to_string(),
            Judgement::new(vec![(String::new(), verdict)]),
        )])
    }

    fn right() -> Verdict {
        Verdict::Same { solutions: Some(1) }
    }

    #[test]
    fn the_points_are_the_judgement_s_and_the_output_is_feedback() {
        let cells = vec![Ok(vec![]), Ok(vec![out("<< on 124 gives 12\n")])];
        let m = &score(&[exercise()], &cells, &judged(right()))[0];
        assert_eq!((m.score, m.max, m.status), (2.0, 2.0, Status::Right));
        assert_eq!(
            m.feedback,
            "<< on 124 gives 12\nRight: your model has exactly the reference's 1 solution."
        );
    }

    #[test]
    fn what_a_cell_prints_or_how_it_fails_gives_no_points() {
        let wrong = Verdict::NoAnswer {
            why: "no answer was handed in".into(),
        };
        for cells in [
            vec![
                Ok(vec![]),
                Ok(vec![out(
                    "Right: your model has exactly the reference's 1 solution.\n",
                )]),
            ],
            vec![
                Ok(vec![]),
                Ok(vec![Output::ExecuteResult {
                    data: BTreeMap::from([("text/plain".to_string(), "2".to_string())]),
                }]),
            ],
        ] {
            let m = &score(&[exercise()], &cells, &judged(wrong.clone()))[0];
            assert_eq!((m.score, m.status), (0.0, Status::Wrong));
        }
        // A failed test cell with a right answer handed in before it fails.
        let cells = vec![
            Ok(vec![]),
            Err(ExecError::Cell {
                at: at(2),
                message: "thread 'a' panicked at src/a.rs:1:1:\nboom".into(),
            }),
        ];
        let m = &score(&[exercise()], &cells, &judged(right()))[0];
        assert_eq!((m.score, m.status), (2.0, Status::Right));
        assert!(
            m.feedback.starts_with("code cell 2 panicked:\nboom"),
            "{}",
            m.feedback
        );
    }

    #[test]
    fn a_panic_s_feedback_is_its_message_without_thread_path_or_backtrace() {
        let cells = vec![
            Ok(vec![]),
            Err(ExecError::Cell {
                at: at(2),
                message: "thread '<unnamed>' (15980) panicked at /home/t/puzzlebook/src/grade.rs:464:5:\n\
                          exercise 09-1 is not solved yet\nstack backtrace:\n   0: rust_begin_unwind"
                    .into(),
            }),
        ];
        let none = Verdict::NoAnswer {
            why: "no answer was handed in".into(),
        };
        assert_eq!(
            score(&[exercise()], &cells, &judged(none))[0].feedback,
            "code cell 2 panicked:\nexercise 09-1 is not solved yet\nNot answered: no answer was handed in."
        );
        assert_eq!(
            panic_message("thread 'main' panicked at src/lib.rs:1:1:\nboom\nnote: run with `RUST_BACKTRACE=1`"),
            Some("boom".into())
        );
        assert_eq!(panic_message("error[E0425]: cannot find value"), None);
    }

    #[test]
    fn a_judgement_z3_could_not_decide_is_not_graded() {
        let cells = vec![Ok(vec![]), Ok(vec![])];
        let unknown = Verdict::NotGraded {
            reason: "Z3 could not decide".into(),
        };
        let m = &score(&[exercise()], &cells, &judged(unknown))[0];
        assert_eq!(m.status, Status::NotGraded);
        let m = &score(&[exercise()], &cells, &BTreeMap::new())[0];
        assert_eq!((m.score, m.status), (0.0, Status::Wrong));
    }

    #[test]
    fn tests_after_a_stopped_cell_did_not_run_and_say_what_stopped() {
        let cells = vec![Err(ExecError::Timeout {
            at: at(1),
            seconds: 30,
        })];
        let nothing = Verdict::NoAnswer {
            why: "no answer was handed in".into(),
        };
        let m = &score(&[exercise()], &cells, &judged(nothing))[0];
        assert_eq!((m.score, m.status), (0.0, Status::NotRun));
        assert_eq!(
            m.feedback,
            "Your solution cell failed:\ncode cell 1 was still running after 30 s, the cell timeout, so it was stopped\n\
             The tests did not run: code cell 1 was still running after 30 s, the cell timeout, so it was stopped"
        );
        // An answer handed in before the run stopped is judged for what it is.
        let m = &score(&[exercise()], &cells, &judged(right()))[0];
        assert_eq!((m.score, m.status), (2.0, Status::Right));
    }
}
