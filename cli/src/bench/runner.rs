//! The groups that time the `puzzlebook` command itself (the runner) on a
//! copy of the checkout: `report` fresh against forced, one notebook cell as
//! evcxr runs it, and `grade` on one submission and on a class.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::{cpu_time, measure, median, BenchError, Measurement};
use crate::notebook::io::{load_notebook, notebooks_in};
use crate::notebook::ipynb::{CellKind, Notebook, NotebookCell};
use crate::runner::hash::library_files;

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

/// A copy of the checkout in a temporary folder, which the runner's groups
/// run the `puzzlebook` binary on.
struct Checkout {
    binary: PathBuf,
    dir: tempfile::TempDir,
}

impl Checkout {
    /// Copies `root` ([`copy_project`]) for `binary` to work on.
    fn copy(binary: &Path, root: &Path) -> Result<Checkout, BenchError> {
        let copy_err = |source| BenchError::Copy {
            root: root.to_path_buf(),
            source,
        };
        let dir = tempfile::tempdir().map_err(copy_err)?;
        copy_project(root, dir.path()).map_err(copy_err)?;
        Ok(Checkout {
            binary: binary.to_path_buf(),
            dir,
        })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `puzzlebook <command> --root <copy> <args…>`; its standard error,
    /// or the failure with what it said.
    fn run(&self, command: &str, args: &[&str]) -> Result<String, BenchError> {
        let out = Command::new(&self.binary)
            .arg(command)
            .arg("--root")
            .arg(self.path())
            .args(args)
            .output()
            .map_err(|source| BenchError::Spawn {
                binary: self.binary.clone(),
                source,
            })?;
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.success() {
            Ok(stderr)
        } else {
            Err(BenchError::Command {
                args: std::iter::once(command)
                    .chain(args.iter().copied())
                    .collect::<Vec<_>>()
                    .join(" "),
                stderr,
            })
        }
    }

    /// Writes a notebook of code cells with these sources into the copy's
    /// `notebooks/` as `name`; returns its path.
    fn notebook(&self, name: &str, sources: &[String]) -> Result<PathBuf, BenchError> {
        let path = self.path().join("notebooks").join(name);
        std::fs::write(&path, notebook_of(sources)).map_err(|source| BenchError::File {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// Builds in the evcxr build folder what each notebook of the copy loads:
    /// runs a throwaway notebook of each one's first code cell (its `:dep`),
    /// then removes it. The copy is a checkout of its own to cargo, so its
    /// crate (and the shared polars library) are built for it before
    /// anything is timed.
    fn prebuild_dependencies(&self) -> Result<(), BenchError> {
        let mut deps = std::collections::BTreeSet::new();
        for path in notebooks_in(&self.path().join("notebooks"))? {
            let nb = load_notebook(&path)?;
            deps.extend(nb.code_cells().next().map(|c| c.cell.source.clone()));
        }
        for (k, dep) in deps.iter().enumerate() {
            let path = self.notebook(&format!("prebuild-{k}.ipynb"), std::slice::from_ref(dep))?;
            let ran = self.run("run", &[&path.to_string_lossy()]);
            let _ = std::fs::remove_file(&path);
            ran?;
        }
        Ok(())
    }
}

/// The report group: `report` when every notebook is fresh (`repeat` runs, after one
/// uncounted run), against one `report --force` with one notebook at a time
/// and one with two at once (`-j 1`, `-j 2`), all run by `binary` on a copy
/// of `root`.
pub fn report(binary: &Path, root: &Path, repeat: usize) -> Result<Vec<Measurement>, BenchError> {
    let copy = Checkout::copy(binary, root)?;
    let run = |force: Option<usize>| -> Result<(), BenchError> {
        match force {
            None => copy.run("report", &["--update"]),
            Some(jobs) => copy.run(
                "report",
                &["--update", "--force", "--jobs", &jobs.to_string()],
            ),
        }
        .map(drop)
    };
    let group = "report, four notebooks";
    copy.prebuild_dependencies()?;
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
const CELL_SETUPS: [(&str, &str); 4] = [
    (
        "static polars and z3",
        ":dep puzzlebook = { path = \"..\", features = [\"polars\"] }\n\
         use puzzlebook::prelude::*;\nuse puzzlebook::polars::prelude::*;",
    ),
    (
        "polars and z3 as shared libraries (notebook 04 now)",
        ":dep puzzlebook = { path = \"..\", features = [\"polars-dylib\"] }\n\
         use puzzlebook::prelude::*;\nuse puzzlebook::polars::prelude::*;",
    ),
    (
        "without polars, z3 static (notebooks 01-03 before)",
        ":dep puzzlebook = { path = \"..\" }\nuse puzzlebook::prelude::*;",
    ),
    (
        "without polars, z3 as a shared library (notebooks 01-03 now)",
        ":dep puzzlebook = { path = \"..\", features = [\"z3-dylib\"] }\nuse puzzlebook::prelude::*;",
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

/// A cell that only uses Z3 values an earlier cell made ([`Z3_VALUES_CELL`]),
/// as the chapters' cells do when they build one solver step by step. Timed
/// in the setups that share one Z3: with z3 linked into each cell, it crashes.
pub const EARLIER_Z3_CELL: (&str, &str) = (
    "Z3 values from an earlier cell",
    "s.push(); s.assert(&x.gt(&puzzlebook::z3::ast::Int::from_i64(3))); s.check(); s.pop(1);",
);

/// The cell before [`EARLIER_Z3_CELL`]'s: a solver and a variable.
const Z3_VALUES_CELL: &str = "let s = puzzlebook::z3::Solver::new();\n\
    let x = puzzlebook::z3::ast::Int::new_const(\"x\");";

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
    let copy = Checkout::copy(binary, root)?;
    let group = format!("a cell that calls the crate (median of {cells})");
    let mut rows = Vec::new();
    let kinds = TIMED_CELLS.into_iter().chain([FRAME_CELL, EARLIER_Z3_CELL]);
    for (kind, cell) in kinds {
        for (i, (setup, dep)) in CELL_SETUPS.iter().enumerate() {
            if (kind, cell) == FRAME_CELL && !dep.contains("polars") {
                continue;
            }
            let shares_z3 = dep.contains("z3-dylib") || dep.contains("polars-dylib");
            if (kind, cell) == EARLIER_Z3_CELL && !shares_z3 {
                continue;
            }
            let mut sources = vec![dep.to_string()];
            if (kind, cell) == EARLIER_Z3_CELL {
                sources.push(Z3_VALUES_CELL.to_string());
            }
            // The cells before the timed ones: the `:dep`, any setup, the warm-up.
            let untimed = sources.len() + 1;
            sources.extend(std::iter::repeat_n(cell.to_string(), cells + 1));
            let name = format!("bench-{}-{i}.ipynb", kind.replace(' ', "-"));
            let path = copy.notebook(&name, &sources)?;
            let cpu = cpu_time();
            let stderr = copy.run("run", &["--timings", &path.to_string_lossy()])?;
            let cpu = cpu_time().saturating_sub(cpu);
            let timed: Vec<(f64, usize)> = stderr
                .lines()
                .filter_map(crate::ops::parse_timing_line)
                .filter(|(index, _, _)| *index > untimed)
                .map(|(_, secs, compiles)| (secs, compiles))
                .collect();
            if timed.len() != cells {
                return Err(BenchError::Timings {
                    expected: cells,
                    got: timed.len(),
                    stderr,
                });
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

/// The chapter the grade group grades: the quickest to run.
pub const GRADED_CHAPTER: &str = "02-calculator-the-game.ipynb";

/// The grade group: `grade` on one submission (after an uncounted run that
/// warms the build), in its sandbox and with `--no-sandbox` at `-j 1`, and
/// in its sandbox at `-j 2`, beside its reference run, first with the
/// teacher's `:dep` cells run before it and then after a grade that left
/// their note ([`crate::engine::warm`]); against a class
/// of `class` submissions with one at a time and two at once (`-j 1`,
/// `-j 2`); the ratio is per submission. Each
/// submission is a copy of the teacher's notebook, so every one must get
/// every point, which each run checks in its `grades.csv`.
pub fn grade(binary: &Path, root: &Path, class: usize) -> Result<Vec<Measurement>, BenchError> {
    let copy = Checkout::copy(binary, root)?;
    copy.prebuild_dependencies()?;
    let source = copy.path().join("notebooks").join(GRADED_CHAPTER);
    let file_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BenchError::File { path, source }
    };
    let submitted = copy.path().join("submitted");
    std::fs::create_dir_all(&submitted).map_err(file_err(&submitted))?;
    let mut students = Vec::new();
    for k in 1..=class {
        let path = submitted.join(format!("s{k:02}.ipynb"));
        std::fs::copy(&source, &path).map_err(file_err(&path))?;
        students.push(path.to_string_lossy().into_owned());
    }
    let out = copy.path().join("graded");
    let grade = |n: usize, jobs: usize, sandboxed: bool| -> Result<String, BenchError> {
        let (out_s, source_s) = (out.to_string_lossy(), source.to_string_lossy());
        let mut args = vec!["--source", &source_s, "--out", &out_s];
        if !sandboxed {
            args.push("--no-sandbox");
        }
        let jobs = jobs.to_string();
        args.extend(["-j", &jobs]);
        args.extend(students[..n].iter().map(String::as_str));
        copy.run("grade", &args)?;
        let csv = out.join("grades.csv");
        let text = std::fs::read_to_string(&csv).map_err(file_err(&csv))?;
        let rows: Vec<&str> = text.lines().skip(1).collect();
        let full = rows.iter().filter(|r| r.ends_with(",right")).count();
        if rows.len() < n || full != rows.len() {
            return Err(BenchError::Wrong {
                what: format!("grade of {n} copies of {GRADED_CHAPTER}"),
                got: format!("{full} of {} exercise rows right", rows.len()),
                expected: "every row right".into(),
            });
        }
        Ok(format!("{n} graded, every exercise right"))
    };
    let group = format!("grade {GRADED_CHAPTER}, per submission");
    // Uncounted: warms the build, and gives a second engine its build
    // folder (a copy of the first, made once).
    grade(2, 2, true)?;
    let mut rows = Vec::new();
    // Each case but one starts with the build folder's warm-up note
    // forgotten, so that its grade runs the teacher's `:dep` cells as a
    // first grade of a notebook does; the one that keeps it follows a grade
    // of the same notebook, as a late submission does.
    for (n, jobs, sandboxed, keep_note, case) in [
        (1, 1, true, false, "one submission, warm evcxr build".to_string()),
        (1, 1, false, false, "one submission, --no-sandbox".to_string()),
        (1, 2, true, false, "one submission, -j 2 (the default)".to_string()),
        (1, 2, true, true, "one submission, -j 2, after a grade of the same notebook (its :dep cells not run again)".to_string()),
        (class, 1, true, false, format!("a class of {class}, -j 1")),
        (class, 2, true, false, format!("a class of {class}, -j 2")),
    ] {
        let build = crate::engine::evcxr_dir();
        if keep_note && !crate::engine::warm::note_path(&build).exists() {
            return Err(BenchError::Wrong {
                what: "the build folder before a grade after another".into(),
                got: "no warm-up note".into(),
                expected: "the note the last grade left".into(),
            });
        }
        if !keep_note {
            crate::engine::warm::forget(&build).map_err(file_err(&crate::engine::warm::note_path(&build)))?;
        }
        let (results, total, cpu, _) = measure(0..1, |_| grade(n, jobs, sandboxed))?;
        rows.push(Measurement {
            group: group.clone(),
            case,
            result: results.into_iter().next().unwrap_or_default(),
            items: n,
            total,
            cpu,
            median: total / n as u32,
        });
    }
    Ok(rows)
}
