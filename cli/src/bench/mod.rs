//! `puzzlebook bench`: the chapters' solvers and the runner, measured side by
//! side in one run and reported as ratios within each group.
//!
//! Each group's first row is its baseline; the `ratio` column is a row's total
//! over the baseline's. Nothing here asserts a time: the machines are shared.
//! The groups that time the chapters' solvers in this process are in
//! [`solvers`]; those that time the `puzzlebook` command on a copy of the
//! checkout (the runner) are in [`runner`].

mod python;
mod runner;
mod solvers;

pub use runner::{copy_project, FRAME_CELL, TIMED_CELLS};
pub use solvers::hard_level;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use thiserror::Error;

use puzzlebook::table::Table;

use crate::notebook::io::IoError;

/// A benchmark that could not run.
#[derive(Debug, Error)]
pub enum BenchError {
    /// A solver failed.
    #[error("{what}: {message}")]
    Solver {
        /// The benchmark.
        what: String,
        /// The solver's message.
        message: String,
    },
    /// A measured result was wrong, so the time would mean nothing.
    #[error("{what} gave {got}, expected {expected}")]
    Wrong {
        /// The benchmark.
        what: String,
        /// What it gave.
        got: String,
        /// The known answer (the write-ups' results, which the tests also check).
        expected: String,
    },
    /// The checkout could not be copied for the runner's groups.
    #[error("copying {root} to a temporary folder: {source}")]
    Copy {
        /// The checkout.
        root: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file the runner's groups read or write.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A notebook of the checkout could not be read.
    #[error(transparent)]
    Notebook(#[from] IoError),
    /// The `puzzlebook` command could not start.
    #[error("cannot run {binary}: {source}")]
    Spawn {
        /// The command.
        binary: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The `puzzlebook` command failed.
    #[error("`puzzlebook {args}` failed:\n{stderr}")]
    Command {
        /// Its arguments, as typed.
        args: String,
        /// What it said.
        stderr: String,
    },
    /// The write-up's Python could not run.
    #[error(
        "the write-up's Python solve_24 ({step}): {detail}\n\
         (its environment comes from cli/tests/kernel/setup-venv z3, which needs python3 with venv and PyPI)"
    )]
    Python {
        /// What it was doing.
        step: String,
        /// What went wrong.
        detail: String,
    },
    /// `run --timings` did not time the cells it ran.
    #[error("expected {expected} timed cells from `run --timings`, read {got}:\n{stderr}")]
    Timings {
        /// How many cells were timed.
        expected: usize,
        /// How many timing lines were read.
        got: usize,
        /// What it said.
        stderr: String,
    },
}

/// The benchmark groups, in the order `bench` runs them; their `--only` names
/// are `24`, `24-python`, `srat`, `calculator`, `smt2`, `sum-product`, `cells`,
/// `report` and `grade`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Group {
    /// The 24 game over all 1820 multisets of 1..13.
    #[value(name = "24")]
    TwentyFour,
    /// The 24 game: the write-up's Python beside the Rust solvers.
    #[value(name = "24-python")]
    TwentyFourPython,
    /// The Self-Referential Aptitude Test.
    Srat,
    /// Calculator: The Game.
    Calculator,
    /// Level 38's SMT-LIB script with Z3's default solver and with `QF_NIA`.
    Smt2,
    /// The Impossible Puzzle's dialogue.
    SumProduct,
    /// `report` fresh against `report --force`.
    Report,
    /// A notebook cell that calls the crate, as evcxr runs it.
    Cells,
    /// `grade` on one submission, with and without its sandbox, and on a
    /// class (30 unless `--class` says).
    Grade,
}

impl Group {
    /// Every group.
    pub const ALL: [Group; 9] = [
        Group::TwentyFour,
        Group::TwentyFourPython,
        Group::Srat,
        Group::Calculator,
        Group::Smt2,
        Group::SumProduct,
        Group::Cells,
        Group::Report,
        Group::Grade,
    ];
}

/// One measured case.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// The group it is compared within; the group's first row is the baseline.
    pub group: String,
    /// What ran.
    pub case: String,
    /// What it computed, checked against the known answer.
    pub result: String,
    /// How many items (multisets, runs) the total covers.
    pub items: usize,
    /// Wall time for all items.
    pub total: Duration,
    /// CPU time for all items, this process's and its finished children's.
    pub cpu: Duration,
    /// The median wall time of one item.
    pub median: Duration,
}

/// CPU time used, user plus system, by this process and by the children it
/// has waited for (so a `report` run and the compilers it starts count).
pub fn cpu_time() -> Duration {
    fn usage(who: libc::c_int) -> Duration {
        // SAFETY: getrusage fills the struct it is given and reads nothing else.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(who, &mut u) } != 0 {
            return Duration::ZERO;
        }
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        tv(u.ru_utime) + tv(u.ru_stime)
    }
    usage(libc::RUSAGE_SELF) + usage(libc::RUSAGE_CHILDREN)
}

pub(crate) fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    match times.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2,
    }
}

/// Runs `f` on each item, timing each; returns the results and the row's times.
pub(crate) fn measure<I, T>(
    items: impl IntoIterator<Item = I>,
    mut f: impl FnMut(I) -> Result<T, BenchError>,
) -> Result<(Vec<T>, Duration, Duration, Duration), BenchError> {
    let (cpu0, wall0) = (cpu_time(), Instant::now());
    let mut out = Vec::new();
    let mut times = Vec::new();
    for item in items {
        let t = Instant::now();
        out.push(f(item)?);
        times.push(t.elapsed());
    }
    let (total, cpu) = (wall0.elapsed(), cpu_time().saturating_sub(cpu0));
    Ok((out, total, cpu, median(times)))
}

/// Where the measurements come from.
#[derive(Debug, Clone)]
pub struct Options {
    /// The groups to run.
    pub groups: Vec<Group>,
    /// Runs per case for the small cases (SRAT, calculator, dialogue).
    pub repeat: usize,
    /// Every how many multisets the 24 group takes (1: all 1820).
    pub stride: usize,
    /// How many submissions the grade group's class has.
    pub class: usize,
    /// The `puzzlebook` binary, for the report group.
    pub binary: PathBuf,
    /// The puzzlebook checkout, for the report group.
    pub root: PathBuf,
}

/// Runs the chosen groups in order, calling `progress` before each.
pub fn run(
    options: &Options,
    mut progress: impl FnMut(Group),
) -> Result<Vec<Measurement>, BenchError> {
    let mut rows = Vec::new();
    for &g in &options.groups {
        progress(g);
        let repeat = options.repeat.max(1);
        rows.extend(match g {
            Group::TwentyFour => solvers::twenty_four(options.stride)?,
            Group::TwentyFourPython => python::twenty_four(&options.root, options.stride)?,
            Group::Srat => solvers::srat(repeat)?,
            Group::Calculator => solvers::calculator(repeat)?,
            Group::Smt2 => solvers::smt2_script()?,
            Group::SumProduct => solvers::sum_product(repeat, &[9, 100, 1000])?,
            Group::Cells => runner::cells(&options.binary, &options.root, repeat)?,
            Group::Report => runner::report(&options.binary, &options.root, repeat)?,
            Group::Grade => runner::grade(&options.binary, &options.root, options.class)?,
        });
    }
    Ok(rows)
}

/// A duration for people: `85 µs`, `12.3 ms`, `4.56 s`.
pub fn human(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

/// The rows as one table. A row's ratio is its time per item (total over
/// items) over that of its group's first row, so ten fresh `report` runs and
/// one forced run compare per run.
pub fn table(rows: &[Measurement]) -> Table {
    let mut t = Table::new([
        "group", "case", "result", "items", "total", "CPU", "median", "ratio",
    ]);
    let per_item = |r: &Measurement| r.total.as_secs_f64() / r.items.max(1) as f64;
    let mut baseline: Option<(&str, f64)> = None;
    for r in rows {
        let base = match baseline {
            Some((g, b)) if g == r.group => b,
            _ => {
                baseline = Some((&r.group, per_item(r)));
                per_item(r)
            }
        };
        let ratio = per_item(r) / base.max(1e-12);
        t.push_row([
            r.group.clone(),
            r.case.clone(),
            r.result.clone(),
            r.items.to_string(),
            human(r.total),
            human(r.cpu),
            human(r.median),
            format!("{ratio:.2}×"),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_are_within_groups() {
        let row = |group: &str, ms: u64| Measurement {
            group: group.into(),
            case: "c".into(),
            result: "r".into(),
            items: 1,
            total: Duration::from_millis(ms),
            cpu: Duration::ZERO,
            median: Duration::from_millis(ms),
        };
        let t = table(&[row("a", 10), row("a", 25), row("b", 4), row("b", 2)]);
        let ratios: Vec<String> = t.rows().iter().map(|r| r[7].to_string()).collect();
        assert_eq!(ratios, ["1.00×", "2.50×", "1.00×", "0.50×"]);
        // Per item: ten runs in 100 ms against one run of 50 ms.
        let ten = Measurement {
            items: 10,
            ..row("c", 100)
        };
        let t = table(&[ten, row("c", 50)]);
        assert_eq!(t.rows()[1][7].to_string(), "5.00×");
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(human(Duration::from_micros(85)), "85 µs");
        assert_eq!(human(Duration::from_micros(12_340)), "12.3 ms");
        assert_eq!(human(Duration::from_millis(4_560)), "4.56 s");
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        let ms = Duration::from_millis;
        assert_eq!(median(vec![ms(3), ms(1), ms(2)]), ms(2));
        assert_eq!(
            median(vec![ms(4), ms(1), ms(2), ms(3)]),
            ms(2) + ms(500) / 1000
        );
        assert_eq!(median(vec![]), Duration::ZERO);
    }

    #[test]
    fn cpu_time_moves_forward() {
        let a = cpu_time();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(cpu_time() > a);
    }
}
