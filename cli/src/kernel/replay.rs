//! Crash recovery: the cells a kernel session ran successfully, run again in
//! a new process after a cell kills the one evcxr runs cells in (SIGSEGV,
//! abort, out of memory), so the session's variables come back instead of
//! being lost. The forked server (`jupyter/core.rs`) calls this from marked
//! hooks.
//!
//! evcxr starts a new process by itself after a crash, with the session's
//! items (`fn`, `struct`, `use`) kept and its variables gone. Running the
//! earlier cells again, in order, brings the variables back; the cell that
//! crashed is not run again. Their output is not shown a second time.

use std::time::{Duration, Instant};

/// The variable that turns crash recovery off in a kernel: `off`.
pub const REPLAY_ENV: &str = "PUZZLEBOOK_REPLAY";

/// The cells of a session that ran successfully, in order.
#[derive(Debug, Clone, Default)]
pub struct Session {
    /// Each cell's execution count and code.
    cells: Vec<(usize, String)>,
}

/// What a replay did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// The execution counts of the cells run again.
    pub counts: Vec<usize>,
    /// How long it took.
    pub elapsed: Duration,
    /// The first cell that failed on the way (its count and message): the
    /// cells after it were not run.
    pub failed: Option<(usize, String)>,
}

/// Whether the kernel replays after a crash: unless `PUZZLEBOOK_REPLAY=off`.
pub fn enabled() -> bool {
    !std::env::var(REPLAY_ENV).is_ok_and(|v| v.trim().eq_ignore_ascii_case("off"))
}

/// Whether evcxr's error means the process that runs cells ended.
pub fn process_ended(error: &evcxr::Error) -> bool {
    matches!(error, evcxr::Error::SubprocessTerminated(_))
}

impl Session {
    /// Notes a cell that ran successfully as execution count `count`.
    pub fn succeeded(&mut self, count: usize, code: &str) {
        self.cells.push((count, code.to_string()));
    }

    /// Whether there is nothing to replay.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Runs the session's cells again in `ctx` (whose process evcxr has just
    /// started anew), in order, stopping at the first that fails. The cells'
    /// output goes to evcxr's channels as usual: the caller keeps it from the
    /// notebook.
    pub fn replay(&self, ctx: &mut evcxr::CommandContext) -> Replay {
        let started = Instant::now();
        let mut counts = Vec::new();
        let mut failed = None;
        for (count, code) in &self.cells {
            let count = *count;
            match ctx.execute(code) {
                Ok(mut outputs) => {
                    match crate::engine::cell_process::CellMark::take(&mut outputs) {
                        None => counts.push(count),
                        Some(mark) => {
                            failed = Some((count, mark.to_string()));
                            break;
                        }
                    }
                }
                Err(e) => {
                    failed = Some((count, crate::ansi::strip_ansi(&e.to_string())));
                    break;
                }
            }
        }
        Replay {
            counts,
            elapsed: started.elapsed(),
            failed,
        }
    }
}

impl Replay {
    /// What the kernel tells the notebook after a crash, on the crashed
    /// cell's standard error.
    pub fn note(&self) -> String {
        let cells = match self.counts.as_slice() {
            [] => "no earlier cell".to_string(),
            [one] => format!("cell [{one}]"),
            many => format!(
                "cells {}",
                many.iter()
                    .map(|c| format!("[{c}]"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let mut note = format!(
            "puzzlebook: the process that runs cells ended, so the kernel started a new one and ran {cells} again in {:.1} s (their output is not shown again); their variables are back, this cell's are not. Set {REPLAY_ENV}=off in the kernel's environment to turn this off.\n",
            self.elapsed.as_secs_f64()
        );
        if let Some((count, why)) = &self.failed {
            note.push_str(&format!(
                "puzzlebook: cell [{count}] failed when run again, so it and the cells after it were not: {why}\n"
            ));
        }
        note
    }

    /// What the kernel says when crash recovery is off.
    pub fn off_note() -> String {
        format!(
            "puzzlebook: the process that runs cells ended, and with it every variable; crash recovery is off ({REPLAY_ENV}=off), so run the cells you need again.\n"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_names_the_cells_run_again_and_the_way_to_turn_it_off() {
        let r = Replay {
            counts: vec![1, 2, 3],
            elapsed: Duration::from_millis(2100),
            failed: None,
        };
        let note = r.note();
        assert!(
            note.contains("ran cells [1], [2], [3] again in 2.1 s"),
            "{note}"
        );
        assert!(note.contains("PUZZLEBOOK_REPLAY=off"), "{note}");
        let r = Replay {
            counts: vec![1],
            elapsed: Duration::from_millis(300),
            failed: Some((2, "boom".into())),
        };
        let note = r.note();
        assert!(note.contains("ran cell [1] again"), "{note}");
        assert!(note.contains("cell [2] failed when run again"), "{note}");
    }
}
