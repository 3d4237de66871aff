//! Points and feedback for each exercise of a graded run, by the rules of
//! nbgrader's autograder (`nbgrader.utils.determine_grade`): a test cell
//! that failed, or wrote on standard error, gets nothing; one whose value is
//! a single number gets that many points (partial credit); any other gets
//! all its points.

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
    /// None: a test failed.
    Wrong,
    /// None: a cell before its tests stopped the run (a timeout, the memory
    /// limit), so they did not run.
    NotRun,
}

impl Status {
    /// Its word in `grades.csv` and the summary.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Right => "right",
            Status::Partial => "partial",
            Status::Wrong => "wrong",
            Status::NotRun => "not run",
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
    /// What its cells said: the tests' output, or why they failed.
    pub feedback: String,
}

/// Each exercise's mark from the run's `cells` (one result per code cell,
/// in order; a run that stopped is shorter).
pub fn score(exercises: &[Exercise], cells: &CellResults) -> Vec<Mark> {
    exercises.iter().map(|e| mark(e, cells)).collect()
}

fn mark(exercise: &Exercise, cells: &CellResults) -> Mark {
    let mut score = 0.0;
    let mut feedback = Vec::new();
    let mut not_run = false;
    if let Some(Some(Err(e))) = exercise.solution.map(|n| cells.get(n - 1)) {
        feedback.push(format!("Your solution cell failed:\n{}", failure(e)));
    }
    for &(number, points) in &exercise.tests {
        match cells.get(number - 1) {
            Some(Ok(outputs)) => {
                let (got, said) = test_points(outputs, points);
                score += got;
                feedback.extend(said);
            }
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
    let status = if not_run {
        Status::NotRun
    } else if score >= max {
        Status::Right
    } else if score > 0.0 {
        Status::Partial
    } else {
        Status::Wrong
    };
    Mark {
        exercise: exercise.id.clone(),
        score,
        max,
        status,
        feedback: feedback.join("\n"),
    }
}

/// A test cell's points out of `max` from its outputs, and what it said.
fn test_points(outputs: &[Output], max: f64) -> (f64, Vec<String>) {
    let mut said = Vec::new();
    for o in outputs {
        match o {
            Output::Stream { name, text } if name == "stderr" => {
                said.push(format!(
                    "The test wrote on standard error, which fails it:\n{}",
                    text.trim_end()
                ));
                return (0.0, said);
            }
            Output::Stream { text, .. } => said.push(text.trim_end().to_string()),
            Output::ExecuteResult { data } => {
                let text = data.get("text/plain").map(|t| t.trim()).unwrap_or("");
                return match text.parse::<f64>() {
                    Ok(p) if p.is_finite() && (0.0..=max).contains(&p) => (p, said),
                    _ => {
                        if !text.is_empty() {
                            said.push(text.to_string());
                        }
                        (max, said)
                    }
                };
            }
        }
    }
    (max, said)
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
    use std::collections::BTreeMap;

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

    fn value(text: &str) -> Output {
        Output::ExecuteResult {
            data: BTreeMap::from([("text/plain".to_string(), text.to_string())]),
        }
    }

    #[test]
    fn a_clean_test_gets_every_point_and_its_output_is_the_feedback() {
        let cells = vec![Ok(vec![]), Ok(vec![out("Right: the same answers\n")])];
        let m = &score(&[exercise()], &cells)[0];
        assert_eq!((m.score, m.max, m.status), (2.0, 2.0, Status::Right));
        assert_eq!(m.feedback, "Right: the same answers");
    }

    #[test]
    fn a_failed_test_gets_nothing_and_says_why() {
        let cells = vec![
            Ok(vec![]),
            Err(ExecError::Cell {
                at: at(2),
                message: "thread 'a' panicked at src/a.rs:1:1:\nNot yet: your model allows Q1=B"
                    .into(),
            }),
        ];
        let m = &score(&[exercise()], &cells)[0];
        assert_eq!((m.score, m.status), (0.0, Status::Wrong));
        assert!(
            m.feedback.contains("Not yet: your model allows Q1=B"),
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
                          Not yet:\n- your model allows x0=1\nstack backtrace:\n   0: rust_begin_unwind"
                    .into(),
            }),
        ];
        assert_eq!(
            score(&[exercise()], &cells)[0].feedback,
            "code cell 2 panicked:\nNot yet:\n- your model allows x0=1"
        );
        assert_eq!(
            panic_message("thread 'main' panicked at src/lib.rs:1:1:\nboom\nnote: run with `RUST_BACKTRACE=1`"),
            Some("boom".into())
        );
        assert_eq!(panic_message("error[E0425]: cannot find value"), None);
    }

    #[test]
    fn standard_error_fails_a_test_as_in_nbgrader() {
        let cells = vec![
            Ok(vec![]),
            Ok(vec![Output::Stream {
                name: "stderr".into(),
                text: "warning\n".into(),
            }]),
        ];
        assert_eq!(score(&[exercise()], &cells)[0].score, 0.0);
    }

    #[test]
    fn a_number_as_the_test_s_value_is_partial_credit() {
        let cells = vec![Ok(vec![]), Ok(vec![value("1.5")])];
        let m = &score(&[exercise()], &cells)[0];
        assert_eq!((m.score, m.status), (1.5, Status::Partial));
        // Anything else as the value, or a number out of range, is all the points.
        for v in ["()", "7", "-1"] {
            let cells = vec![Ok(vec![]), Ok(vec![value(v)])];
            assert_eq!(score(&[exercise()], &cells)[0].score, 2.0, "{v}");
        }
    }

    #[test]
    fn tests_after_a_stopped_cell_did_not_run_and_say_what_stopped() {
        let cells = vec![Err(ExecError::Timeout {
            at: at(1),
            seconds: 30,
        })];
        let m = &score(&[exercise()], &cells)[0];
        assert_eq!((m.score, m.status), (0.0, Status::NotRun));
        assert_eq!(
            m.feedback,
            "Your solution cell failed:\ncode cell 1 was still running after 30 s, the cell timeout, so it was stopped\n\
             The tests did not run: code cell 1 was still running after 30 s, the cell timeout, so it was stopped"
        );
    }
}
