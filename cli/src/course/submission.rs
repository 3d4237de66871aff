//! A student's submission checked against the teacher's notebook and turned
//! into the notebook that is graded: the teacher's student release (no
//! hidden test ever runs in a student's process), with the student's
//! solution cells in place of the stubs.
//!
//! Only the solution cells come from the submission, matched by their
//! nbgrader `grade_id`: a student cannot change a test, the `:dep` line or
//! any cell the tests rely on. Locked cells that differ from the release
//! are reported, as nbgrader's checksums report them.

use std::collections::BTreeMap;
use std::path::Path;

use thiserror::Error;

use crate::course::release;
use crate::notebook::ipynb::{bad_name, CellKind, Notebook};
use crate::notebook::nbgrader::{self, ExerciseError, Nbgrader};

/// The suffix that makes a test cell's `grade_id` from its exercise's
/// (`03-1` → `03-1-test`), as the book's notebooks name them.
pub const TEST_SUFFIX: &str = "-test";

/// A submission that cannot be graded against this source.
#[derive(Debug, Error, PartialEq)]
pub enum SubmissionError {
    /// It shares no exercise with the source.
    #[error("it has none of this notebook's exercises ({expected}){found}: it is another chapter's notebook, or one not released from the source; hand in the released notebook with the answers written in it")]
    OtherChapter {
        /// The source's exercises.
        expected: String,
        /// What the submission has instead, if anything.
        found: String,
    },
    /// The student cannot be told from the file's name.
    #[error("cannot tell the student from the file name: {name:?} {why}; name each submission (or its folder) with ASCII letters, digits, - or _")]
    Student {
        /// The name found.
        name: String,
        /// What is wrong with it.
        why: String,
    },
}

/// One exercise of the source: its solution cell and its test cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Exercise {
    /// Its name (the solution cell's `grade_id`; a test cell's without
    /// [`TEST_SUFFIX`]).
    pub id: String,
    /// Its solution cell's number among code cells (1-based), if it has one.
    pub solution: Option<usize>,
    /// Its test cells: each one's number among code cells and its points.
    pub tests: Vec<(usize, f64)>,
}

impl Exercise {
    /// The points it is worth.
    pub fn max(&self) -> f64 {
        self.tests.iter().map(|(_, p)| p).sum()
    }
}

/// The teacher's notebook, read once for every submission.
#[derive(Debug, Clone)]
pub struct Source {
    /// As the teacher wrote it, hidden tests included.
    pub nb: Notebook,
    /// Its student release, against which locked cells are checked.
    released: Notebook,
    /// Every cell's nbgrader metadata, by 1-based position.
    cells: Vec<(usize, Nbgrader)>,
    /// Its exercises, in the order of their first cell.
    pub exercises: Vec<Exercise>,
}

impl Source {
    /// Reads the exercises of a teacher's notebook.
    pub fn new(nb: Notebook) -> Result<Source, ExerciseError> {
        let released = release::release(&nb)?;
        let cells = nbgrader::exercise_cells(&nb)?;
        let code_number: BTreeMap<usize, usize> =
            nb.code_cells().map(|c| (c.position, c.number)).collect();
        let mut exercises: Vec<Exercise> = Vec::new();
        for (position, meta) in &cells {
            let Some(&number) = code_number.get(position) else {
                continue;
            };
            let (id, test) = match meta.grade_id.strip_suffix(TEST_SUFFIX) {
                Some(id) if meta.grade => (id, true),
                _ => (meta.grade_id.as_str(), meta.grade),
            };
            let at = match exercises.iter().position(|e| e.id == id) {
                Some(at) => at,
                None => {
                    exercises.push(Exercise {
                        id: id.to_string(),
                        solution: None,
                        tests: Vec::new(),
                    });
                    exercises.len() - 1
                }
            };
            if meta.solution {
                exercises[at].solution = Some(number);
            }
            if test {
                exercises[at]
                    .tests
                    .push((number, meta.points.unwrap_or(0.0)));
            }
        }
        exercises.retain(|e| !e.tests.is_empty());
        Ok(Source {
            nb,
            released,
            cells,
            exercises,
        })
    }

    /// The notebook to grade for `submitted`: the source's student release
    /// (no hidden test, no solution) with each solution cell's code taken
    /// from the submission's cell of the same `grade_id` (a solution cell
    /// the submission lacks keeps the release's stub, so its tests fail
    /// naming the exercise), outputs cleared; and what the student changed
    /// that a grade does not take.
    pub fn assemble(&self, submitted: &Notebook) -> Result<Assembled, SubmissionError> {
        // Read leniently: a cell whose metadata a student broke only fails
        // to match.
        let mut theirs: BTreeMap<String, usize> = BTreeMap::new();
        for (i, cell) in submitted.cells.iter().enumerate() {
            if let Ok(Some(meta)) = nbgrader::nbgrader(cell, i + 1) {
                theirs.entry(meta.grade_id).or_insert(i);
            }
        }
        if !self
            .cells
            .iter()
            .any(|(_, m)| theirs.contains_key(&m.grade_id))
        {
            let ids = |ids: Vec<&str>| ids.join(", ");
            return Err(SubmissionError::OtherChapter {
                expected: ids(self.exercises.iter().map(|e| e.id.as_str()).collect()),
                found: if theirs.is_empty() {
                    ", and no exercise cell at all".into()
                } else {
                    format!(", but {}", ids(theirs.keys().map(String::as_str).collect()))
                },
            });
        }
        let mut nb = self.released.clone();
        let (mut changed, mut missing) = (Vec::new(), Vec::new());
        for (position, meta) in &self.cells {
            let found = theirs.get(&meta.grade_id).map(|&i| &submitted.cells[i]);
            let released = &self.released.cells[position - 1];
            if meta.solution {
                match found {
                    Some(cell) if cell.kind == CellKind::Code => {
                        nb.cells[position - 1].source = cell.source.clone();
                    }
                    _ => {
                        nb.cells[position - 1].source = released.source.clone();
                        missing.push(meta.grade_id.clone());
                    }
                }
            } else if meta.grade || meta.locked {
                let same =
                    found.is_some_and(|c| c.kind == released.kind && c.source == released.source);
                if !same {
                    changed.push(Changed {
                        grade_id: meta.grade_id.clone(),
                        deleted: found.is_none(),
                    });
                }
            }
        }
        for cell in &mut nb.cells {
            cell.outputs.clear();
            cell.hash = None;
        }
        Ok(Assembled {
            nb,
            changed,
            missing,
        })
    }
}

/// A submission made ready to grade.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The notebook to run.
    pub nb: Notebook,
    /// Locked cells the student changed or deleted; the source's run instead.
    pub changed: Vec<Changed>,
    /// Solution cells the submission lacks (or that are no longer code).
    pub missing: Vec<String>,
}

/// A locked cell that differs from the release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Its `grade_id`.
    pub grade_id: String,
    /// Whether it was deleted, rather than edited.
    pub deleted: bool,
}

impl std::fmt::Display for Changed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.deleted { "deleted" } else { "edited" };
        write!(
            f,
            "the locked cell {} was {what}; the teacher's version was graded",
            self.grade_id
        )
    }
}

/// The student a submission is from: its file's stem, or, when the file
/// has the source's name (`alice/03-twenty-four.ipynb`), its folder's name.
/// `submission`'s folder is as the file system resolves it (the caller
/// canonicalizes it), so that `./03-twenty-four.ipynb` names its folder too.
pub fn student_of(submission: &Path, source: &Path) -> Result<String, SubmissionError> {
    let stem = |p: &Path| p.file_stem().map(|s| s.to_string_lossy().into_owned());
    let name = if submission.file_name() == source.file_name() {
        submission
            .parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
    } else {
        stem(submission)
    }
    .unwrap_or_default();
    match bad_name(&name) {
        Some(why) => Err(SubmissionError::Student { name, why }),
        None => Ok(name),
    }
}

/// Makes each relative `path = "…"` in the notebook's `:dep` lines absolute,
/// against `dir` (the source's folder), so that the notebook can run from a
/// temporary folder and still load the checkout's crate.
pub fn pin_dep_paths(nb: &mut Notebook, dir: &Path) {
    for cell in nb.cells.iter_mut().filter(|c| c.kind == CellKind::Code) {
        let pinned: Vec<String> = cell
            .source
            .split_inclusive('\n')
            .map(|line| match line.trim_start().starts_with(":dep") {
                true => pin_line(line, dir),
                false => line.to_string(),
            })
            .collect();
        cell.source = pinned.concat();
    }
}

/// One `:dep` line with its relative `path = "…"` made absolute.
fn pin_line(line: &str, dir: &Path) -> String {
    let Some(key) = line.find("path") else {
        return line.to_string();
    };
    let rest = &line[key + "path".len()..];
    let Some(open) = rest.find('"') else {
        return line.to_string();
    };
    if !rest[..open]
        .trim()
        .trim_start_matches('=')
        .trim()
        .is_empty()
    {
        return line.to_string();
    }
    let value_start = key + "path".len() + open + 1;
    let Some(len) = line[value_start..].find('"') else {
        return line.to_string();
    };
    let value = &line[value_start..value_start + len];
    if Path::new(value).is_absolute() {
        return line.to_string();
    }
    let absolute = dir.join(value);
    // A TOML basic string: backslashes and quotes escaped.
    let quoted = absolute
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    format!(
        "{}{quoted}{}",
        &line[..value_start],
        &line[value_start + len..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A chapter with one exercise: a solution cell and a locked test.
    fn source() -> Notebook {
        let nb = json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "source": ":dep puzzlebook = { path = \"..\" }"},
            {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "09-1", "solution": true, "grade": false, "locked": false, "schema_version": 3}},
             "outputs": [], "source": "fn exercise_09_1() -> i64 {\n    // BEGIN SOLUTION\n    42\n    // END SOLUTION\n}"},
            {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "09-1-test", "solution": false, "grade": true, "points": 2, "locked": true, "schema_version": 3}},
             "outputs": [], "source": "assert!(exercise_09_1() > 0);\n// BEGIN HIDDEN TESTS\nassert_eq!(exercise_09_1(), 42);\n// END HIDDEN TESTS"},
        ]});
        Notebook::parse(&nb.to_string()).unwrap()
    }

    fn released() -> Notebook {
        release::release(&source()).unwrap()
    }

    #[test]
    fn the_source_lists_each_exercise_with_its_cells_and_points() {
        let s = Source::new(source()).unwrap();
        assert_eq!(
            s.exercises,
            [Exercise {
                id: "09-1".into(),
                solution: Some(2),
                tests: vec![(3, 2.0)],
            }]
        );
        assert_eq!(s.exercises[0].max(), 2.0);
    }

    #[test]
    fn the_student_s_solution_runs_with_the_visible_tests_only() {
        let s = Source::new(source()).unwrap();
        let mut handed_in = released();
        handed_in.cells[1].source = "fn exercise_09_1() -> i64 { 41 }".into();
        let a = s.assemble(&handed_in).unwrap();
        assert_eq!(a.nb.cells[1].source, "fn exercise_09_1() -> i64 { 41 }");
        assert_eq!(a.nb.cells[2].source, released().cells[2].source);
        assert!(!a.nb.cells[2].source.contains("42"));
        assert!(a.changed.is_empty() && a.missing.is_empty());
    }

    #[test]
    fn an_edited_or_deleted_test_is_reported_and_the_teacher_s_runs() {
        let s = Source::new(source()).unwrap();
        let mut edited = released();
        edited.cells[2].source = "// no test".into();
        let a = s.assemble(&edited).unwrap();
        assert_eq!(
            a.changed,
            [Changed {
                grade_id: "09-1-test".into(),
                deleted: false
            }]
        );
        assert_eq!(a.nb.cells[2].source, released().cells[2].source);
        assert_eq!(
            a.changed[0].to_string(),
            "the locked cell 09-1-test was edited; the teacher's version was graded"
        );
        let mut deleted = released();
        deleted.cells.remove(2);
        assert!(s.assemble(&deleted).unwrap().changed[0].deleted);
    }

    #[test]
    fn a_missing_solution_keeps_the_stub() {
        let s = Source::new(source()).unwrap();
        let mut gone = released();
        gone.cells.remove(1);
        let a = s.assemble(&gone).unwrap();
        assert_eq!(a.missing, ["09-1"]);
        assert!(a.nb.cells[1].source.contains(release::STUB));
    }

    #[test]
    fn a_notebook_without_the_source_s_exercises_is_another_chapter() {
        let s = Source::new(source()).unwrap();
        let other = Notebook::of_cells(&[(CellKind::Code, "1 + 1")]);
        let e = s.assemble(&other).unwrap_err();
        assert_eq!(
            e.to_string(),
            "it has none of this notebook's exercises (09-1), and no exercise cell at all: it is another chapter's notebook, or one not released from the source; hand in the released notebook with the answers written in it"
        );
    }

    #[test]
    fn the_student_is_the_file_stem_or_the_folder_of_a_file_named_as_the_source() {
        let dir = tempfile::tempdir().unwrap();
        let source = Path::new("notebooks/09-x.ipynb");
        assert_eq!(
            student_of(Path::new("in/alice_b.ipynb"), source).unwrap(),
            "alice_b"
        );
        std::fs::create_dir(dir.path().join("bob")).unwrap();
        let file = dir.path().join("bob/09-x.ipynb");
        std::fs::write(&file, "{}").unwrap();
        assert_eq!(student_of(&file, source).unwrap(), "bob");
        let e = student_of(Path::new("in/al ice.ipynb"), source).unwrap_err();
        assert!(
            e.to_string().contains("\"al ice\" has the character ' '"),
            "{e}"
        );
    }

    #[test]
    fn relative_dep_paths_are_pinned_to_the_source_s_folder() {
        let mut nb = Notebook::of_cells(&[(
            CellKind::Code,
            ":dep puzzlebook = { path = \"..\" }\n:dep rand = \"0.8\"\n:dep x = { path = \"/abs\" }\nlet path = \"..\";",
        )]);
        pin_dep_paths(&mut nb, Path::new("/course/notebooks"));
        assert_eq!(
            nb.cells[0].source,
            ":dep puzzlebook = { path = \"/course/notebooks/..\" }\n:dep rand = \"0.8\"\n:dep x = { path = \"/abs\" }\nlet path = \"..\";"
        );
    }
}
