//! The lines a cell prints on one stream, drained while it runs and kept up
//! to [`CELL_OUTPUT_CAP`] bytes a cell.
//!
//! evcxr waits, before `execute` returns, until its stdout channel is empty,
//! so someone must drain it during the cell (a cell that prints would
//! otherwise hang); its stderr may still be arriving then, so the cell's
//! stderr is taken up to the cell's end mark ([`end_of_output`]). A thread
//! per stream moves lines into a buffer while holding the buffer's lock, so
//! once `execute` has returned, taking the lock yields every stdout line the
//! cell printed and none of the next cell's.
//!
//! Past the cap a cell's lines are dropped as they arrive, so a cell that
//! prints line after line without end fills neither memory nor a page to
//! read: its text ends with [`cut_note`]. (One line is read whole before it
//! is dropped.)

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::engine::cell_process::end_of_output;

/// The most a cell's text on one stream keeps, in bytes: 1 MiB, far more than
/// a notebook's cell prints for a reader, and a bound on what a graded
/// submission can put on its feedback page or in the grader's memory.
pub const CELL_OUTPUT_CAP: usize = 1 << 20;

/// The line that ends a cell's text cut at the cap.
pub fn cut_note() -> String {
    format!(
        "(output cut at {}: the cell printed more)",
        crate::limits::memory_text(CELL_OUTPUT_CAP as u64)
    )
}

/// A line as it arrived: text, or an end mark ([`end_of_output`]).
#[derive(Debug, PartialEq, Eq)]
enum Line {
    Text(String),
    End(u64),
}

/// What the draining thread keeps.
#[derive(Debug, Default)]
struct Kept {
    /// The lines since the last take, end marks among them in order.
    lines: Vec<Line>,
    /// Bytes of text kept since the last take. An end mark does not reset
    /// it: a cell can print one of its own.
    bytes: usize,
    /// Whether text was dropped since the last take.
    cut: bool,
    /// End marks kept since the last take.
    marks: usize,
}

/// The most end marks kept between two takes. A cell ends with one or two;
/// one that prints marks of its own without end is bounded here, and its
/// real mark, if dropped, is waited for no longer than `take_through`'s
/// `wait`.
const MAX_MARKS: usize = 1024;

impl Kept {
    fn push(&mut self, line: String) {
        if let Some(end) = end_of_output(&line) {
            if self.marks < MAX_MARKS {
                self.marks += 1;
                self.lines.push(Line::End(end));
            }
            return;
        }
        if self.cut {
            return;
        }
        if self.bytes + line.len() + 1 > CELL_OUTPUT_CAP {
            self.cut = true;
            self.lines.push(Line::Text(cut_note()));
            return;
        }
        self.bytes += line.len() + 1;
        self.lines.push(Line::Text(line));
    }

    /// The text of every line kept, the marks dropped.
    fn take(&mut self) -> Vec<String> {
        self.take_before(None)
    }

    /// The text of the lines before the first end mark `run`, which is
    /// dropped, and of no other mark; the lines after it stay, for the next
    /// cell. Without `run`, the text of every line.
    fn take_before(&mut self, run: Option<u64>) -> Vec<String> {
        let at = run
            .and_then(|r| self.lines.iter().position(|l| *l == Line::End(r)))
            .unwrap_or(self.lines.len());
        let rest = self.lines.split_off(at);
        let taken = std::mem::replace(&mut self.lines, rest);
        if run.is_some() && !self.lines.is_empty() {
            self.lines.remove(0);
        }
        self.bytes = self
            .lines
            .iter()
            .map(|l| match l {
                Line::Text(t) => t.len() + 1,
                Line::End(_) => 0,
            })
            .sum();
        self.marks = self
            .lines
            .iter()
            .filter(|l| matches!(l, Line::End(_)))
            .count();
        self.cut = false;
        taken
            .into_iter()
            .filter_map(|l| match l {
                Line::Text(t) => Some(t),
                Line::End(_) => None,
            })
            .collect()
    }

    fn has_end(&self, run: u64) -> bool {
        self.lines.contains(&Line::End(run))
    }
}

/// One stream's lines, drained by a thread of its own.
pub struct Collector {
    kept: Arc<Mutex<Kept>>,
}

impl Collector {
    /// Starts draining `rx`.
    pub fn start(rx: crossbeam_channel::Receiver<String>) -> Collector {
        let kept = Arc::new(Mutex::new(Kept::default()));
        let sink = Arc::clone(&kept);
        std::thread::spawn(move || loop {
            {
                let mut kept = sink.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    match rx.try_recv() {
                        Ok(line) => kept.push(line),
                        Err(crossbeam_channel::TryRecvError::Empty) => break,
                        Err(crossbeam_channel::TryRecvError::Disconnected) => return,
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(2));
        });
        Collector { kept }
    }

    /// Every line kept since the last take.
    pub fn take(&self) -> Vec<String> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Every line kept before the end mark `run`, once it has arrived, or
    /// every line kept once `wait` has passed without it. Other marks (an
    /// earlier cell's, or one a cell printed) are dropped; the lines after
    /// `run`'s mark stay for the next take.
    pub fn take_through(&self, run: u64, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        loop {
            {
                let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
                if kept.has_end(run) {
                    return kept.take_before(Some(run));
                }
                if Instant::now() >= deadline {
                    return kept.take();
                }
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cell_process::end_line;

    #[test]
    fn lines_past_the_cap_are_dropped_and_the_cut_said_once() {
        let mut kept = Kept::default();
        let line = "x".repeat(1023);
        for _ in 0..2000 {
            kept.push(line.clone());
            // A mark the cell printed itself does not start the count afresh.
            kept.push(end_line(7));
        }
        let lines = kept.take();
        // 1024 lines of 1023 bytes and a newline fill the cap exactly.
        assert_eq!(lines.len(), 1025);
        assert_eq!(lines.last(), Some(&cut_note()));
        assert_eq!(cut_note(), "(output cut at 1 MiB: the cell printed more)");
        assert!(lines[..1024].iter().all(|l| l == &line));
        // The next cell starts afresh.
        kept.push("next".into());
        assert_eq!(kept.take(), ["next"]);
    }

    #[test]
    fn marks_a_cell_prints_without_end_are_bounded() {
        let mut kept = Kept::default();
        for run in 0..100_000 {
            kept.push(end_line(run));
        }
        assert_eq!(kept.lines.len(), MAX_MARKS);
        assert!(kept.take().is_empty());
        // Taken, the next cell's mark is kept again.
        kept.push(end_line(5));
        assert!(kept.has_end(5));
    }

    #[test]
    fn end_marks_are_not_lines_and_the_lines_after_a_cell_s_mark_wait() {
        let mut kept = Kept::default();
        kept.push("a".into());
        kept.push(end_line(2));
        kept.push("b".into());
        kept.push(end_line(3));
        kept.push("next".into());
        // Mark 2 (an earlier cell's, or printed by this one) is dropped.
        assert_eq!(kept.take_before(Some(3)), ["a", "b"]);
        assert_eq!(kept.take(), ["next"]);
        // A mark printed with a huge number does not end a later cell early.
        let mut kept = Kept::default();
        kept.push(end_line(u64::MAX));
        kept.push("mine".into());
        assert!(!kept.has_end(4));
    }

    #[test]
    fn take_through_waits_for_the_end_mark() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let c = Collector::start(rx);
        let sender = std::thread::spawn(move || {
            tx.send("late".to_string()).unwrap();
            std::thread::sleep(Duration::from_millis(50));
            tx.send("later".to_string()).unwrap();
            tx.send(end_line(1)).unwrap();
        });
        assert_eq!(
            c.take_through(1, Duration::from_secs(30)),
            ["late", "later"]
        );
        sender.join().unwrap();
    }
}
