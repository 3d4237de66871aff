//! `puzzlebook bench`: the chapters' solvers and the runner, measured side by
//! side in one run and reported as ratios within each group.
//!
//! Each group's first row is its baseline; the `ratio` column is a row's total
//! over the baseline's. Nothing here asserts a time: the machines are shared.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use thiserror::Error;

use puzzlebook::calculator::{self, Button, Level};
use puzzlebook::sum_product::Dialogue;
use puzzlebook::table::Table;
use puzzlebook::twenty_four::{self, exhaustive::multisets, Method};

use crate::pipeline::hash::library_files;
use crate::pipeline::io::{load_notebook, notebooks_in};
use crate::pipeline::notebook::{CellKind, Notebook, NotebookCell};

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
    /// Copying the project or running the command failed.
    #[error("{0}")]
    Report(String),
}

fn solver(what: &str) -> impl FnOnce(&dyn std::fmt::Display) -> BenchError + '_ {
    move |e| BenchError::Solver {
        what: what.to_string(),
        message: e.to_string(),
    }
}

fn expect(what: &str, got: impl ToString, expected: impl ToString) -> Result<(), BenchError> {
    let (got, expected) = (got.to_string(), expected.to_string());
    if got == expected {
        Ok(())
    } else {
        Err(BenchError::Wrong {
            what: what.to_string(),
            got,
            expected,
        })
    }
}

/// The benchmark groups, in the order `bench` runs them; their `--only` names
/// are `24`, `srat`, `calculator`, `sum-product` and `report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Group {
    /// The 24 game over all 1820 multisets of 1..13.
    #[value(name = "24")]
    TwentyFour,
    /// The Self-Referential Aptitude Test.
    Srat,
    /// Calculator: The Game.
    Calculator,
    /// The Impossible Puzzle's dialogue.
    SumProduct,
    /// `report` fresh against `report --force`.
    Report,
    /// A notebook cell that calls the crate, as evcxr runs it.
    Cells,
}

impl Group {
    /// Every group.
    pub const ALL: [Group; 6] = [
        Group::TwentyFour,
        Group::Srat,
        Group::Calculator,
        Group::SumProduct,
        Group::Cells,
        Group::Report,
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

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    match times.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2,
    }
}

/// Runs `f` on each item, timing each; returns the results and the row's times.
fn measure<I, T>(
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

/// The 24 group: each 24 solver over the multisets of four numbers from 1 to 13
/// (all 1820 with `stride` 1, every `stride`-th otherwise), the first solution
/// of each, as the write-up's loop does. Each solver's count of solvable
/// multisets is checked against exact search: every bracketing for the
/// exhaustive and complete solvers, the left-to-right shape for the other two.
pub fn twenty_four(stride: usize) -> Result<Vec<Measurement>, BenchError> {
    use twenty_four::exhaustive::{left_to_right_solutions, solvable};
    let all: Vec<Vec<i64>> = multisets(4, 1, 13)
        .into_iter()
        .step_by(stride.max(1))
        .collect();
    let any_shape = all.iter().filter(|m| solvable(m, 24)).count();
    let left_to_right = all
        .iter()
        .filter(|m| !left_to_right_solutions(m, 24).is_empty())
        .count();
    let methods = [
        (
            Method::Exhaustive,
            "exhaustive exact search, every bracketing",
            any_shape,
        ),
        (
            Method::Permutation,
            "Z3 permutation method (solve_24)",
            left_to_right,
        ),
        (
            Method::Function,
            "Z3 function method (solve_24_by_function)",
            left_to_right,
        ),
        (
            Method::Complete,
            "Z3 complete encoding, every bracketing",
            any_shape,
        ),
    ];
    let group = format!("24 game, {} multisets", all.len());
    let mut rows = Vec::new();
    for (method, case, known) in methods {
        let (found, total, cpu, med) = measure(&all, |ms| {
            twenty_four::solve(ms, 24, method, false).map_err(|e| solver(case)(&e))
        })?;
        let solved = found.iter().filter(|f| !f.is_empty()).count();
        expect(case, solved, known)?;
        rows.push(Measurement {
            group: group.clone(),
            case: case.into(),
            result: format!("{solved} solvable"),
            items: all.len(),
            total,
            cpu,
            median: med,
        });
    }
    Ok(rows)
}

/// The SRAT group: solving the SRAT, and solving plus proving the answer unique.
pub fn srat(repeat: usize) -> Result<Vec<Measurement>, BenchError> {
    let what = "SRAT solve";
    let (answers, total, cpu, med) = measure(0..repeat, |_| {
        puzzlebook::srat::solve().map_err(|e| solver(what)(&e))
    })?;
    let letters = answers.last().map(|a| a.letters()).unwrap_or_default();
    expect(what, &letters, "DADBEDDEDABADBADBABE")?;
    let mut rows = vec![Measurement {
        group: "Self-Referential Aptitude Test".into(),
        case: "solve".into(),
        result: letters.clone(),
        items: repeat,
        total,
        cpu,
        median: med,
    }];
    let what = "SRAT solve + uniqueness";
    let (counts, total, cpu, med) = measure(0..repeat, |_| {
        let a = puzzlebook::srat::solve().map_err(|e| solver(what)(&e))?;
        let n = puzzlebook::srat::count_solutions(2).map_err(|e| solver(what)(&e))?;
        Ok((a, n))
    })?;
    expect(what, counts.last().map_or(0, |c| c.1), 1)?;
    rows.push(Measurement {
        group: "Self-Referential Aptitude Test".into(),
        case: "solve, then prove it unique (no second model)".into(),
        result: "unique".into(),
        items: repeat,
        total,
        cpu,
        median: med,
    });
    Ok(rows)
}

/// The harder level: 7 moves, 5 buttons, all of them in the Z3 model.
pub fn hard_level() -> Level {
    let buttons = Button::parse_list("+3,x4,-2,5,<<").expect("valid labels");
    // The shortest way takes all 7: 5, x4, x4, 5, -2, x4, -2.
    Level::new(0, 3210, 7, buttons)
}

/// The calculator group: level 38 and [`hard_level`], each by exhaustive search and by Z3,
/// every solution of the fewest moves.
pub fn calculator(repeat: usize) -> Result<Vec<Measurement>, BenchError> {
    let mut rows = Vec::new();
    for (group, level) in [
        (
            "Calculator level 38 (4 moves, 3 buttons)",
            Level::level_38(-120),
        ),
        ("Calculator, 7 moves, 5 buttons", hard_level()),
    ] {
        let what = format!("{group}, search");
        let (s, total, cpu, med) =
            measure(0..repeat, |_| Ok(calculator::search::search(&level, true)))?;
        let by_search: Vec<String> = s.last().unwrap().iter().map(|s| s.labels()).collect();
        if by_search.is_empty() {
            return Err(BenchError::Wrong {
                what,
                got: "no solution".into(),
                expected: "a solution".into(),
            });
        }
        rows.push(Measurement {
            group: group.into(),
            case: "exhaustive search".into(),
            result: format!("{} solution(s)", by_search.len()),
            items: repeat,
            total,
            cpu,
            median: med,
        });
        let what = format!("{group}, Z3");
        let (z, total, cpu, med) = measure(0..repeat, |_| {
            calculator::model::solve_z3(&level, true).map_err(|e| solver(&what)(&e))
        })?;
        let by_z3: Vec<String> = z.last().unwrap().iter().map(|(_, s)| s.labels()).collect();
        expect(&what, by_z3.join("; "), by_search.join("; "))?;
        rows.push(Measurement {
            group: group.into(),
            case: "Z3 step model, every model".into(),
            result: format!("{} solution(s)", by_z3.len()),
            items: repeat,
            total,
            cpu,
            median: med,
        });
    }
    Ok(rows)
}

/// The prunes the sum-product group times: the plain-Rust one, and the polars
/// one when the command is built with its `polars` feature (off by default,
/// since nothing else in the command needs polars).
type Play = fn(i64) -> Result<Dialogue, puzzlebook::sum_product::SumProductError>;
const PRUNES: &[(&str, Play)] = &[
    ("plain-Rust prune", Dialogue::play_plain),
    #[cfg(feature = "polars")]
    ("polars prune", Dialogue::play),
];

/// The sum-product group: the whole dialogue with each of [`PRUNES`], at each
/// max; a group per prune shows growth, and one per max the prunes' ratio.
pub fn sum_product(repeat: usize, maxes: &[i64]) -> Result<Vec<Measurement>, BenchError> {
    let mut by_prune: Vec<Vec<Measurement>> = vec![Vec::new(); PRUNES.len()];
    for &max in maxes {
        let pairs = (max * (max + 1) / 2) as usize;
        for (rows, (case, f)) in by_prune.iter_mut().zip(PRUNES) {
            let what = format!("dialogue, {case}, max {max}");
            let (d, total, cpu, med) =
                measure(0..repeat, |_| f(max).map_err(|e| solver(&what)(&e)))?;
            let d = d.last().expect("repeat > 0");
            rows.push(Measurement {
                group: String::new(),
                case: format!("{case}, max {max} ({pairs} pairs)"),
                // "Pete knows at his fifth turn" / "No product is unique …".
                result: d.conclusion().split(':').next().unwrap_or("").to_string(),
                items: repeat,
                total,
                cpu,
                median: med,
            });
        }
    }
    let (plain, others) = by_prune.split_first().expect("the plain prune");
    for other in others {
        for (a, b) in plain.iter().zip(other) {
            expect("the two prunes", &b.result, &a.result)?;
        }
    }
    let mut rows = Vec::new();
    for ((name, _), group) in PRUNES.iter().zip(&by_prune) {
        for r in group.iter() {
            rows.push(Measurement {
                group: format!("Impossible Puzzle dialogue, {name}, by max"),
                ..r.clone()
            });
        }
    }
    if PRUNES.len() > 1 {
        for (i, p) in plain.iter().enumerate() {
            let group = format!(
                "Impossible Puzzle dialogue, {}",
                p.case.split(", ").nth(1).unwrap_or("")
            );
            for prune in &by_prune {
                rows.push(Measurement {
                    group: group.clone(),
                    ..prune[i].clone()
                });
            }
        }
    }
    Ok(rows)
}

/// Copies what `report` reads from `root` into `dest`: the library's files
/// ([`library_files`]), Cargo.lock, notebooks/ and reports/.
pub fn copy_project(root: &Path, dest: &Path) -> std::io::Result<()> {
    let mut files = library_files(root)?;
    files.push(PathBuf::from("Cargo.lock"));
    for d in ["notebooks", "reports"] {
        for e in std::fs::read_dir(root.join(d))? {
            let e = e?;
            if e.file_type()?.is_file() {
                files.push(Path::new(d).join(e.file_name()));
            }
        }
    }
    for f in files {
        let target = dest.join(&f);
        std::fs::create_dir_all(target.parent().unwrap_or(dest))?;
        std::fs::copy(root.join(&f), target)?;
    }
    Ok(())
}

/// Builds in the evcxr build folder what each notebook of the checkout `root`
/// loads: runs, with `binary run`, a throwaway notebook of each one's first
/// code cell (its `:dep`), then removes it.
fn prebuild_dependencies(binary: &Path, root: &Path) -> Result<(), BenchError> {
    let fail = BenchError::Report;
    let dir = root.join("notebooks");
    let mut deps = std::collections::BTreeSet::new();
    for path in notebooks_in(&dir).map_err(|e| fail(e.to_string()))? {
        let nb = load_notebook(&path).map_err(|e| fail(e.to_string()))?;
        let first = nb.code_cells().next().map(|(_, cell)| cell.source.clone());
        deps.extend(first);
    }
    for (k, dep) in deps.iter().enumerate() {
        let path = dir.join(format!("prebuild-{k}.ipynb"));
        std::fs::write(&path, notebook_of(std::slice::from_ref(dep)))
            .map_err(|e| fail(format!("{}: {e}", path.display())))?;
        let out = Command::new(binary)
            .arg("run")
            .arg("--root")
            .arg(root)
            .arg(&path)
            .output();
        let _ = std::fs::remove_file(&path);
        let out = out.map_err(|e| fail(format!("{}: {e}", binary.display())))?;
        if !out.status.success() {
            return Err(fail(format!(
                "building the dependencies of `{dep}` failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )));
        }
    }
    Ok(())
}

/// The report group: `report` when every notebook is fresh (`repeat` runs, after one
/// uncounted run), against one `report --force` with one notebook at a time
/// and one with two at once (`-j 1`, `-j 2`), all run by `binary` on a copy
/// of `root`.
pub fn report(binary: &Path, root: &Path, repeat: usize) -> Result<Vec<Measurement>, BenchError> {
    let copy = tempfile::tempdir().map_err(|e| BenchError::Report(e.to_string()))?;
    copy_project(root, copy.path()).map_err(|e| {
        BenchError::Report(format!(
            "copying {} to a temporary folder: {e}",
            root.display()
        ))
    })?;
    let run = |force: Option<usize>| -> Result<(), BenchError> {
        let mut c = Command::new(binary);
        c.arg("report")
            .arg("--update")
            .arg("--root")
            .arg(copy.path());
        if let Some(jobs) = force {
            c.arg("--force").arg("--jobs").arg(jobs.to_string());
        }
        let out = c
            .output()
            .map_err(|e| BenchError::Report(format!("{}: {e}", binary.display())))?;
        if !out.status.success() {
            return Err(BenchError::Report(format!(
                "`puzzlebook report{}` failed:\n{}",
                force.map_or(String::new(), |j| format!(" --force -j {j}")),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(())
    };
    let group = "report, four notebooks";
    // The copy is a checkout of its own to cargo, so its crate (and the shared
    // polars library) are built for it before anything is timed.
    prebuild_dependencies(binary, copy.path())?;
    // An uncounted first run brings the copy up to date, should the checkout
    // have changed since its notebooks were last reported.
    run(None)?;
    let (_, total, cpu, med) = measure(0..repeat, |_| run(None))?;
    let mut rows = vec![Measurement {
        group: group.into(),
        case: "report, everything fresh (no evcxr start)".into(),
        result: "unchanged".into(),
        items: repeat,
        total,
        cpu,
        median: med,
    }];
    for jobs in [1, 2] {
        let (_, total, cpu, med) = measure(0..1, |_| run(Some(jobs)))?;
        rows.push(Measurement {
            group: group.into(),
            case: format!("report --force -j {jobs}, warm evcxr build"),
            result: "re-executed".into(),
            items: 1,
            total,
            cpu,
            median: med,
        });
    }
    Ok(rows)
}

/// One way of loading the crate in the cells group: a name and its `:dep` cell.
const CELL_SETUPS: [(&str, &str); 3] = [
    (
        "static polars (all notebooks before)",
        ":dep puzzlebook = { path = \"..\", features = [\"polars\"] }\n\
         use puzzlebook::prelude::*;\nuse puzzlebook::polars::prelude::*;",
    ),
    (
        "polars as a shared library (notebook 04 now)",
        ":dep puzzlebook = { path = \"..\", features = [\"polars-dylib\"] }\n\
         use puzzlebook::prelude::*;\nuse puzzlebook::polars::prelude::*;",
    ),
    (
        "without polars (notebooks 01-03 now)",
        ":dep puzzlebook = { path = \"..\" }\nuse puzzlebook::prelude::*;",
    ),
];

/// The cells the group times: one that ends in the answer, an `Option<String>`
/// that evcxr shows with `Debug` after a second compile, and the same call as
/// a statement, which compiles once, as most notebook cells do.
pub const TIMED_CELLS: [(&str, &str); 2] = [
    ("value", "twenty_four::solve_24(&[1, 5, 5, 5])?"),
    ("statement", "twenty_four::solve_24(&[1, 5, 5, 5])?;"),
];

/// A cell like notebook 04's: a polars query written in the cell, on a frame
/// the crate builds. Timed in the setups that load polars.
pub const FRAME_CELL: (&str, &str) = (
    "polars query",
    "sum_product::candidates(9)?.lazy().filter(col(\"m\").gt(lit(10))).collect()?.height();",
);

/// A notebook of code cells with these sources, and no outputs, as nbformat JSON.
fn notebook_of(sources: &[String]) -> String {
    let mut nb =
        Notebook::parse(r#"{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}"#)
            .expect("an empty notebook parses");
    nb.cells = sources
        .iter()
        .map(|s| NotebookCell::new(CellKind::Code, s))
        .collect();
    nb.to_json()
}

/// The cells group: for each setup and each timed cell, a throwaway notebook
/// that loads the crate, runs the cell once to warm up, then `cells` times
/// more; each run by `binary run --timings` on a copy of `root`, in the usual
/// evcxr build folder. A row's median is that of the timed cells, as
/// `--timings` reports them.
pub fn cells(binary: &Path, root: &Path, cells: usize) -> Result<Vec<Measurement>, BenchError> {
    let fail = BenchError::Report;
    let copy = tempfile::tempdir().map_err(|e| fail(e.to_string()))?;
    copy_project(root, copy.path()).map_err(|e| {
        fail(format!(
            "copying {} to a temporary folder: {e}",
            root.display()
        ))
    })?;
    let group = format!("a cell that calls the crate (median of {cells})");
    let mut rows = Vec::new();
    for (kind, cell) in TIMED_CELLS.into_iter().chain([FRAME_CELL]) {
        for (i, (setup, dep)) in CELL_SETUPS.iter().enumerate() {
            if (kind, cell) == FRAME_CELL && !dep.contains("polars") {
                continue;
            }
            let mut sources = vec![dep.to_string()];
            sources.extend(std::iter::repeat_n(cell.to_string(), cells + 1));
            let path = copy.path().join(format!(
                "notebooks/bench-{}-{i}.ipynb",
                kind.replace(' ', "-")
            ));
            std::fs::write(&path, notebook_of(&sources))
                .map_err(|e| fail(format!("{}: {e}", path.display())))?;
            let cpu = cpu_time();
            let out = Command::new(binary)
                .arg("run")
                .arg("--timings")
                .arg("--root")
                .arg(copy.path())
                .arg(&path)
                .output()
                .map_err(|e| fail(format!("{}: {e}", binary.display())))?;
            let cpu = cpu_time().saturating_sub(cpu);
            let stderr = String::from_utf8_lossy(&out.stderr);
            if !out.status.success() {
                return Err(fail(format!(
                    "`puzzlebook run --timings` failed:\n{stderr}"
                )));
            }
            // Code cells 1 (the `:dep`) and 2 (the warm-up) are not timed.
            let timed: Vec<(f64, usize)> = stderr
                .lines()
                .filter_map(crate::pipeline::project::parse_timing_line)
                .filter(|(index, _, _)| *index > 2)
                .map(|(_, secs, compiles)| (secs, compiles))
                .collect();
            if timed.len() != cells {
                return Err(fail(format!(
                    "expected {cells} timed cells from `run --timings`, read {}:\n{stderr}",
                    timed.len()
                )));
            }
            let times: Vec<Duration> = timed.iter().map(|t| Duration::from_secs_f64(t.0)).collect();
            let compiles: usize = timed.iter().map(|t| t.1).sum();
            rows.push(Measurement {
                group: group.clone(),
                case: format!("`{cell}` ({kind}), {setup}"),
                result: format!("{compiles} compiles"),
                items: cells,
                total: times.iter().sum(),
                cpu,
                median: median(times),
            });
        }
    }
    Ok(rows)
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
            Group::TwentyFour => twenty_four(options.stride)?,
            Group::Srat => srat(repeat)?,
            Group::Calculator => calculator(repeat)?,
            Group::SumProduct => sum_product(repeat, &[9, 100, 1000])?,
            Group::Cells => cells(&options.binary, &options.root, repeat)?,
            Group::Report => report(&options.binary, &options.root, repeat)?,
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
    fn the_hard_level_has_seven_moves_and_five_buttons() {
        let l = hard_level();
        assert!(l.moves >= 7 && l.buttons.len() >= 5 && l.z3_expressible());
        let s = calculator::search::search(&l, false);
        assert_eq!(s[0].presses.len(), 7, "{}", s[0].labels());
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
