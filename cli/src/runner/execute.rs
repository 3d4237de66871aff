//! Executing a notebook's code cells in order through `evcxr::CommandContext`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use puzzlebook::rich::Shown;
use thiserror::Error;

use super::collect::Collector;
use crate::ansi::strip_ansi;
use crate::engine::cell_process::{out_of_memory, take_ran, CellMark, END_WAIT};
use crate::engine::hints::Z3Watch;
use crate::engine::{EngineError, EngineScope};
use crate::limits::memory_text;
use crate::notebook::ipynb::{CodeCell, Notebook, Output};

/// What one cell may take before the runner stops it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellLimits {
    /// How long it may run; then its evcxr process is killed.
    pub timeout: Duration,
    /// How much memory the cells' process may hold (`None`: no limit); an
    /// allocation past it stops the cell.
    pub memory: Option<u64>,
    /// Whether the runner is alone in a PID namespace of its own, under its
    /// own process 1 (a sandbox's `grade-job`). A cell stopped by the
    /// timeout then ends every other process of it
    /// ([`crate::engine::namespace::end_the_rest`]): a process the cell
    /// started that holds the cell's pipes would otherwise keep the run
    /// waiting until the sandbox's deadline.
    pub(crate) alone_in_namespace: bool,
}

impl Default for CellLimits {
    /// [`crate::engine::DEFAULT_CELL_TIMEOUT`], and half the machine's memory.
    fn default() -> CellLimits {
        CellLimits {
            timeout: crate::engine::DEFAULT_CELL_TIMEOUT,
            memory: Some(crate::limits::default_cell_memory()),
            alone_in_namespace: false,
        }
    }
}

/// Where a cell is, for messages: `notebooks/x.ipynb, cell 5 (code cell 3, "name")`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellAt {
    /// The notebook, as the user named it.
    pub notebook: String,
    /// The cell's 1-based position among all cells.
    pub cell: usize,
    /// `code cell N` and the result name, if any.
    pub label: String,
}

impl CellAt {
    /// Code cell `code` of the notebook shown as `notebook`.
    pub fn of(notebook: &str, code: &CodeCell<'_>) -> CellAt {
        CellAt {
            notebook: notebook.to_string(),
            cell: code.position,
            label: match &code.cell.name {
                Some(n) => format!("code cell {}, {n:?}", code.number),
                None => format!("code cell {}", code.number),
            },
        }
    }
}

impl std::fmt::Display for CellAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, cell {} ({})", self.notebook, self.cell, self.label)
    }
}

/// A cell that failed, or an engine that would not start.
#[derive(Debug, Error)]
pub enum ExecError {
    /// A cell failed to compile or run.
    #[error(
        "{at} failed:\n{message}\nFix that cell and run again; no report or notebook was changed."
    )]
    Cell {
        /// The cell.
        at: CellAt,
        /// The compiler's or the runtime's message, without ANSI codes.
        message: String,
    },
    /// A cell ran past the cell timeout; its evcxr process was killed.
    #[error("{at} was still running after {seconds} s, the cell timeout, so it was stopped and its evcxr process killed.\nMake the cell faster, or give it more time with --cell-timeout SECONDS; no report or notebook was changed.")]
    Timeout {
        /// The cell.
        at: CellAt,
        /// The timeout.
        seconds: u64,
    },
    /// A cell tried to hold more memory than the limit allows; its evcxr
    /// process ended.
    #[error("{at} needed more memory than the cells' limit of {limit}, so it was stopped:\n{message}\nMake the cell use less, or give it more with --cell-memory SIZE (or off); no report or notebook was changed.")]
    Memory {
        /// The cell.
        at: CellAt,
        /// The limit, for people.
        limit: String,
        /// What the process said as it ended.
        message: String,
    },
    /// The run was interrupted (Ctrl-C).
    #[error("interrupted in {at}; no report or notebook was changed")]
    Interrupted {
        /// The cell.
        at: CellAt,
    },
    /// evcxr could not start.
    #[error("could not start the evcxr engine for {notebook}: {message}")]
    Engine {
        /// The notebook.
        notebook: String,
        /// evcxr's message.
        message: String,
    },
    /// The build folder cannot be used.
    #[error(transparent)]
    BuildDir(#[from] EngineError),
}

/// What happens as a notebook runs, for progress display and streaming output.
#[derive(Debug)]
pub enum Progress<'a> {
    /// Code cell `index` (1-based) is starting.
    Start {
        /// 1-based among code cells.
        index: usize,
        /// The result name or `cell-N`.
        name: &'a str,
    },
    /// After cell `index`, the variables holding Z3 values changed ([`Z3Watch`]).
    Z3Values {
        /// 1-based among code cells.
        index: usize,
        /// What to tell the reader.
        hint: &'a str,
    },
    /// A cell finished with these outputs.
    Done {
        /// 1-based among code cells.
        index: usize,
        /// Its outputs.
        outputs: &'a [Output],
        /// Its time and number of compiles.
        stats: CellStats,
    },
}

impl ExecError {
    /// The error of an engine for notebook `label` that would not start.
    fn engine(label: &str) -> impl FnOnce(String) -> ExecError + '_ {
        move |message| ExecError::Engine {
            notebook: label.to_string(),
            message,
        }
    }
}

/// Runs every code cell of `nb` in order in a fresh evcxr context whose working
/// directory is `dir`; returns each code cell's outputs. The first failing cell
/// stops the run with an error naming `label` (the notebook) and the cell; so
/// does a cell that breaks one of `limits` (a timeout kills its evcxr process),
/// and an interrupt ([`crate::engine::interrupted`]).
///
/// The caller must hold the [`crate::engine::BuildDirLock`] for `build_dir`.
pub fn execute(
    nb: &Notebook,
    label: &str,
    dir: &Path,
    build_dir: &Path,
    limits: CellLimits,
    mut progress: impl FnMut(Progress<'_>),
) -> Result<Vec<Vec<Output>>, ExecError> {
    // The cells run with the notebook's folder as the working directory: evcxr
    // resolves `:dep` paths against it, and the child process inherits it.
    // The scope puts the directory and the environment back when it ends.
    let mut scope = EngineScope::enter()?;
    scope.chdir(dir)?;
    let started = start(&mut scope, label, build_dir, limits)?;
    run_started(started, nb, label, limits, &mut progress)
}

/// An evcxr engine started in a build folder, for one notebook's cells, and
/// the folder's `Cargo.lock` as the caller pinned it before the start
/// ([`crate::engine::pin_versions`]).
pub struct Started(Engine, Option<(PathBuf, Vec<u8>)>);

/// Starts an engine for notebook `label` in `build_dir`, its cells' process
/// limited to `limits.memory`.
///
/// evcxr takes its build folder from the process environment when the engine
/// starts, which this sets in `scope`; its child process inherits the working
/// directory, against which evcxr also resolves `:dep` paths, so the caller
/// moves that to the notebook's folder first (in `scope`) and keeps it until
/// the cells ran. The caller must hold the [`crate::engine::BuildDirLock`] for
/// `build_dir`.
pub fn start(
    scope: &mut EngineScope,
    label: &str,
    build_dir: &Path,
    limits: CellLimits,
) -> Result<Started, ExecError> {
    let config_dir = scope.absolute(&build_dir.join("config"));
    std::fs::create_dir_all(&config_dir).map_err(|source| EngineError::Io {
        path: config_dir.clone(),
        source,
    })?;
    crate::engine::write_config(&config_dir)?;
    scope.engine(build_dir, &config_dir, limits.memory)?;
    let lock = scope.absolute(&build_dir.join("Cargo.lock"));
    let pinned = std::fs::read(&lock).ok().map(|bytes| (lock, bytes));
    Engine::create()
        .map(|engine| Started(engine, pinned))
        .map_err(ExecError::engine(label))
}

/// Puts the pinned `Cargo.lock` back in the build folder, before a cell with
/// a `:dep` line, as the kernel does. Every compile makes cargo drop from the
/// lock what that cell's crate does not use: each cell before a later
/// `:dep`. That `:dep` would then resolve its crates afresh, to the newest
/// versions cargo has, not those the checkout's lock pins (and the cells'
/// hashes cover).
fn repin(pinned: Option<&(PathBuf, Vec<u8>)>) -> Result<(), ExecError> {
    let Some((lock, bytes)) = pinned else {
        return Ok(());
    };
    std::fs::write(lock, bytes).map_err(|source| EngineError::Io {
        path: lock.clone(),
        source,
    })?;
    Ok(())
}

/// Primes a [`start`]ed engine and runs `nb`'s code cells in it, in order, as
/// [`execute`] does.
pub fn run_started(
    started: Started,
    nb: &Notebook,
    label: &str,
    limits: CellLimits,
    progress: &mut impl FnMut(Progress<'_>),
) -> Result<Vec<Vec<Output>>, ExecError> {
    let Started(mut engine, pinned) = started;
    engine.prime().map_err(ExecError::engine(label))?;
    first_failure(run_cells(
        engine,
        nb,
        label,
        limits,
        progress,
        false,
        pinned.as_ref(),
    ))
}

/// Each code cell's outputs or why it failed, in order, from a run that
/// went on past failing cells ([`run_started_past_failures`]). A cell that
/// stopped the run (a timeout, the memory limit, an interrupt) is the last:
/// the cells after it did not run.
pub type CellResults = Vec<Result<Vec<Output>, ExecError>>;

/// As [`run_started`], but a cell that fails to compile, panics or returns
/// an error from `?` does not stop the run, as nbgrader's autograder runs
/// a submission: each cell's result is kept, and the later cells run (those
/// that used the failed cell's variables fail in turn). A timeout, the
/// memory limit or an interrupt still ends the run.
pub fn run_started_past_failures(
    started: Started,
    nb: &Notebook,
    label: &str,
    limits: CellLimits,
    progress: &mut impl FnMut(Progress<'_>),
) -> Result<CellResults, ExecError> {
    let Started(mut engine, pinned) = started;
    engine.prime().map_err(ExecError::engine(label))?;
    Ok(run_cells(
        engine,
        nb,
        label,
        limits,
        progress,
        true,
        pinned.as_ref(),
    ))
}

/// The cells' outputs, or the first cell's failure.
pub fn first_failure(cells: CellResults) -> Result<Vec<Vec<Output>>, ExecError> {
    cells.into_iter().collect()
}

/// A started evcxr context and the readers of what its cells print.
struct Engine {
    ctx: evcxr::CommandContext,
    stdout: Collector,
    stderr: Collector,
}

impl Engine {
    /// Starts evcxr, with the settings the process environment gives it.
    fn create() -> Result<Engine, String> {
        let (ctx, channels) =
            evcxr::CommandContext::new().map_err(|e| strip_ansi(&e.to_string()))?;
        Ok(Engine {
            ctx,
            stdout: Collector::start(channels.stdout),
            stderr: Collector::start(channels.stderr),
        })
    }

    /// Gives the engine the runner's settings ([`crate::engine::init_commands`]).
    /// `?` is allowed from its first cell without a primer: it started
    /// quickly ([`crate::engine::quick_start`]).
    fn prime(&mut self) -> Result<(), String> {
        for command in crate::engine::init_commands().lines() {
            self.ctx.execute(command).map_err(|e| e.to_string())?;
        }
        self.stdout.take();
        self.stderr.take();
        Ok(())
    }

    /// What the cell run `ran` (its number in the cell process, if it ran
    /// there) printed on standard error: every line up to its end mark, which
    /// evcxr's reader thread may hand on after `execute` returned. A cell
    /// that did not run, or ended the process, has no mark; a crash's last
    /// words are given a moment to arrive.
    fn stderr_of(&self, ran: Option<u64>) -> Vec<String> {
        match ran {
            Some(run) => self.stderr.take_through(run, END_WAIT),
            None => {
                std::thread::sleep(Duration::from_millis(20));
                self.stderr.take()
            }
        }
    }

    /// Runs one cell: its outputs, or why it failed. A watchdog kills the
    /// evcxr process if the cell is still running after the timeout, and
    /// the rest of the namespace if the runner is alone in it.
    fn run(
        &mut self,
        source: &str,
        limits: CellLimits,
    ) -> Result<(Vec<Output>, CellStats), CellFailure> {
        let (timeout, alone) = (limits.timeout, limits.alone_in_namespace);
        let child = self.ctx.process_handle();
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let watchdog = std::thread::spawn(move || {
            let timed_out = matches!(
                finished.recv_timeout(timeout),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout)
            );
            if timed_out {
                let mut child = child.lock().unwrap_or_else(|e| e.into_inner());
                let _ = child.kill();
                if alone {
                    crate::engine::namespace::end_the_rest();
                }
            }
            timed_out
        });
        let started = std::time::Instant::now();
        let mut result = self.ctx.execute(source);
        let elapsed = started.elapsed();
        let _ = done.send(());
        let timed_out = watchdog.join().unwrap_or(false);
        let ran = result.as_mut().ok().and_then(take_ran);
        let stdout: Vec<String> = self.stdout.take();
        let stderr = self.stderr_of(ran);
        if crate::engine::interrupted() {
            return Err(CellFailure::Interrupted);
        }
        if timed_out {
            return Err(CellFailure::Timeout);
        }
        let mut evaluated = result.map_err(|e| {
            let message = failure_message(e, &stderr);
            if out_of_memory(&message) {
                CellFailure::OutOfMemory(message)
            } else {
                CellFailure::Failed(message)
            }
        })?;
        match CellMark::take(&mut evaluated) {
            Some(CellMark::UserError) => {
                return Err(CellFailure::Failed(user_error_message(&stderr)))
            }
            Some(CellMark::Panic) => return Err(CellFailure::Failed(panic_message(&stderr))),
            None => {}
        }
        let stats = CellStats {
            elapsed,
            compiles: compiles(evaluated.phases.iter().map(|p| p.name.as_str())),
        };
        // A panic that evcxr did not catch, such as one in a thread the cell
        // started, is seen only on standard error.
        if stderr.iter().any(|l| l.contains("panicked at")) {
            return Err(CellFailure::Failed(panic_message(&stderr)));
        }
        Ok((outputs(stdout, stderr, evaluated), stats))
    }
}

/// How long a cell took and how many times evcxr compiled it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellStats {
    /// From handing the cell to evcxr to its return: compiling, loading and running.
    pub elapsed: Duration,
    /// How many times evcxr compiled the cell: 1, plus one for each round in
    /// which it rewrote the cell after a compile error (such as printing the
    /// final value with `Debug` when it has no `evcxr_display`).
    pub compiles: usize,
}

/// The number of compiles in evcxr's phases for a cell: every phase but
/// "Execution" ends with a compile ("Final compile", or the names of what a
/// failed compile made it fix, such as "Fallback").
fn compiles<'a>(phases: impl IntoIterator<Item = &'a str>) -> usize {
    phases.into_iter().filter(|p| *p != "Execution").count()
}

/// What a cell whose `?` returned an error failed with: evcxr printed the
/// error on the cell's standard error ([`crate::engine::cell_process`] marks the cell).
pub fn user_error_message(stderr: &[String]) -> String {
    let printed = stderr.join("\n");
    let printed = printed.trim_end();
    if printed.is_empty() {
        "the cell's `?` returned an error".to_string()
    } else {
        format!("the cell's `?` returned an error: {printed}")
    }
}

/// What a cell that panicked failed with: the panic's message, which Rust
/// printed on the cell's standard error from its "panicked at" line on.
pub fn panic_message(stderr: &[String]) -> String {
    match stderr.iter().position(|l| l.contains("panicked at")) {
        Some(p) => stderr[p..].join("\n").trim_end().to_string(),
        None => "the cell panicked".to_string(),
    }
}

/// Why a cell did not finish.
enum CellFailure {
    /// It failed to compile, panicked or crashed: the message.
    Failed(String),
    /// It needed more memory than the limit: what the process said.
    OutOfMemory(String),
    /// It ran past the timeout.
    Timeout,
    /// The run was interrupted.
    Interrupted,
}

/// The message of a cell that failed to compile or run.
fn failure_message(e: evcxr::Error, stderr: &[String]) -> String {
    match e {
        evcxr::Error::CompilationErrors(errors) => errors
            .iter()
            .map(|e| {
                let r = e.rendered();
                if r.trim().is_empty() {
                    e.message()
                } else {
                    r
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        e => {
            let mut m = e.to_string();
            if !stderr.is_empty() {
                m.push('\n');
                m.push_str(&stderr.join("\n"));
            }
            m
        }
    }
}

/// A cell's outputs as nbformat stores them: what it printed and displayed
/// on stdout, in order, then its stderr, then its value.
fn outputs(stdout: Vec<String>, stderr: Vec<String>, value: evcxr::EvalOutputs) -> Vec<Output> {
    let (mut outputs, clear_pending) = shown(stdout);
    // A clear that waits takes effect at the next output of any kind, as in
    // Jupyter: standard error or the cell's value.
    if clear_pending && (!stderr.is_empty() || !value.content_by_mime_type.is_empty()) {
        outputs.clear();
    }
    if !stderr.is_empty() {
        outputs.push(stream("stderr", &stderr));
    }
    if !value.content_by_mime_type.is_empty() {
        let data: BTreeMap<String, String> = value
            .content_by_mime_type
            .into_iter()
            .map(|(k, v)| (k, strip_ansi(&v)))
            .collect();
        outputs.push(Output::ExecuteResult { data });
    }
    outputs
}

/// `lines` of stream `name` as one output.
fn stream(name: &str, lines: &[String]) -> Output {
    let mut text = lines.join("\n");
    text.push('\n');
    Output::Stream {
        name: name.into(),
        text,
    }
}

/// A cell's standard output as outputs: runs of text, and what the cell
/// displayed between them ([`Shown`]), as Jupyter shows them. A clear drops
/// everything before it; one that waits, only once something comes after it
/// (else, as in Jupyter, the old output stays). Also says whether a clear
/// that waits is still pending at the end, for the outputs that follow.
fn shown(stdout: Vec<String>) -> (Vec<Output>, bool) {
    let mut outputs = Vec::new();
    let mut text: Vec<String> = Vec::new();
    let mut clear_on_next = false;
    for line in stdout {
        let shown = Shown::parse(&line);
        if clear_on_next && !matches!(shown, Some(Shown::Clear { .. })) {
            outputs.clear();
            text.clear();
            clear_on_next = false;
        }
        match shown {
            None => text.push(line),
            Some(Shown::Display(data)) => {
                if !text.is_empty() {
                    outputs.push(stream("stdout", &std::mem::take(&mut text)));
                }
                let data = data.into_iter().map(|(k, v)| (k, strip_ansi(&v))).collect();
                outputs.push(Output::DisplayData { data });
            }
            Some(Shown::Clear { wait: false }) => {
                outputs.clear();
                text.clear();
                clear_on_next = false;
            }
            Some(Shown::Clear { wait: true }) => clear_on_next = true,
        }
    }
    if !text.is_empty() {
        outputs.push(stream("stdout", &text));
    }
    (outputs, clear_on_next)
}

/// Runs `nb`'s code cells in order, each one's result in the list. The first
/// failure ends the run, unless `past_failures` and the cell only failed
/// (did not compile, panicked, or its `?` returned an error).
fn run_cells(
    mut engine: Engine,
    nb: &Notebook,
    label: &str,
    limits: CellLimits,
    progress: &mut impl FnMut(Progress<'_>),
    past_failures: bool,
    pinned: Option<&(PathBuf, Vec<u8>)>,
) -> CellResults {
    let total = nb.code_cells().count();
    let mut all = Vec::with_capacity(total);
    let mut z3 = Z3Watch::default();
    for code in nb.code_cells() {
        let (index, cell) = (code.number, code.cell);
        let at = || CellAt::of(label, &code);
        progress(Progress::Start {
            index,
            name: &code.name,
        });
        if crate::engine::has_dep_line(&cell.source) {
            if let Err(e) = repin(pinned) {
                all.push(Err(e));
                break;
            }
        }
        let failure = match engine.run(&cell.source, limits) {
            Ok(done) => Ok(done),
            Err(CellFailure::Failed(message)) => {
                let mut message = strip_ansi(message.trim_end());
                if let Some(note) = z3.failed(&message) {
                    message.push('\n');
                    message.push_str(&note);
                }
                Err(ExecError::Cell { at: at(), message })
            }
            Err(CellFailure::OutOfMemory(message)) => Err(ExecError::Memory {
                at: at(),
                limit: limits.memory.map_or("none".into(), memory_text),
                message: strip_ansi(message.trim_end()),
            }),
            Err(CellFailure::Timeout) => Err(ExecError::Timeout {
                at: at(),
                seconds: limits.timeout.as_secs(),
            }),
            Err(CellFailure::Interrupted) => Err(ExecError::Interrupted { at: at() }),
        };
        let (outputs, stats) = match failure {
            Ok(done) => done,
            Err(e) => {
                let goes_on = past_failures && matches!(e, ExecError::Cell { .. });
                all.push(Err(e));
                if goes_on {
                    continue;
                }
                return all;
            }
        };
        if let Some(hint) = z3.succeeded(&engine.ctx, &cell.source) {
            progress(Progress::Z3Values { index, hint: &hint });
        }
        progress(Progress::Done {
            index,
            outputs: &outputs,
            stats,
        });
        all.push(Ok(outputs));
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_are_counted_from_evcxrs_phases() {
        assert_eq!(compiles(["Final compile", "Execution"]), 1);
        assert_eq!(compiles(["Fallback", "Final compile", "Execution"]), 2);
        assert_eq!(compiles(["Execution"]), 0);
    }

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    fn display(plain: &str) -> String {
        Shown::Display([("text/plain".to_string(), plain.to_string())].into()).line()
    }

    fn text(t: &str) -> Output {
        Output::Stream {
            name: "stdout".into(),
            text: t.into(),
        }
    }

    fn displayed(plain: &str) -> Output {
        Output::DisplayData {
            data: [("text/plain".to_string(), plain.to_string())].into(),
        }
    }

    #[test]
    fn displays_come_between_the_runs_of_text_around_them() {
        let stdout = lines(&format!(
            "a\nb\n{}\n{}\nc\n",
            display("one"),
            display("two")
        ));
        assert_eq!(
            shown(stdout).0,
            vec![
                text("a\nb\n"),
                displayed("one"),
                displayed("two"),
                text("c\n")
            ]
        );
        assert_eq!(shown(lines("just text\n")).0, vec![text("just text\n")]);
        assert_eq!(shown(Vec::new()), (Vec::new(), false));
    }

    #[test]
    fn a_clear_drops_what_came_before_it_and_one_that_waits_only_if_more_comes() {
        let clear = "PUZZLEBOOK_CLEAR_OUTPUT";
        let wait = "PUZZLEBOOK_CLEAR_OUTPUT wait";
        let stdout = lines(&format!(
            "a\n{}\n{clear}\nb\n{}\n",
            display("1"),
            display("2")
        ));
        assert_eq!(shown(stdout), (vec![text("b\n"), displayed("2")], false));
        // A progress display, updated in place: only the last one stays.
        let stdout = lines(&format!(
            "{wait}\n{}\n{wait}\n{}\n{wait}\n{}\n",
            display("1/3"),
            display("2/3"),
            display("3/3")
        ));
        assert_eq!(shown(stdout), (vec![displayed("3/3")], false));
        // Nothing after a clear that waits: the output stays, and the clear
        // is pending for what follows the standard output.
        let stdout = lines(&format!("a\n{}\n{wait}\n{wait}\n", display("1")));
        assert_eq!(shown(stdout), (vec![text("a\n"), displayed("1")], true));
        // Then a clear that does not wait clears at once.
        let stdout = lines(&format!("a\n{wait}\n{clear}\n"));
        assert_eq!(shown(stdout), (Vec::new(), false));
    }

    #[test]
    fn a_clear_that_waits_at_the_end_takes_the_displays_when_stderr_or_the_value_follows() {
        let wait = "PUZZLEBOOK_CLEAR_OUTPUT wait".to_string();
        let mut value = evcxr::EvalOutputs::new();
        value
            .content_by_mime_type
            .insert("text/plain".into(), "42".into());
        assert_eq!(
            outputs(vec![display("1/3"), wait.clone()], Vec::new(), value),
            vec![Output::ExecuteResult {
                data: [("text/plain".to_string(), "42".to_string())].into()
            }]
        );
        assert_eq!(
            outputs(
                vec![display("1/3"), wait.clone()],
                vec!["a warning".into()],
                evcxr::EvalOutputs::new()
            ),
            vec![Output::Stream {
                name: "stderr".into(),
                text: "a warning\n".into()
            }]
        );
        // Nothing follows: the display stays.
        assert_eq!(
            outputs(
                vec![display("1/3"), wait],
                Vec::new(),
                evcxr::EvalOutputs::new()
            ),
            vec![displayed("1/3")]
        );
    }
}
