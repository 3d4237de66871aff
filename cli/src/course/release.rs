//! The student release of a teacher's notebook: a stage from [`Notebook`] to
//! [`Notebook`], over the exercises' nbgrader metadata
//! ([`crate::notebook::nbgrader`]).
//!
//! In a solution cell, `// BEGIN SOLUTION` … `// END SOLUTION` marks what
//! the release replaces with [`STUB`]; in a test cell, `// BEGIN HIDDEN TESTS`
//! … `// END HIDDEN TESTS` marks what it removes. The replacement follows
//! nbgrader's `ClearSolutions` and `ClearHiddenTests` line for line, so that
//! nbgrader, configured with `ClearSolutions.code_stub = {"rust": STUB}`,
//! writes the same sources.

use serde_json::Value;

use crate::notebook::ipynb::{CellKind, Notebook, NotebookCell};
use crate::notebook::nbgrader::{checksum, exercise_cells, ExerciseError, Nbgrader};

/// What a released solution cell says in place of the solution. It panics
/// with the exercise's name, taken from the function it sits in
/// (`puzzlebook::unsolved!`).
pub const STUB: &str = "puzzlebook::unsolved!()";

/// nbgrader's delimiters; a line that contains one is a delimiter line,
/// whatever its comment mark.
pub const BEGIN_SOLUTION: &str = "BEGIN SOLUTION";
/// See [`BEGIN_SOLUTION`].
pub const END_SOLUTION: &str = "END SOLUTION";
/// See [`BEGIN_SOLUTION`].
pub const BEGIN_HIDDEN_TESTS: &str = "BEGIN HIDDEN TESTS";
/// See [`BEGIN_SOLUTION`].
pub const END_HIDDEN_TESTS: &str = "END HIDDEN TESTS";

/// Replaces each solution region of `source` with `stub`, indented as its
/// BEGIN line; a source with no region is replaced whole. nbgrader's
/// `ClearSolutions._replace_solution_region`, line for line.
pub fn clear_solutions(source: &str, stub: &str) -> Result<String, String> {
    let mut out: Vec<String> = Vec::new();
    let (mut inside, mut replaced) = (false, false);
    for line in source.split('\n') {
        if line.contains(BEGIN_SOLUTION) {
            if inside {
                return Err(format!(
                    "a second {BEGIN_SOLUTION} inside a solution region"
                ));
            }
            inside = true;
            replaced = true;
            let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
            out.extend(stub.split('\n').map(|s| format!("{indent}{s}")));
        } else if line.contains(END_SOLUTION) {
            inside = false;
        } else if !inside {
            out.push(line.to_string());
        }
    }
    if inside {
        return Err(format!("a {BEGIN_SOLUTION} with no {END_SOLUTION}"));
    }
    Ok(if replaced {
        out.join("\n")
    } else {
        stub.to_string()
    })
}

/// Removes each hidden-test region of `source`, delimiters included.
/// nbgrader's `ClearHiddenTests._remove_hidden_test_region`.
pub fn clear_hidden_tests(source: &str) -> Result<String, String> {
    let mut out: Vec<&str> = Vec::new();
    let mut inside = false;
    for line in source.split('\n') {
        if line.contains(BEGIN_HIDDEN_TESTS) {
            if inside {
                return Err(format!(
                    "a second {BEGIN_HIDDEN_TESTS} inside a hidden-test region"
                ));
            }
            inside = true;
        } else if line.contains(END_HIDDEN_TESTS) {
            inside = false;
        } else if !inside {
            out.push(line);
        }
    }
    if inside {
        return Err(format!("a {BEGIN_HIDDEN_TESTS} with no {END_HIDDEN_TESTS}"));
    }
    Ok(out.join("\n"))
}

/// nbgrader's `LockCells` with its defaults: solution cells cannot be
/// deleted; test cells and locked cells cannot be deleted or edited.
fn lock(cell: &mut NotebookCell, meta: &Nbgrader) {
    let (deletable, editable) = if meta.solution {
        (false, None)
    } else if meta.grade || meta.locked {
        (false, Some(false))
    } else {
        return;
    };
    cell.set_metadata("deletable", Value::Bool(deletable));
    if let Some(e) = editable {
        cell.set_metadata("editable", Value::Bool(e));
    }
}

/// The student release of a teacher's notebook: solutions replaced by
/// [`STUB`], hidden tests removed, the outputs of solution and test cells
/// cleared; every other cell as it was, outputs included.
pub fn release(nb: &Notebook) -> Result<Notebook, ExerciseError> {
    let exercises = exercise_cells(nb)?;
    let mut out = nb.clone();
    for (position, meta) in exercises {
        let cell = &mut out.cells[position - 1];
        let region = |why: String| ExerciseError::Region {
            cell: position,
            id: meta.grade_id.clone(),
            why,
        };
        if meta.solution && cell.kind == CellKind::Code {
            cell.source = clear_solutions(&cell.source, STUB).map_err(region)?;
        }
        if meta.grade && cell.kind == CellKind::Code {
            cell.source = clear_hidden_tests(&cell.source).map_err(region)?;
        } else if cell.source.contains(BEGIN_HIDDEN_TESTS) {
            return Err(region(format!(
                "{BEGIN_HIDDEN_TESTS} in a cell that is not a test (its nbgrader \"grade\" is false), which a release would show"
            )));
        }
        if (meta.solution || meta.grade) && cell.kind == CellKind::Code {
            cell.outputs.clear();
            cell.hash = None;
        }
        lock(cell, &meta);
        let locked = !meta.solution && (meta.grade || meta.locked);
        if meta.grade || meta.solution || locked {
            let sum = checksum(cell, &meta, locked);
            let kind = cell.kind.as_str();
            if let Some(Value::Object(n)) = cell.metadata_mut("nbgrader") {
                n.insert("checksum".into(), Value::String(sum));
                n.insert("cell_type".into(), Value::String(kind.into()));
            }
        }
    }
    // Hidden tests outside any exercise cell would be shown to students.
    for (i, cell) in out.cells.iter().enumerate() {
        let marked =
            cell.source.contains(BEGIN_HIDDEN_TESTS) || cell.source.contains(BEGIN_SOLUTION);
        if marked && nb.cells[i].metadata("nbgrader").is_none() {
            return Err(ExerciseError::Region {
                cell: i + 1,
                id: "no grade_id".into(),
                why: "a solution or hidden-test region in a cell without nbgrader metadata, which a release would show".into(),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_solution_region_becomes_the_stub_at_its_indentation() {
        let source = "fn exercise_01_1(q: &[Int]) -> Vec<Bool> {\n    // BEGIN SOLUTION\n    vec![q[0].eq(1)]\n    // END SOLUTION\n}";
        assert_eq!(
            clear_solutions(source, STUB).unwrap(),
            "fn exercise_01_1(q: &[Int]) -> Vec<Bool> {\n    puzzlebook::unsolved!()\n}"
        );
        // No region: the whole cell is the answer.
        assert_eq!(clear_solutions("let x = 1;", STUB).unwrap(), STUB);
        // A stub of several lines keeps the indentation on each.
        assert_eq!(
            clear_solutions(
                "  // BEGIN SOLUTION\n  x\n  // END SOLUTION",
                "// here\ntodo!()"
            )
            .unwrap(),
            "  // here\n  todo!()"
        );
    }

    #[test]
    fn broken_regions_are_refused_as_nbgrader_refuses_them() {
        let nested = "// BEGIN SOLUTION\n// BEGIN SOLUTION\n// END SOLUTION";
        assert!(clear_solutions(nested, STUB)
            .unwrap_err()
            .contains("second"));
        assert!(clear_solutions("// BEGIN SOLUTION\nx", STUB)
            .unwrap_err()
            .contains("no END SOLUTION"));
        assert!(clear_hidden_tests("// BEGIN HIDDEN TESTS\nx")
            .unwrap_err()
            .contains("no END HIDDEN TESTS"));
    }

    #[test]
    fn hidden_tests_go_with_their_delimiters() {
        let source = "assert!(visible());\n// BEGIN HIDDEN TESTS\nassert!(hidden());\n// END HIDDEN TESTS\nok()";
        assert_eq!(
            clear_hidden_tests(source).unwrap(),
            "assert!(visible());\nok()"
        );
    }

    fn notebook(cells: Vec<Value>) -> Notebook {
        Notebook::parse(
            &json!({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})
                .to_string(),
        )
        .unwrap()
    }

    fn code(source: &str, nbgrader: Option<Value>) -> Value {
        let mut metadata = json!({});
        if let Some(n) = nbgrader {
            metadata["nbgrader"] = n;
        }
        json!({"cell_type": "code", "metadata": metadata, "source": source, "execution_count": 1,
               "outputs": [{"output_type": "stream", "name": "stdout", "text": "out\n"}]})
    }

    #[test]
    fn a_release_clears_solutions_tests_and_their_outputs_only() {
        let nb = notebook(vec![
            code("let shown = 1;", None),
            code("fn exercise_01_1() -> i64 {\n    // BEGIN SOLUTION\n    42\n    // END SOLUTION\n}",
                 Some(json!({"grade_id": "01-1", "solution": true, "grade": false, "locked": false, "schema_version": 3}))),
            code("assert!(exercise_01_1() > 0);\n// BEGIN HIDDEN TESTS\nassert_eq!(exercise_01_1(), 42);\n// END HIDDEN TESTS",
                 Some(json!({"grade_id": "01-1-test", "solution": false, "grade": true, "points": 2, "locked": true, "schema_version": 3}))),
        ]);
        let student = release(&nb).unwrap();
        assert_eq!(
            student.cells[0], nb.cells[0],
            "other cells keep source and outputs"
        );
        assert_eq!(
            student.cells[1].source,
            "fn exercise_01_1() -> i64 {\n    puzzlebook::unsolved!()\n}"
        );
        assert_eq!(student.cells[2].source, "assert!(exercise_01_1() > 0);");
        assert!(student.cells[1].outputs.is_empty() && student.cells[2].outputs.is_empty());
        let json = student.to_json();
        assert!(!json.contains("42") && !json.contains("HIDDEN"), "{json}");
    }
    #[test]
    fn bad_exercise_metadata_is_named_with_its_cell() {
        let no_points = notebook(vec![code(
            "x",
            Some(json!({"grade_id": "t", "grade": true})),
        )]);
        let e = release(&no_points).unwrap_err();
        assert!(e.to_string().starts_with("cell 1: "), "{e}");
        assert!(e.to_string().contains("\"points\""), "{e}");
        let no_id = notebook(vec![code("x", Some(json!({"solution": true})))]);
        assert!(release(&no_id)
            .unwrap_err()
            .to_string()
            .contains("grade_id"));
        let twice = notebook(vec![
            code("x", Some(json!({"grade_id": "a", "solution": true}))),
            code("y", Some(json!({"grade_id": "a", "solution": true}))),
        ]);
        assert_eq!(
            release(&twice).unwrap_err(),
            ExerciseError::DuplicateId {
                cell: 2,
                first: 1,
                id: "a".into()
            }
        );
        let loose = notebook(vec![code(
            "// BEGIN HIDDEN TESTS\nx\n// END HIDDEN TESTS",
            None,
        )]);
        assert!(release(&loose)
            .unwrap_err()
            .to_string()
            .contains("without nbgrader metadata"));
    }
}
