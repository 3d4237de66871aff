//! How long each notebook took when it last executed, kept in the build
//! folder, so that `report -j` starts the longest notebooks first.
//!
//! With two jobs and notebooks started in their own order, the longest one
//! (notebook 04) started last and ran alone at the end. Starting the longest
//! first is the classic longest-processing-time rule, as CTest does with the
//! test times it keeps. The times are only a hint: a missing, old or
//! unreadable file changes the order, never the results.

use std::collections::BTreeMap;

/// The file in the (first) evcxr build folder.
pub const FILE: &str = "notebook-seconds.tsv";

/// Seconds each notebook last took, by its label.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Durations(BTreeMap<String, f64>);

impl Durations {
    /// Reads `label<TAB>seconds` lines, skipping any line that is not one.
    pub fn parse(text: &str) -> Durations {
        Durations(
            text.lines()
                .filter_map(|l| {
                    let (label, secs) = l.rsplit_once('\t')?;
                    let secs: f64 = secs.trim().parse().ok()?;
                    (secs.is_finite() && secs >= 0.0).then(|| (label.to_string(), secs))
                })
                .collect(),
        )
    }

    /// The file's text: one `label<TAB>seconds` line a notebook, sorted by label.
    pub fn to_tsv(&self) -> String {
        self.0
            .iter()
            .map(|(label, secs)| format!("{label}\t{secs:.1}\n"))
            .collect()
    }

    /// Records that `label` took `secs` seconds.
    pub fn set(&mut self, label: &str, secs: f64) {
        self.0.insert(label.to_string(), secs);
    }

    /// The order to start `todo` (indexes, with labels) in: notebooks never
    /// timed first, in their own order, as they may be long; then the timed
    /// ones, longest first.
    ///
    /// ```
    /// use puzzlebook_cli::runner::durations::Durations;
    /// let d = Durations::parse("a.ipynb\t17.0\nb.ipynb\t42.0\n");
    /// let order = d.start_order(&[(0, "a.ipynb"), (1, "b.ipynb"), (2, "new.ipynb")]);
    /// assert_eq!(order, [2, 1, 0]);
    /// ```
    pub fn start_order(&self, todo: &[(usize, &str)]) -> Vec<usize> {
        let mut order: Vec<(usize, Option<f64>)> = todo
            .iter()
            .map(|&(i, label)| (i, self.0.get(label).copied()))
            .collect();
        // Stable: equal times keep the notebooks' order.
        order.sort_by(|a, b| match (a.1, b.1) {
            (None, None) => std::cmp::Ordering::Equal,
            (None, Some(_)) => std::cmp::Ordering::Less,
            (Some(_), None) => std::cmp::Ordering::Greater,
            (Some(x), Some(y)) => y.total_cmp(&x),
        });
        order.into_iter().map(|(i, _)| i).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_back_and_bad_lines_are_skipped() {
        let mut d = Durations::parse("notebooks/a.ipynb\t17.4\nnot a line\nb\tx\nc\t-1\n");
        assert_eq!(d.to_tsv(), "notebooks/a.ipynb\t17.4\n");
        d.set("notebooks/04.ipynb", 41.83);
        assert_eq!(
            Durations::parse(&d.to_tsv()).to_tsv(),
            "notebooks/04.ipynb\t41.8\nnotebooks/a.ipynb\t17.4\n"
        );
    }

    #[test]
    fn the_longest_starts_first_and_ties_keep_their_order() {
        let d = Durations::parse("01\t17\n02\t14\n03\t26\n04\t42\n");
        let todo = [(0, "01"), (1, "02"), (2, "03"), (3, "04")];
        assert_eq!(d.start_order(&todo), [3, 2, 0, 1]);
        let d = Durations::parse("x\t5\ny\t5\n");
        assert_eq!(d.start_order(&[(0, "x"), (1, "y")]), [0, 1]);
        assert_eq!(Durations::default().start_order(&todo), [0, 1, 2, 3]);
    }
}
