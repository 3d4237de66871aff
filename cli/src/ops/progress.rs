//! What a person sees while notebooks execute: a progress bar per notebook,
//! each cell's output (`run`) and timing line (`run --timings`), Z3 warnings,
//! and how long a notebook took.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::notebook::ipynb::Output;
use crate::runner::execute::{CellStats, Progress};

/// A notebook's progress bar, on standard error.
pub(super) fn bar(label: &str, total: usize) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template(
            "{prefix} [{elapsed_precise}] {bar:24} cell {pos}/{len} {msg}",
        )
        .expect("a valid template"),
    );
    pb.set_prefix(label.to_string());
    pb
}

/// Shows a notebook's cells on its progress bar `pb`; `echo` prints each
/// cell's output as it comes, and `timings` each cell's time and compiles.
pub(super) fn cell_progress<'a>(
    pb: &'a ProgressBar,
    label: &'a str,
    echo: bool,
    timings: bool,
) -> impl FnMut(Progress<'_>) + 'a {
    move |p| match p {
        Progress::Start { index, name } => {
            pb.set_position(index as u64 - 1);
            pb.set_message(name.to_string());
        }
        Progress::Z3Values { index, hint } => {
            pb.suspend(|| eprintln!("warning: {label}, code cell {index}: {hint}"))
        }
        Progress::Done {
            index,
            outputs,
            stats,
        } => {
            pb.set_position(index as u64);
            if echo {
                pb.suspend(|| crate::out!("{}", echo_text(outputs)));
            }
            if timings {
                pb.suspend(|| eprintln!("{}", timing_line(label, index, stats)));
            }
        }
    }
}

/// How long a notebook's cells took to execute.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Took {
    /// How many code cells ran.
    pub cells: usize,
    /// Seconds, from the engine's start to the last cell's end.
    pub secs: f64,
}

impl Took {
    /// Since `started`, for `cells` cells.
    pub fn since(started: Instant, cells: usize) -> Took {
        Took {
            cells,
            secs: started.elapsed().as_secs_f64(),
        }
    }
}

impl std::fmt::Display for Took {
    /// `executed 17 cells in 220.0s`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "executed {} cell{} in {:.1}s",
            self.cells,
            if self.cells == 1 { "" } else { "s" },
            self.secs
        )
    }
}

/// How `run --timings` reports a cell: `NB, code cell 3: 0.52 s, 1 compile`.
pub fn timing_line(label: &str, index: usize, stats: CellStats) -> String {
    format!(
        "{label}, code cell {index}: {:.2} s, {} compile{}",
        stats.elapsed.as_secs_f64(),
        stats.compiles,
        if stats.compiles == 1 { "" } else { "s" }
    )
}

/// Reads a [`timing_line`] back: the cell's index, seconds and compiles.
pub fn parse_timing_line(line: &str) -> Option<(usize, f64, usize)> {
    let (_, rest) = line.rsplit_once(", code cell ")?;
    let (index, rest) = rest.split_once(": ")?;
    let (secs, rest) = rest.split_once(" s, ")?;
    let compiles = rest.split_whitespace().next()?;
    Some((
        index.parse().ok()?,
        secs.parse().ok()?,
        compiles.parse().ok()?,
    ))
}

/// A cell's outputs as `run` prints them: streams, and the plain text of
/// its displays and value.
fn echo_text(outputs: &[Output]) -> String {
    let mut s = String::new();
    for o in outputs {
        match o {
            Output::Stream { text, .. } => s.push_str(text),
            Output::ExecuteResult { data } | Output::DisplayData { data } => {
                if let Some(t) = data.get("text/plain") {
                    s.push_str(t);
                    if !t.ends_with('\n') {
                        s.push('\n');
                    }
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_lines_read_back() {
        let stats = CellStats {
            elapsed: std::time::Duration::from_millis(1520),
            compiles: 2,
        };
        let line = timing_line("notebooks/a, b.ipynb", 3, stats);
        assert_eq!(
            line,
            "notebooks/a, b.ipynb, code cell 3: 1.52 s, 2 compiles"
        );
        assert_eq!(parse_timing_line(&line), Some((3, 1.52, 2)));
        assert_eq!(parse_timing_line("a.ipynb: executed 3 cells in 2.0s"), None);
    }

    #[test]
    fn a_notebook_took_its_cells_and_seconds() {
        let t = Took {
            cells: 17,
            secs: 219.96,
        };
        assert_eq!(t.to_string(), "executed 17 cells in 220.0s");
        let one = Took {
            cells: 1,
            secs: 0.04,
        };
        assert_eq!(one.to_string(), "executed 1 cell in 0.0s");
    }
}
