//! The pure stages between loading and writing: expected hashes, staleness,
//! applying outputs, and comparing with what is committed.

use super::hash;
use super::notebook::{Notebook, Output};
use super::report;

/// Why a notebook or its report is not fresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Staleness {
    /// Code cells whose stored hash does not match the sources, from the first one
    /// on: `(position among all cells, name)`.
    Cells(Vec<(usize, String)>),
    /// The hashes match, but the report is not what the notebook renders to
    /// (its narrative changed, or the report was edited or deleted).
    Report,
}

/// The hashes a notebook's code cells should carry, given the crate fingerprint.
pub fn expected_hashes(nb: &Notebook, fingerprint: &str) -> Vec<String> {
    hash::chain(fingerprint, nb.code_cells().map(|(_, c)| c.source.as_str()))
}

/// What is stale in `nb` and its `report` (`None` when the report file is missing).
/// An empty list means fresh: `report` has nothing to do.
pub fn staleness(
    nb: &Notebook,
    report_text: Option<&str>,
    fingerprint: &str,
    source: &str,
) -> Vec<Staleness> {
    let expected = expected_hashes(nb, fingerprint);
    let stale: Vec<(usize, String)> = nb
        .code_cells()
        .zip(&expected)
        .enumerate()
        .filter(|(_, ((_, c), want))| c.hash.as_deref() != Some(want.as_str()))
        .map(|(i, ((pos, c), _))| (pos, report::cell_name(c.name.as_deref(), i + 1)))
        .collect();
    let mut out = Vec::new();
    if !stale.is_empty() {
        out.push(Staleness::Cells(stale));
    }
    if report_text != Some(report::render(nb, source).as_str()) {
        out.push(Staleness::Report);
    }
    out
}

/// The notebook with fresh outputs and their hashes.
pub fn apply_outputs(nb: &Notebook, outputs: Vec<Vec<Output>>, hashes: &[String]) -> Notebook {
    let mut nb = nb.clone();
    let code: Vec<usize> = nb.code_cells().map(|(pos, _)| pos - 1).collect();
    for ((i, outs), h) in code.into_iter().zip(outputs).zip(hashes) {
        nb.cells[i].outputs = outs;
        nb.cells[i].hash = Some(h.clone());
    }
    nb
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
