//! nbgrader's cell metadata (schema 3), which the HTML renderer and the
//! course tools read: which cells belong to an exercise, and nbgrader's
//! checksum of a cell.
//!
//! A cell is part of an exercise by its `metadata.nbgrader`: `solution: true`
//! for the cell a student writes, `grade: true` with `points` for a test
//! cell, `locked` for cells a student must not change.

use std::collections::BTreeMap;

use serde::Deserialize;
use thiserror::Error;

use super::ipynb::{Notebook, NotebookCell};

/// A notebook whose exercises cannot be released.
#[derive(Debug, Error, PartialEq)]
pub enum ExerciseError {
    /// `metadata.nbgrader` is not nbgrader's schema.
    #[error("cell {cell}: metadata.nbgrader is not nbgrader's cell metadata ({why}); it needs at least \"grade_id\", and \"points\" where \"grade\" is true")]
    Metadata {
        /// The cell's 1-based position.
        cell: usize,
        /// What is wrong.
        why: String,
    },
    /// Two cells share a `grade_id`.
    #[error(
        "cells {first} and {cell} both have the grade_id {id:?}; every exercise cell needs its own"
    )]
    DuplicateId {
        /// The second cell.
        cell: usize,
        /// The first cell with the id.
        first: usize,
        /// The id.
        id: String,
    },
    /// A delimiter is out of place.
    #[error("cell {cell} ({id}): {why}")]
    Region {
        /// The cell's 1-based position.
        cell: usize,
        /// Its `grade_id`.
        id: String,
        /// What is wrong, as nbgrader would refuse it.
        why: String,
    },
}

/// A cell's `metadata.nbgrader`, nbgrader's schema 3.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Nbgrader {
    /// The exercise cell's id, unique in the notebook.
    pub grade_id: String,
    /// A cell the student writes.
    #[serde(default)]
    pub solution: bool,
    /// A cell that gives points (a test cell, or a graded solution).
    #[serde(default)]
    pub grade: bool,
    /// Its points, where `grade` is true.
    #[serde(default)]
    pub points: Option<f64>,
    /// A cell the student must not change.
    #[serde(default)]
    pub locked: bool,
    /// nbgrader's schema version.
    #[serde(default)]
    pub schema_version: Option<u64>,
}

/// The nbgrader metadata of a cell, if it has any.
pub fn nbgrader(cell: &NotebookCell, position: usize) -> Result<Option<Nbgrader>, ExerciseError> {
    let Some(v) = cell.metadata("nbgrader") else {
        return Ok(None);
    };
    let meta: Nbgrader = Nbgrader::deserialize(v).map_err(|e| ExerciseError::Metadata {
        cell: position,
        why: e.to_string(),
    })?;
    if meta.grade && meta.points.is_none_or(|p| !p.is_finite() || p < 0.0) {
        return Err(ExerciseError::Metadata {
            cell: position,
            why: format!(
                "{:?} gives points but its \"points\" is not a number of 0 or more",
                meta.grade_id
            ),
        });
    }
    Ok(Some(meta))
}

/// Every cell's nbgrader metadata, by position; ids checked to be unique.
pub fn exercise_cells(nb: &Notebook) -> Result<Vec<(usize, Nbgrader)>, ExerciseError> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, cell) in nb.cells.iter().enumerate() {
        if let Some(meta) = nbgrader(cell, i + 1)? {
            if let Some(first) = seen.insert(meta.grade_id.clone(), i + 1) {
                return Err(ExerciseError::DuplicateId {
                    cell: i + 1,
                    first,
                    id: meta.grade_id,
                });
            }
            out.push((i + 1, meta));
        }
    }
    Ok(out)
}

/// nbgrader's `compute_checksum`: MD5 over the source, the cell type, whether
/// it is a test, a solution and locked (Python's `True`/`False`), its
/// `grade_id`, and for a test its points as Python prints a float. `grade`
/// can check a submission's locked cells against it.
pub fn checksum(cell: &NotebookCell, meta: &Nbgrader, locked: bool) -> String {
    use md5::{Digest, Md5};
    let python = |b: bool| if b { "True" } else { "False" };
    let mut m = Md5::new();
    m.update(cell.source.as_bytes());
    m.update(cell.kind.as_str().as_bytes());
    m.update(python(meta.grade).as_bytes());
    m.update(python(meta.solution).as_bytes());
    m.update(python(locked).as_bytes());
    m.update(meta.grade_id.as_bytes());
    if meta.grade {
        // Python's str(float): 2 → "2.0", 1.5 → "1.5", as Rust's `{:?}`.
        m.update(format!("{:?}", meta.points.unwrap_or(0.0)).as_bytes());
    }
    hex::encode(m.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notebook::ipynb::CellKind;
    use serde_json::{json, Value};

    #[test]
    fn checksums_are_nbgrader_s() {
        // The expected values are nbgrader 0.9.6's `compute_checksum` of the
        // same cells.
        let cell = |source: &str| NotebookCell::new(CellKind::Code, source);
        let meta = |v: Value| Nbgrader::deserialize(v).unwrap();
        let test =
            meta(json!({"grade_id": "01-1-test", "grade": true, "points": 2, "locked": true}));
        assert_eq!(
            checksum(&cell("assert!(exercise_01_1() > 0);"), &test, true),
            "90bce35a61312b92a72fd3773fe97f0d"
        );
        let solution = meta(json!({"grade_id": "01-1", "solution": true}));
        assert_eq!(
            checksum(
                &cell("fn exercise_01_1() -> i64 {\n    puzzlebook::unsolved!()\n}"),
                &solution,
                false
            ),
            "5f920e06a3f9cc7ad66b65b93418fa2f"
        );
        let fixed = meta(json!({"grade_id": "fixed", "locked": true}));
        assert_eq!(
            checksum(&cell("let shown = 1;"), &fixed, true),
            "12b292b59ee5c4c33c378886d87f8530"
        );
    }
}
