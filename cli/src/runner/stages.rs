//! The pure stages between loading and writing: expected hashes, staleness,
//! the files a notebook renders to, applying outputs, and comparing with what
//! is on disk.

use std::collections::BTreeMap;

use crate::notebook::ipynb::{Notebook, Output};
use crate::runner::hash;

/// Why a notebook or its rendered files are not fresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Staleness {
    /// Code cells whose stored hash does not match the sources, from the first one
    /// on: `(position among all cells, name)`.
    Cells(Vec<(usize, String)>),
    /// The hashes match, but rendered files (relative to the reports folder)
    /// are not what the notebook renders to: its narrative changed, or a file
    /// was edited, deleted or left over from an earlier run.
    Files(Vec<(String, FileState)>),
}

/// How one rendered file differs from what is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileState {
    /// Not on disk.
    Missing,
    /// On disk with other contents.
    Differs,
    /// On disk, but the notebook no longer renders it (a figure of a cell that
    /// is gone or no longer draws one).
    LeftOver,
}

/// The hashes a notebook's code cells should carry, given the crate fingerprint.
pub fn expected_hashes(nb: &Notebook, fingerprint: &str) -> Vec<String> {
    hash::chain(fingerprint, nb.code_cells().map(|c| c.cell.source.as_str()))
}

/// The rendered files ([`crate::render::book::files`]) that differ from those on disk, by name. Both maps are
/// keyed by path relative to the reports folder.
pub fn file_changes(
    rendered: &BTreeMap<String, String>,
    on_disk: &BTreeMap<String, String>,
) -> Vec<(String, FileState)> {
    let mut out: Vec<(String, FileState)> = rendered
        .iter()
        .filter_map(|(name, text)| match on_disk.get(name) {
            None => Some((name.clone(), FileState::Missing)),
            Some(old) if old != text => Some((name.clone(), FileState::Differs)),
            Some(_) => None,
        })
        .collect();
    out.extend(
        on_disk
            .keys()
            .filter(|k| !rendered.contains_key(*k))
            .map(|k| (k.clone(), FileState::LeftOver)),
    );
    out.sort();
    out
}

/// What is stale in `nb` and its files: `rendered` is what `nb` renders to
/// ([`book::files`]), `on_disk` what is there, both keyed by path relative to
/// the reports folder. An empty list means fresh: `report` has nothing to do.
pub fn staleness(
    nb: &Notebook,
    rendered: &BTreeMap<String, String>,
    on_disk: &BTreeMap<String, String>,
    fingerprint: &str,
) -> Vec<Staleness> {
    let expected = expected_hashes(nb, fingerprint);
    let stale: Vec<(usize, String)> = nb
        .code_cells()
        .zip(&expected)
        .filter(|(c, want)| c.cell.hash.as_deref() != Some(want.as_str()))
        .map(|(c, _)| (c.position, c.name))
        .collect();
    let mut out = Vec::new();
    if !stale.is_empty() {
        out.push(Staleness::Cells(stale));
    }
    let changes = file_changes(rendered, on_disk);
    if !changes.is_empty() {
        out.push(Staleness::Files(changes));
    }
    out
}

/// The notebook with fresh outputs and their hashes.
pub fn apply_outputs(nb: &Notebook, outputs: Vec<Vec<Output>>, hashes: &[String]) -> Notebook {
    let mut nb = nb.clone();
    let code: Vec<usize> = nb.code_cells().map(|c| c.position - 1).collect();
    for ((i, outs), h) in code.into_iter().zip(outputs).zip(hashes) {
        nb.cells[i].outputs = outs;
        nb.cells[i].hash = Some(h.clone());
    }
    nb
}

/// For `check` on a Z3 other than the one `committed` was executed on: the
/// `executed` notebook with the outputs of every z3-dependent cell (see
/// [`NotebookCell::z3_dependent`](crate::notebook::ipynb::NotebookCell::z3_dependent))
/// put back to the committed ones, and its Z3 record to the committed one, so
/// that only what must not depend on the engine is compared byte for byte.
/// Also returns how many cells are tagged, and the names of those whose
/// outputs differed.
pub fn across_engines(
    committed: &Notebook,
    mut executed: Notebook,
) -> (Notebook, usize, Vec<String>) {
    let mut tagged = 0;
    let mut differed = Vec::new();
    for c in committed.code_cells().filter(|c| c.cell.z3_dependent()) {
        tagged += 1;
        let i = c.position - 1;
        if executed.cells[i].outputs != c.cell.outputs {
            executed.cells[i].outputs = c.cell.outputs.clone();
            differed.push(c.name.clone());
        }
    }
    if let Some(z3) = committed.z3() {
        executed.set_z3(z3);
    }
    (executed, tagged, differed)
}

/// A unified diff of `old` and `new`, or `None` when they are identical.
pub fn diff(old: &str, new: &str, old_name: &str, new_name: &str) -> Option<String> {
    (old != new).then(|| {
        similar::TextDiff::from_lines(old, new)
            .unified_diff()
            .context_radius(3)
            .header(old_name, new_name)
            .to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn across_engines_keeps_only_z3_dependent_outputs_and_names_them() {
        let cell = |tags: &str, out: &str| {
            format!(
                r#"{{"cell_type": "code", "metadata": {{"name": "c{out}", "tags": [{tags}]}},
                    "source": "x", "outputs": [{{"output_type": "stream", "name": "stdout",
                    "text": "{out}"}}]}}"#
            )
        };
        let nb = |a: &str, b: &str, c: &str, z3: &str| {
            Notebook::parse(&format!(
                r#"{{"nbformat": 4, "nbformat_minor": 5,
                    "metadata": {{"puzzlebook": {{"z3": "{z3}"}}}},
                    "cells": [{}, {}, {}]}}"#,
                cell(r#""z3-dependent""#, a),
                cell(r#""other""#, b),
                cell(r#""z3-dependent""#, c),
            ))
            .unwrap()
        };
        let committed = nb("1", "2", "3", "4.8.12");
        // The first z3-dependent cell differs, the untagged one too; the
        // last z3-dependent one is the same.
        let executed = nb("9", "8", "3", "5.4.1");
        let (kept, tagged, differed) = across_engines(&committed, executed);
        assert_eq!(tagged, 2);
        assert_eq!(differed, ["c1"]);
        assert_eq!(kept.z3(), Some("4.8.12"));
        assert_eq!(kept.cells[0].outputs, committed.cells[0].outputs);
        assert_ne!(kept.cells[1].outputs, committed.cells[1].outputs);
        assert_eq!(kept.cells[2].outputs, committed.cells[2].outputs);
    }

    #[test]
    fn file_changes_name_missing_edited_and_left_over_files() {
        let map = |kv: &[(&str, &str)]| -> BTreeMap<String, String> {
            kv.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let rendered = map(&[("a.org", "x"), ("a.html", "y"), ("figures/a/g.svg", "z")]);
        let disk = map(&[
            ("a.org", "x"),
            ("a.html", "old"),
            ("figures/a/gone.svg", "w"),
        ]);
        assert_eq!(
            file_changes(&rendered, &disk),
            [
                ("a.html".to_string(), FileState::Differs),
                ("figures/a/g.svg".to_string(), FileState::Missing),
                ("figures/a/gone.svg".to_string(), FileState::LeftOver),
            ]
        );
        assert!(file_changes(&rendered, &rendered).is_empty());
    }
}
