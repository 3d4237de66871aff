//! The pipeline wired to a project's files: `run`, `report` and `check` load
//! notebooks, decide freshness, execute, render and compare, with progress.
//! They return what happened; the binary maps it to the process exit code.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use thiserror::Error;

use super::book::{self, Book, Chapter};
use super::durations::{self, Durations};
use super::execute::{self, CellLimits, ExecError, Progress};
use super::io::{self, IoError};
use super::mode::Mode;
use super::notebook::{Notebook, Output};
use super::stages::{self, FileState, Staleness};
use crate::engine::{self, BuildDirLock, EngineError, EngineScope};

/// A runner failure (exit code 2): bad input, a failing cell, a busy build folder.
#[derive(Debug, Error)]
pub enum RunnerError {
    /// A file problem.
    #[error(transparent)]
    Io(#[from] IoError),
    /// A cell or the engine failed.
    #[error(transparent)]
    Exec(#[from] ExecError),
    /// The evcxr build folder cannot be used.
    #[error(transparent)]
    BuildDir(#[from] EngineError),
    /// The crate's sources could not be fingerprinted.
    #[error("cannot fingerprint the crate at {path}: {source}; run from the puzzlebook folder or pass --root")]
    Fingerprint {
        /// The crate folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Ctrl-C before anything was written for the next notebook.
    #[error("interrupted; the notebooks and reports not yet written were left as they were")]
    Interrupted,
    /// No notebooks were found.
    #[error("no notebooks in {0}; pass notebook paths or --root")]
    NoNotebooks(PathBuf),
}

/// Where things are.
#[derive(Debug, Clone)]
pub struct Project {
    /// The checkout: the library's `Cargo.toml` and `src/`, and `Cargo.lock`,
    /// are fingerprinted ([`super::hash`]).
    pub root: PathBuf,
    /// Where reports go (`<root>/reports`).
    pub reports: PathBuf,
    /// The evcxr build folder.
    pub build_dir: PathBuf,
    /// How long one cell may run, and how much memory the cells may hold.
    pub limits: CellLimits,
    /// How many notebooks `report` and `check --execute` may execute at once,
    /// each with an evcxr engine and build folder of its own.
    pub jobs: usize,
}

impl Project {
    /// A project rooted at `root`, reports in `<root>/reports`, the default build folder.
    pub fn new(root: &Path) -> Project {
        Project {
            root: root.to_path_buf(),
            reports: root.join("reports"),
            build_dir: engine::evcxr_dir(),
            limits: CellLimits::default(),
            jobs: 1,
        }
    }

    /// The notebooks to work on: `given`, or every `<root>/notebooks/*.ipynb`.
    pub fn notebooks(&self, given: &[PathBuf]) -> Result<Vec<PathBuf>, RunnerError> {
        if !given.is_empty() {
            return Ok(given.to_vec());
        }
        let dir = self.root.join("notebooks");
        let found = io::notebooks_in(&dir)?;
        if found.is_empty() {
            return Err(RunnerError::NoNotebooks(dir));
        }
        Ok(found)
    }

    /// The book: every notebook in `<root>/notebooks` as a chapter, in order
    /// (the ones in `loaded` as loaded, the others read for their titles).
    /// Notebooks given from elsewhere are rendered but not listed.
    fn book(&self, loaded: &[Loaded]) -> Result<Book, RunnerError> {
        let dir = self.root.join("notebooks");
        let paths = if dir.is_dir() {
            io::notebooks_in(&dir)?
        } else {
            Vec::new()
        };
        let mut chapters = Vec::new();
        for p in paths {
            let label = self.label(&p);
            let chapter = match loaded.iter().find(|l| l.label == label) {
                Some(l) => Chapter::of(&l.nb, &label),
                None => Chapter::of(&io::load_notebook(&p)?, &label),
            };
            chapters.push(chapter);
        }
        Ok(Book {
            chapters,
            root_from_reports: self.root_from_reports(),
        })
    }

    /// The checkout as a relative URL from the reports folder: `../` for
    /// `<root>/reports`. Empty when the reports are outside the checkout (the
    /// pages' links to notebooks then name them relative to the checkout).
    fn root_from_reports(&self) -> String {
        let parent = self.reports.parent().unwrap_or(Path::new("."));
        let parent = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
        let reports = parent.join(self.reports.file_name().unwrap_or_default());
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        match reports.strip_prefix(&root) {
            Ok(rel) => "../".repeat(rel.components().count()),
            Err(_) => String::new(),
        }
    }

    /// The notebook's path as shown in reports and messages: relative to the
    /// root when inside it, else its file name (never an absolute path).
    pub fn label(&self, path: &Path) -> String {
        // Canonicalise the nearest folder that exists (a report, or the
        // reports folder itself, may not exist yet), then add the rest back.
        let abs = |p: &Path| -> PathBuf {
            let p = if p.is_absolute() {
                p.to_path_buf()
            } else {
                std::env::current_dir().unwrap_or_default().join(p)
            };
            let mut rest = Vec::new();
            let mut cur = p.as_path();
            loop {
                if let Ok(c) = std::fs::canonicalize(cur) {
                    return rest
                        .iter()
                        .rev()
                        .fold(c, |acc: PathBuf, part| acc.join(part));
                }
                match (cur.parent(), cur.file_name()) {
                    (Some(parent), Some(name)) => {
                        rest.push(name.to_os_string());
                        cur = parent;
                    }
                    _ => return p.clone(),
                }
            }
        };
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        match abs(path).strip_prefix(&root) {
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
        }
    }

    fn fingerprint(&self) -> Result<String, RunnerError> {
        super::hash::fingerprint(&self.root).map_err(|source| RunnerError::Fingerprint {
            path: self.root.clone(),
            source,
        })
    }
}

/// How a command ended, short of an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Everything fresh and identical, or written.
    Ok,
    /// A check found differences (exit code 1).
    Differences,
}

fn bar(label: &str, total: usize) -> ProgressBar {
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

/// Executes a notebook with a progress bar; `echo` prints each cell's output as
/// it comes, and `timings` each cell's time and compiles on stderr.
fn run_cells(
    project: &Project,
    lock: &BuildDirLock,
    path: &Path,
    nb: &Notebook,
    echo: bool,
    timings: bool,
) -> Result<Vec<Vec<Output>>, RunnerError> {
    let label = project.label(path);
    let total = nb.code_cells().count();
    let pb = bar(&label, total);
    let started = Instant::now();
    engine::pin_versions(&project.root, &lock.dir, nb.depends_on_crate())?;
    let out = execute::execute(
        nb,
        &label,
        &folder_of(path),
        &lock.dir,
        project.limits,
        cell_progress(&pb, &label, echo, timings),
    );
    Ok(finish(&pb, &label, total, started, out)?)
}

/// The folder a notebook is in, `.` for a bare file name.
fn folder_of(path: &Path) -> PathBuf {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

/// Shows a notebook's cells on its progress bar `pb`; `echo` prints each
/// cell's output as it comes, and `timings` each cell's time and compiles.
fn cell_progress<'a>(
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
        Progress::Z3Values { index, vars } => pb.suspend(|| {
            eprintln!(
                "warning: {label}, code cell {index}: {}",
                execute::z3_hint(vars)
            )
        }),
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

/// Clears a notebook's progress bar and, when its cells ran, says so.
fn finish<T>(
    pb: &ProgressBar,
    label: &str,
    total: usize,
    started: Instant,
    out: Result<T, ExecError>,
) -> Result<T, ExecError> {
    pb.finish_and_clear();
    let out = out?;
    pb.suspend(|| {
        eprintln!(
            "{label}: executed {total} cells in {:.1}s",
            started.elapsed().as_secs_f64()
        )
    });
    Ok(out)
}

/// How `run --timings` reports a cell: `NB, code cell 3: 0.52 s, 1 compile`.
pub fn timing_line(label: &str, index: usize, stats: execute::CellStats) -> String {
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

/// A cell's outputs as `run` prints them: streams, then the plain-text value.
fn echo_text(outputs: &[Output]) -> String {
    let mut s = String::new();
    for o in outputs {
        match o {
            Output::Stream { text, .. } => s.push_str(text),
            Output::ExecuteResult { data } => {
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

fn lock(project: &Project) -> Result<BuildDirLock, RunnerError> {
    let lock = BuildDirLock::acquire(&project.build_dir)?;
    if lock.cold {
        eprintln!(
            "note: the evcxr build folder {} is empty, so the first cell compiles z3, polars and \
             puzzlebook for evcxr; that takes several minutes (about 15 on two cores). Later runs \
             reuse it and take seconds per cell.",
            lock.dir.display()
        );
    }
    Ok(lock)
}

/// `puzzlebook run NOTEBOOK`: executes every cell, printing outputs (and with
/// `timings`, each cell's time and compiles); writes nothing.
pub fn run(project: &Project, path: &Path, timings: bool) -> Result<Verdict, RunnerError> {
    let nb = io::load_notebook(path)?;
    let lock = lock(project)?;
    run_cells(project, &lock, path, &nb, true, timings)?;
    Ok(Verdict::Ok)
}

/// A notebook as loaded, with its rendered files as they are on disk.
struct Loaded {
    path: PathBuf,
    /// The path as shown.
    label: String,
    nb: Notebook,
    /// Its files in the reports folder, by path relative to it.
    on_disk: BTreeMap<String, String>,
}

/// A notebook's cells' outputs, or why they did not all run.
type Ran = Result<Vec<Vec<Output>>, RunnerError>;

/// What a mode does with one notebook ([`Session::plan`]).
struct Plan {
    /// Its rendered files as its committed outputs give them.
    committed: BTreeMap<String, String>,
    /// How it is stale.
    stale: Vec<Staleness>,
    /// Whether its cells run.
    run: bool,
}

/// What `report` and `check` share while they go through the notebooks: the
/// build-folder lock, taken when the first notebook executes.
struct Session<'a> {
    project: &'a Project,
    fingerprint: String,
    book: Book,
    lock: Option<BuildDirLock>,
    /// How long notebooks took, read from the build folder when it is locked;
    /// `timed` says whether this run added any.
    durations: Durations,
    timed: bool,
    /// Notebooks executed and notebooks found fresh, for the summary.
    executed: usize,
    fresh: usize,
}

/// `puzzlebook report` / `puzzlebook check`, by mode.
pub fn report(project: &Project, given: &[PathBuf], mode: Mode) -> Result<Verdict, RunnerError> {
    let paths = project.notebooks(given)?;
    // Load everything first: a malformed notebook stops the run before any work.
    let loaded = paths
        .iter()
        .map(|p| {
            let label = project.label(p);
            Ok(Loaded {
                path: p.clone(),
                nb: io::load_notebook(p)?,
                on_disk: io::read_rendered(&project.reports, &book::stem(&label))?,
                label,
            })
        })
        .collect::<Result<Vec<Loaded>, RunnerError>>()?;
    let mut session = Session {
        project,
        fingerprint: project.fingerprint()?,
        book: project.book(&loaded)?,
        lock: None,
        durations: Durations::default(),
        timed: false,
        executed: 0,
        fresh: 0,
    };
    let plans: Vec<Plan> = loaded.iter().map(|l| session.plan(l, mode)).collect();
    let mut ran = if project.jobs > 1 {
        let todo: Vec<usize> = (0..loaded.len()).filter(|&i| plans[i].run).collect();
        session.execute_at_once(&loaded, &todo)?
    } else {
        BTreeMap::new()
    };
    let mut verdict = Verdict::Ok;
    for (i, (l, plan)) in loaded.iter().zip(plans).enumerate() {
        let ran = ran.remove(&i);
        let v = match mode {
            Mode::Check { .. } => session.check_one(l, plan, ran)?,
            Mode::Update { .. } => session.update_one(l, plan, ran)?,
        };
        if v == Verdict::Differences {
            verdict = v;
        }
    }
    if session.index(mode)? == Verdict::Differences {
        verdict = Verdict::Differences;
    }
    session.save_durations();
    if matches!(mode, Mode::Update { .. }) {
        eprintln!("{}", session.summary());
    }
    Ok(verdict)
}

impl Session<'_> {
    /// What `mode` does with one notebook: its files as committed, how stale
    /// they are, and whether its cells run.
    fn plan(&self, l: &Loaded, mode: Mode) -> Plan {
        let committed = book::files(&l.nb, &l.label, &self.book);
        let stale = stages::staleness(&l.nb, &committed, &l.on_disk, &self.fingerprint);
        let run = match mode {
            Mode::Check { execute } => execute,
            Mode::Update { force } => {
                force || stale.iter().any(|s| matches!(s, Staleness::Cells(_)))
            }
        };
        Plan {
            committed,
            stale,
            run,
        }
    }

    /// The notebook `l` executed: as `ran` already did, or now.
    fn fresh_notebook(
        &mut self,
        l: &Loaded,
        ran: Option<Result<Notebook, RunnerError>>,
    ) -> Result<Notebook, RunnerError> {
        match ran {
            Some(result) => result,
            None => self.execute(&l.path, &l.nb),
        }
    }

    /// Checks one notebook: its hashes and rendered files, and when the plan
    /// runs it, its outputs.
    fn check_one(
        &mut self,
        l: &Loaded,
        plan: Plan,
        ran: Option<Result<Notebook, RunnerError>>,
    ) -> Result<Verdict, RunnerError> {
        let label = &l.label;
        let Plan { stale, run, .. } = plan;
        let mut verdict = Verdict::Ok;
        if stale.is_empty() {
            crate::outln!("{label}: fresh");
        } else {
            verdict = Verdict::Differences;
            self.describe(label, &stale);
        }
        if !run {
            return Ok(verdict);
        }
        let fresh = self.fresh_notebook(l, ran)?;
        let rendered = book::files(&fresh, label, &self.book);
        let mut diffs = vec![stages::diff(
            &l.nb.to_json(),
            &fresh.to_json(),
            label,
            &format!("{label} (executed)"),
        )];
        for (name, _) in stages::file_changes(&rendered, &l.on_disk) {
            let shown = self.report_label(&name);
            diffs.push(stages::diff(
                l.on_disk.get(&name).map(String::as_str).unwrap_or_default(),
                rendered.get(&name).map(String::as_str).unwrap_or_default(),
                &shown,
                &format!("{shown} (executed)"),
            ));
        }
        let mut same = true;
        for d in diffs.into_iter().flatten() {
            same = false;
            crate::out!("{d}");
        }
        if same {
            crate::outln!("{label}: executed, outputs identical");
        } else {
            verdict = Verdict::Differences;
            crate::outln!("{label}: executed, outputs differ (diff above)");
        }
        Ok(verdict)
    }

    /// Brings one notebook and its rendered files up to date, writing each
    /// atomically and removing figures it no longer draws.
    fn update_one(
        &mut self,
        l: &Loaded,
        plan: Plan,
        ran: Option<Result<Notebook, RunnerError>>,
    ) -> Result<Verdict, RunnerError> {
        if engine::interrupted() {
            return Err(RunnerError::Interrupted);
        }
        let label = &l.label;
        let Plan {
            committed,
            run: needs_run,
            ..
        } = plan;
        let (fresh, rendered) = if needs_run {
            self.executed += 1;
            let fresh = self.fresh_notebook(l, ran)?;
            let rendered = book::files(&fresh, label, &self.book);
            (fresh, rendered)
        } else {
            self.fresh += 1;
            (l.nb.clone(), committed)
        };
        let new_nb = fresh.to_json();
        if engine::interrupted() {
            return Err(RunnerError::Interrupted);
        }
        // Every path is checked before anything is written.
        let changes = stages::file_changes(&rendered, &l.on_disk)
            .into_iter()
            .map(|(name, state)| Ok((io::inside(&self.project.reports, &name)?, name, state)))
            .collect::<Result<Vec<_>, io::IoError>>()?;
        let mut wrote = Vec::new();
        if needs_run && l.nb.to_json() != new_nb {
            io::write_atomic(&l.path, &new_nb)?;
            wrote.push(label.clone());
        }
        let mut figures = 0;
        for (path, name, state) in changes {
            match state {
                FileState::LeftOver => io::remove(&path)?,
                FileState::Missing | FileState::Differs => {
                    io::write_atomic(&path, &rendered[&name])?;
                    if name.starts_with("figures/") {
                        figures += 1;
                    } else {
                        wrote.push(self.report_label(&name));
                    }
                }
            }
        }
        if figures > 0 {
            wrote.push(format!(
                "{figures} figure{}",
                if figures == 1 { "" } else { "s" }
            ));
        }
        if wrote.is_empty() {
            crate::outln!("{label}: fresh");
        } else {
            crate::outln!("{label}: wrote {}", wrote.join(", "));
        }
        Ok(Verdict::Ok)
    }

    /// Writes (update) or checks (check) the table of contents.
    fn index(&self, mode: Mode) -> Result<Verdict, RunnerError> {
        let path = self.project.reports.join(book::INDEX);
        let shown = self.report_label(book::INDEX);
        let new = self.book.index();
        if io::read_optional(&path)?.as_deref() == Some(new.as_str()) {
            return Ok(Verdict::Ok);
        }
        match mode {
            Mode::Update { .. } => {
                io::write_atomic(&path, &new)?;
                crate::outln!("wrote {shown}");
                Ok(Verdict::Ok)
            }
            Mode::Check { .. } => {
                crate::outln!("{shown}: out of date with the notebooks; run `puzzlebook report`");
                Ok(Verdict::Differences)
            }
        }
    }

    /// A file in the reports folder as shown in messages.
    fn report_label(&self, name: &str) -> String {
        self.project.label(&self.project.reports.join(name))
    }

    fn describe(&self, label: &str, stale: &[Staleness]) {
        for s in stale {
            match s {
                Staleness::Cells(cells) => {
                    // Hashes chain, so the stale cells are the first one and all after it.
                    let (pos, name) = &cells[0];
                    crate::outln!(
                        "{label}: stale from cell {pos} ({name}) on, {} code cell{}; run `puzzlebook report`",
                        cells.len(),
                        if cells.len() == 1 { "" } else { "s" }
                    );
                }
                Staleness::Files(files) => {
                    for (name, state) in files {
                        let shown = self.report_label(name);
                        let why = match state {
                            FileState::Missing => "missing, rendered from",
                            FileState::Differs => "out of date with",
                            FileState::LeftOver => "left over, no longer rendered from",
                        };
                        crate::outln!("{shown}: {why} {label}; run `puzzlebook report`");
                    }
                }
            }
        }
    }

    /// What `report` did and where, for a person: how many notebooks ran, where
    /// the reports are, and how to run them all again.
    fn summary(&self) -> String {
        let reports = self.project.label(&self.project.reports);
        format!(
            "{} notebook{}: {} executed, {} fresh (their hashes matched, so they did not run). \
             The reports are in {reports}/.\n\
             To execute every notebook again: puzzlebook report --force",
            self.executed + self.fresh,
            if self.executed + self.fresh == 1 {
                ""
            } else {
                "s"
            },
            self.executed,
            self.fresh,
        )
    }

    /// The build folder's lock, taken on first use, when the notebooks' last
    /// times are read from the folder too.
    fn locked(&mut self) -> Result<&BuildDirLock, RunnerError> {
        if self.lock.is_none() {
            let held = lock(self.project)?;
            // Only a hint for the order of `-j`: unreadable is as good as missing.
            let text = io::read_optional(&held.dir.join(durations::FILE));
            self.durations = Durations::parse(&text.ok().flatten().unwrap_or_default());
            self.lock = Some(held);
        }
        Ok(self.lock.as_ref().expect("locked above"))
    }

    /// Keeps the times of the notebooks this run executed in the build folder,
    /// for the next `-j` run's order. Failing to is not an error of the run.
    fn save_durations(&self) {
        let (Some(lock), true) = (&self.lock, self.timed) else {
            return;
        };
        if let Err(e) = io::write_atomic(&lock.dir.join(durations::FILE), &self.durations.to_tsv())
        {
            eprintln!(
                "warning: {e}; the next run with -j may start its notebooks in a worse order"
            );
        }
    }

    /// Executes the notebooks `todo` (indexes into `loaded`, in order), up to
    /// `project.jobs` at once, and returns each one's result by index.
    ///
    /// Each job has an evcxr engine and a build folder of its own: the first
    /// job the usual folder, job `k` the folder [`engine::job_dir`] names,
    /// which starts as a copy of the usual one ([`engine::copy_build`]). A
    /// folder another run holds is not used, so fewer jobs may run. The
    /// notebooks start longest first, by their last times
    /// ([`Durations::start_order`]). After a notebook fails, no further
    /// notebook starts; the caller writes the results in notebook order,
    /// executes on its own any notebook before the failing one that did not
    /// start, and stops at the first failure, as a run of one job at a time
    /// would.
    ///
    /// The engines share the process's working directory, so this returns
    /// nothing (and the caller executes one notebook at a time) unless the
    /// notebooks are in one folder.
    fn execute_at_once(
        &mut self,
        loaded: &[Loaded],
        todo: &[usize],
    ) -> Result<BTreeMap<usize, Result<Notebook, RunnerError>>, RunnerError> {
        let folders: std::collections::BTreeSet<PathBuf> =
            todo.iter().map(|&i| folder_of(&loaded[i].path)).collect();
        let (2.., Some(folder)) = (todo.len(), folders.first()) else {
            return Ok(BTreeMap::new());
        };
        if folders.len() != 1 {
            return Ok(BTreeMap::new());
        }
        let base = self.locked()?.dir.clone();
        // A cold folder is built by the first notebook; more engines would
        // each build z3 and polars again at the same time.
        if !engine::has_built_crate(&base) {
            return Ok(BTreeMap::new());
        }
        let mut extra = Vec::new();
        for k in 1..self.project.jobs.min(todo.len()) {
            let dir = engine::job_dir(&base, k);
            let held = match BuildDirLock::acquire(&dir) {
                Ok(held) => held,
                Err(EngineError::Busy(_)) => break,
                Err(e) => return Err(e.into()),
            };
            if !engine::has_built_crate(&dir) {
                eprintln!(
                    "note: copying the build in {} to {} for another engine (once)",
                    base.display(),
                    dir.display()
                );
                if !engine::copy_build(&base, &dir) {
                    // A cold folder would build z3 and polars again.
                    eprintln!("note: could not copy it; running fewer notebooks at once");
                    break;
                }
            }
            extra.push(held);
        }
        // Paths are made absolute before the working directory moves, and
        // the scope puts the directory and the environment back at its end.
        let mut scope = EngineScope::enter()?;
        let dirs: Vec<PathBuf> = std::iter::once(base.as_path())
            .chain(extra.iter().map(|l| l.dir.as_path()))
            .map(|d| scope.absolute(d))
            .collect();
        let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
        let root = scope.absolute(&self.project.root);
        scope.chdir(folder)?;
        let labelled: Vec<(usize, &str)> = todo
            .iter()
            .map(|&i| (i, loaded[i].label.as_str()))
            .collect();
        let order = self.durations.start_order(&labelled);
        let outputs = self.run_jobs(&mut scope, loaded, &order, &root, &dirs);
        drop(scope);
        for (i, out, secs) in &outputs {
            if out.is_ok() {
                self.durations.set(&loaded[*i].label, *secs);
                self.timed = true;
            }
        }
        Ok(outputs
            .into_iter()
            .map(|(i, out, _)| {
                let nb = &loaded[i].nb;
                let hashes = stages::expected_hashes(nb, &self.fingerprint);
                (i, out.map(|o| stages::apply_outputs(nb, o, &hashes)))
            })
            .collect())
    }

    /// [`Session::execute_at_once`]'s jobs: a thread per running notebook,
    /// one per build folder in `dirs` at most.
    ///
    /// Engines start on this thread, one at a time, because evcxr takes its
    /// build folder from the process environment when an engine starts. Other
    /// engines' threads run meanwhile; they read the environment only through
    /// Rust's `std::env` and `Command`, which take the same lock as setting it.
    fn run_jobs(
        &self,
        engines: &mut EngineScope,
        loaded: &[Loaded],
        todo: &[usize],
        root: &Path,
        dirs: &[&Path],
    ) -> Vec<(usize, Ran, f64)> {
        let multi = indicatif::MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let failed = std::sync::atomic::AtomicBool::new(false);
        let limits = self.project.limits;
        std::thread::scope(|scope| {
            let (free, freed) = std::sync::mpsc::channel::<usize>();
            for k in 0..dirs.len() {
                let _ = free.send(k);
            }
            let mut running = Vec::new();
            let mut results = Vec::new();
            for &i in todo {
                let Ok(k) = freed.recv() else { break };
                if engine::interrupted() || failed.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                let l = &loaded[i];
                let started = engine::pin_versions(root, dirs[k], l.nb.depends_on_crate())
                    .map_err(RunnerError::from)
                    .and_then(|()| Ok(execute::start(engines, &l.label, dirs[k], limits)?));
                let started = match started {
                    Ok(started) => started,
                    Err(e) => {
                        results.push((i, Err(e), 0.0));
                        break;
                    }
                };
                let total = l.nb.code_cells().count();
                let pb = multi.add(bar(&l.label, total));
                let (free, failed) = (free.clone(), &failed);
                running.push((
                    i,
                    scope.spawn(move || {
                        let t0 = Instant::now();
                        let mut progress = cell_progress(&pb, &l.label, false, false);
                        let out =
                            execute::run_started(started, &l.nb, &l.label, limits, &mut progress);
                        let out = finish(&pb, &l.label, total, t0, out);
                        if out.is_err() {
                            failed.store(true, std::sync::atomic::Ordering::SeqCst);
                        }
                        let _ = free.send(k);
                        (out.map_err(RunnerError::from), t0.elapsed().as_secs_f64())
                    }),
                ));
            }
            for (i, handle) in running {
                let (out, secs) = handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                results.push((i, out, secs));
            }
            results
        })
    }

    /// Executes `nb` (taking the build-folder lock on first use) and returns it
    /// with fresh outputs and the hashes they were computed for.
    fn execute(&mut self, path: &Path, nb: &Notebook) -> Result<Notebook, RunnerError> {
        let project = self.project;
        let lock = self.locked()?;
        let started = Instant::now();
        let outputs = run_cells(project, lock, path, nb, false, false)?;
        let label = project.label(path);
        self.durations.set(&label, started.elapsed().as_secs_f64());
        self.timed = true;
        let hashes = stages::expected_hashes(nb, &self.fingerprint);
        Ok(stages::apply_outputs(nb, outputs, &hashes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_lines_read_back() {
        let stats = execute::CellStats {
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
}
