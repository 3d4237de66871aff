//! The class's grades as `grades.csv` (one row per student and exercise, the
//! long shape gradebooks import) and as a table for the terminal.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::course::scoring::{Mark, Status};

/// One submission's grades, or why it could not be graded.
#[derive(Debug, Clone, PartialEq)]
pub struct Graded {
    /// The student.
    pub student: String,
    /// The submission as the teacher named it.
    pub file: String,
    /// Each exercise's mark, or why none could be given.
    pub marks: Result<Vec<Mark>, String>,
    /// Locked cells the student changed, as sentences.
    pub changed: Vec<String>,
    /// Each exercise's solution cell as the student wrote it.
    pub answers: BTreeMap<String, String>,
    /// Each exercise's witnesses drawn as answer sheets, for an exercise
    /// whose values are letters ([`crate::course::sheets`]).
    pub sheets: BTreeMap<String, Vec<puzzlebook::figure::Figure>>,
}

/// `grades.csv`: `student_id,notebook,exercise,score,max_score,status`, one
/// row per student and exercise, sorted by student. A submission that could
/// not be graded gets a row per exercise with an empty score and the status
/// `not graded`, so that a gradebook shows it as missing, not as zero; so
/// does an exercise whose answer the grader's Z3 could not judge.
pub fn csv(notebook: &str, exercises: &[(String, f64)], class: &[Graded]) -> String {
    let mut rows: Vec<&Graded> = class.iter().collect();
    rows.sort_by(|a, b| a.student.cmp(&b.student));
    let mut out = String::from("student_id,notebook,exercise,score,max_score,status\n");
    for g in rows {
        for (id, max) in exercises {
            let (score, status) = match &g.marks {
                Ok(marks) => match marks.iter().find(|m| &m.exercise == id) {
                    Some(m) if m.status == Status::NotGraded => (String::new(), "not graded"),
                    Some(m) => (number(m.score), m.status.as_str()),
                    None => (String::new(), "not graded"),
                },
                Err(_) => (String::new(), "not graded"),
            };
            let _ = writeln!(
                out,
                "{},{},{},{score},{},{status}",
                field(&g.student),
                field(notebook),
                field(id),
                number(*max)
            );
        }
    }
    out
}

/// A number as a gradebook reads it, to two decimals at most: `2`, `1.5`,
/// `0.67` (a part of three of 2 points).
pub fn number(x: f64) -> String {
    let x = (x * 100.0).round() / 100.0;
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// A CSV field: quoted when it holds a comma, quote or line break, and
/// with a leading `'` when a spreadsheet would read it as a formula.
fn field(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// The terminal's table: a row per student with each exercise's score (`?`
/// where not graded) and the total, then the submissions and exercises
/// that could not be graded and the locked cells that changed.
pub fn summary(exercises: &[(String, f64)], class: &[Graded]) -> String {
    let mut rows: Vec<&Graded> = class.iter().collect();
    rows.sort_by(|a, b| a.student.cmp(&b.student));
    let total: f64 = exercises.iter().map(|(_, m)| m).sum();
    let mut header = vec!["student".to_string()];
    header.extend(
        exercises
            .iter()
            .map(|(id, max)| format!("{id} /{}", number(*max))),
    );
    header.push(format!("total /{}", number(total)));
    let mut table = vec![header];
    for g in &rows {
        let mut row = vec![g.student.clone()];
        match &g.marks {
            Ok(marks) => {
                for (id, _) in exercises {
                    row.push(
                        marks
                            .iter()
                            .find(|m| &m.exercise == id)
                            .map_or("-".into(), |m| match m.status {
                                Status::NotGraded => "?".into(),
                                _ => number(m.score),
                            }),
                    );
                }
                row.push(number(marks.iter().map(|m| m.score).sum()));
            }
            Err(_) => {
                row.extend(exercises.iter().map(|_| "-".to_string()));
                row.push("not graded".into());
            }
        }
        table.push(row);
    }
    let widths: Vec<usize> = (0..table[0].len())
        .map(|c| {
            table
                .iter()
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &table {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (text, w))| match c {
                0 => format!("{text:<w$}"),
                _ => format!("{text:>w$}"),
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
    }
    for g in &rows {
        match &g.marks {
            Err(why) => {
                let _ = writeln!(out, "not graded: {} ({}): {why}", g.student, g.file);
            }
            Ok(marks) => {
                for m in marks.iter().filter(|m| m.status == Status::NotGraded) {
                    let _ = writeln!(
                        out,
                        "not graded: {} ({}), exercise {}: the grader's Z3 could not decide it; its feedback page says why",
                        g.student, g.file, m.exercise
                    );
                }
            }
        }
        for c in &g.changed {
            let _ = writeln!(out, "changed: {} ({}): {c}", g.student, g.file);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(exercise: &str, score: f64, status: Status) -> Mark {
        Mark {
            exercise: exercise.into(),
            score,
            max: 2.0,
            status,
            feedback: String::new(),
        }
    }

    fn class() -> Vec<Graded> {
        vec![
            Graded {
                student: "zoe".into(),
                file: "in/zoe.ipynb".into(),
                marks: Ok(vec![
                    mark("09-1", 2.0, Status::Right),
                    mark("09-2", 0.5, Status::Partial),
                ]),
                changed: vec!["the locked cell 09-1-test was edited".into()],
                answers: BTreeMap::new(),
                sheets: BTreeMap::new(),
            },
            Graded {
                student: "=cmd".into(),
                file: "in/=cmd.ipynb".into(),
                marks: Err("not valid JSON".into()),
                changed: vec![],
                answers: BTreeMap::new(),
                sheets: BTreeMap::new(),
            },
        ]
    }

    fn exercises() -> Vec<(String, f64)> {
        vec![("09-1".into(), 2.0), ("09-2".into(), 2.0)]
    }

    #[test]
    fn the_csv_has_a_row_per_student_and_exercise_sorted_and_safe() {
        assert_eq!(
            csv("09-x", &exercises(), &class()),
            "student_id,notebook,exercise,score,max_score,status\n\
             '=cmd,09-x,09-1,,2,not graded\n\
             '=cmd,09-x,09-2,,2,not graded\n\
             zoe,09-x,09-1,2,2,right\n\
             zoe,09-x,09-2,0.5,2,partial\n"
        );
        assert_eq!(field("a,\"b\""), "\"a,\"\"b\"\"\"");
    }

    #[test]
    fn a_share_of_points_is_written_to_two_decimals() {
        // One part of three right, in an exercise of 2 points; two of three.
        assert_eq!(number(2.0 / 3.0), "0.67");
        assert_eq!(number(2.0 * 2.0 / 3.0), "1.33");
        assert_eq!(number(1.5), "1.5");
        assert_eq!(number(2.0), "2");
        assert_eq!(number(0.0), "0");
    }

    #[test]
    fn the_summary_is_a_table_then_what_was_not_graded_or_changed() {
        assert_eq!(
            summary(&exercises(), &class()),
            "student  09-1 /2  09-2 /2    total /4\n\
             =cmd           -        -  not graded\n\
             zoe            2      0.5         2.5\n\
             not graded: =cmd (in/=cmd.ipynb): not valid JSON\n\
             changed: zoe (in/zoe.ipynb): the locked cell 09-1-test was edited\n"
        );
    }

    #[test]
    fn an_exercise_z3_could_not_decide_is_missing_from_the_csv_and_named_in_the_summary() {
        let class = vec![Graded {
            student: "ann".into(),
            file: "ann.ipynb".into(),
            marks: Ok(vec![
                mark("09-1", 0.0, Status::NotGraded),
                mark("09-2", 2.0, Status::Right),
            ]),
            changed: vec![],
            answers: BTreeMap::new(),
            sheets: BTreeMap::new(),
        }];
        assert_eq!(
            csv("09-x", &exercises(), &class),
            "student_id,notebook,exercise,score,max_score,status\n\
             ann,09-x,09-1,,2,not graded\n\
             ann,09-x,09-2,2,2,right\n"
        );
        assert_eq!(
            summary(&exercises(), &class),
            "student  09-1 /2  09-2 /2  total /4\n\
             ann            ?        2         2\n\
             not graded: ann (ann.ipynb), exercise 09-1: the grader's Z3 could not decide it; its feedback page says why\n"
        );
    }
}
