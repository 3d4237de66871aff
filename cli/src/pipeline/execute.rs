//! Executing a notebook's code cells in order through `evcxr::CommandContext`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use thiserror::Error;

use super::notebook::{CellKind, Notebook, Output};
use crate::cell_process::{out_of_memory, USER_ERROR_MIME};
use crate::engine::{EngineError, EngineScope};
use crate::limits::memory_text;

/// What one cell may take before the runner stops it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellLimits {
    /// How long it may run; then its evcxr process is killed.
    pub timeout: Duration,
    /// How much memory the cells' process may hold (`None`: no limit); an
    /// allocation past it stops the cell.
    pub memory: Option<u64>,
}

impl Default for CellLimits {
    /// [`crate::engine::DEFAULT_CELL_TIMEOUT`], and half the machine's memory.
    fn default() -> CellLimits {
        CellLimits {
            timeout: crate::engine::DEFAULT_CELL_TIMEOUT,
            memory: Some(crate::limits::default_cell_memory()),
        }
    }
}

/// A cell that failed, or an engine that would not start.
#[derive(Debug, Error)]
pub enum ExecError {
    /// A cell failed to compile or run.
    #[error("{notebook}, cell {cell} ({label}) failed:\n{message}\nFix that cell and run again; no report or notebook was changed.")]
    Cell {
        /// The notebook, as the user named it.
        notebook: String,
        /// The cell's 1-based position among all cells.
        cell: usize,
        /// `code cell N` and the result name, if any.
        label: String,
        /// The compiler's or the runtime's message, without ANSI codes.
        message: String,
    },
    /// A cell ran past the cell timeout; its evcxr process was killed.
    #[error("{notebook}, cell {cell} ({label}) was still running after {seconds} s, the cell timeout, so it was stopped and its evcxr process killed.\nMake the cell faster, or give it more time with --cell-timeout SECONDS; no report or notebook was changed.")]
    Timeout {
        /// The notebook.
        notebook: String,
        /// The cell's 1-based position among all cells.
        cell: usize,
        /// `code cell N` and the result name, if any.
        label: String,
        /// The timeout.
        seconds: u64,
    },
    /// A cell tried to hold more memory than the limit allows; its evcxr
    /// process ended.
    #[error("{notebook}, cell {cell} ({label}) needed more memory than the cells' limit of {limit}, so it was stopped:\n{message}\nMake the cell use less, or give it more with --cell-memory SIZE (or off); no report or notebook was changed.")]
    Memory {
        /// The notebook.
        notebook: String,
        /// The cell's 1-based position among all cells.
        cell: usize,
        /// `code cell N` and the result name, if any.
        label: String,
        /// The limit, for people.
        limit: String,
        /// What the process said as it ended.
        message: String,
    },
    /// The run was interrupted (Ctrl-C).
    #[error("interrupted in {notebook}, cell {cell} ({label}); no report or notebook was changed")]
    Interrupted {
        /// The notebook.
        notebook: String,
        /// The cell's 1-based position among all cells.
        cell: usize,
        /// `code cell N` and the result name, if any.
        label: String,
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
    /// After cell `index`, these variables hold Z3 values: `(name, type)`.
    Z3Values {
        /// 1-based among code cells.
        index: usize,
        /// The variables and their types as evcxr knows them.
        vars: &'a [(String, String)],
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

/// Removes ANSI escape sequences (colours, cursor moves) from text.
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// Collects the lines a cell prints while it runs.
///
/// evcxr waits, before `execute` returns, until its stdout channel is empty, so
/// someone must drain it during the cell (a cell that prints would otherwise
/// hang). A thread polls the channel and moves lines into a buffer while holding
/// the buffer's lock; once `execute` has returned the channel is empty, so taking
/// the lock yields every line the cell printed, and none of the next cell's.
struct StdoutCollector {
    lines: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl StdoutCollector {
    fn start(rx: crossbeam_channel::Receiver<String>) -> StdoutCollector {
        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&lines);
        std::thread::spawn(move || loop {
            {
                let mut buf = sink.lock().unwrap_or_else(|e| e.into_inner());
                loop {
                    match rx.try_recv() {
                        Ok(line) => buf.push(line),
                        Err(crossbeam_channel::TryRecvError::Empty) => break,
                        Err(crossbeam_channel::TryRecvError::Disconnected) => return,
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(2));
        });
        StdoutCollector { lines }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.lines.lock().unwrap_or_else(|e| e.into_inner()))
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

/// An evcxr engine started in a build folder, for one notebook's cells.
pub struct Started(Engine);

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
    scope.engine(build_dir, &config_dir, limits.memory)?;
    Engine::create()
        .map(Started)
        .map_err(|message| ExecError::Engine {
            notebook: label.to_string(),
            message,
        })
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
    let mut engine = started.0;
    engine.prime().map_err(|message| ExecError::Engine {
        notebook: label.to_string(),
        message,
    })?;
    run_cells(engine, nb, label, limits, progress)
}

/// A started evcxr context and the readers of what its cells print.
struct Engine {
    ctx: evcxr::CommandContext,
    stdout: StdoutCollector,
    stderr: crossbeam_channel::Receiver<String>,
}

impl Engine {
    /// Starts evcxr, with the settings the process environment gives it.
    fn create() -> Result<Engine, String> {
        let (ctx, channels) =
            evcxr::CommandContext::new().map_err(|e| strip_ansi(&e.to_string()))?;
        Ok(Engine {
            ctx,
            stdout: StdoutCollector::start(channels.stdout),
            stderr: channels.stderr,
        })
    }

    /// Gives the engine the runner's settings ([`crate::engine::init_commands`])
    /// and primes it ([`crate::engine::PRIME_QUESTION_MARK`]).
    fn prime(&mut self) -> Result<(), String> {
        for command in crate::engine::init_commands().lines() {
            self.ctx.execute(command).map_err(|e| e.to_string())?;
        }
        self.ctx
            .execute(crate::engine::PRIME_QUESTION_MARK)
            .map_err(|e| format!("priming `?`: {e}"))?;
        self.stdout.take();
        let _ = self.stderr.try_iter().count();
        Ok(())
    }

    /// Runs one cell: its outputs, or why it failed. A watchdog kills the
    /// evcxr process if the cell is still running after `timeout`.
    fn run(
        &mut self,
        source: &str,
        timeout: Duration,
    ) -> Result<(Vec<Output>, CellStats), CellFailure> {
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
            }
            timed_out
        });
        let started = std::time::Instant::now();
        let result = self.ctx.execute(source);
        let elapsed = started.elapsed();
        let _ = done.send(());
        let timed_out = watchdog.join().unwrap_or(false);
        let stdout: Vec<String> = self.stdout.take();
        // Give the stderr reader thread a moment to deliver a panic message.
        std::thread::sleep(Duration::from_millis(20));
        let stderr: Vec<String> = self.stderr.try_iter().collect();
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
        if evaluated
            .content_by_mime_type
            .remove(USER_ERROR_MIME)
            .is_some()
        {
            return Err(CellFailure::Failed(user_error_message(&stderr)));
        }
        let stats = CellStats {
            elapsed,
            compiles: compiles(evaluated.phases.iter().map(|p| p.name.as_str())),
        };
        if let Some(p) = stderr.iter().position(|l| l.contains("panicked at")) {
            return Err(CellFailure::Failed(stderr[p..].join("\n")));
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

/// The variables `ctx` keeps that hold a value of a `z3` type, with their
/// types, sorted, given the sources of the cells run so far. The runner and
/// the Jupyter kernel both ask after each cell.
pub fn z3_variables(ctx: &evcxr::CommandContext, sources: &[&str]) -> Vec<(String, String)> {
    let names = z3_names(sources);
    let mut vars: Vec<(String, String)> = ctx
        .variables_and_types()
        .filter(|(_, ty)| holds_z3(ty, &names))
        .map(|(n, ty)| (n.to_string(), ty.to_string()))
        .collect();
    vars.sort();
    vars
}

/// What a cell whose `?` returned an error failed with: evcxr printed the
/// error on the cell's standard error ([`crate::cell_process`] marks the cell).
pub fn user_error_message(stderr: &[String]) -> String {
    let printed = stderr.join("\n");
    let printed = printed.trim_end();
    if printed.is_empty() {
        "the cell's `?` returned an error".to_string()
    } else {
        format!("the cell's `?` returned an error: {printed}")
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

/// The names the cells so far bring into scope from the `z3` crate, read from
/// their `use` items: `use puzzlebook::z3::ast::{Int, Real};` gives `Int` and
/// `Real`; a glob such as `use puzzlebook::z3::ast::*;` gives the crate's
/// usual type names from that module.
///
/// evcxr names a variable's type as the cell wrote it (`Int`, not
/// `z3::ast::Int`), so this is what tells which names are Z3's.
fn z3_names(sources: &[&str]) -> Vec<String> {
    const AST: [&str; 10] = [
        "Int", "Real", "Bool", "BV", "Float", "Array", "Set", "Seq", "Dynamic", "Datatype",
    ];
    const TOP: [&str; 7] = [
        "Solver", "Optimize", "Model", "FuncDecl", "Sort", "Params", "Context",
    ];
    let mut names = Vec::new();
    for source in sources {
        for stmt in source.split(';') {
            let code: Vec<&str> = stmt
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            let code = code.join(" ");
            let Some(path) = code.trim().strip_prefix("use ") else {
                continue;
            };
            let Some(at) = path.find("z3::").map(|i| i + "z3::".len()) else {
                continue;
            };
            let rest = path[at..].trim();
            // `ast::{Int, Real}` or `ast::Int` or `ast::*`: the module, then the items.
            let (module, items) = match rest.find('{') {
                Some(i) => (&rest[..i], rest[i + 1..].trim_end_matches('}')),
                None => match rest.rfind("::") {
                    Some(i) => (&rest[..i], &rest[i + 2..]),
                    None => ("", rest),
                },
            };
            for item in items.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                if item == "*" {
                    let all: &[&str] = if module.contains("ast") { &AST } else { &TOP };
                    names.extend(all.iter().map(|n| n.to_string()));
                } else {
                    // `Int as Z3Int` brings in `Z3Int`; `ast::Int` brings in `Int`.
                    let name = item.split_whitespace().last().unwrap_or(item);
                    names.push(name.rsplit("::").next().unwrap_or(name).to_string());
                }
            }
        }
    }
    names.retain(|n| !Z3_PLAIN_DATA.contains(&n.as_str()));
    names.sort();
    names.dedup();
    names
}

/// Types of the `z3` crate that are plain data, with no Z3 context inside
/// (a check's answer, kinds of terms): safe to keep across cells.
const Z3_PLAIN_DATA: [&str; 7] = [
    "SatResult",
    "DeclKind",
    "SortKind",
    "AstKind",
    "GoalPrecision",
    "ParamKind",
    "Version",
];

/// Whether a type, as evcxr names it, is or contains one of the `z3` crate's:
/// a path through `z3::`, or one of `z3_names` (`Int`, `Vec<Real>`, …).
fn holds_z3(ty: &str, z3_names: &[String]) -> bool {
    let z3_path = ty.match_indices("z3::").any(|(i, _)| {
        let item = ty[i..]
            .split(|c: char| !c.is_alphanumeric() && c != '_' && c != ':')
            .next()
            .unwrap_or_default();
        !Z3_PLAIN_DATA.contains(&item.rsplit("::").next().unwrap_or_default())
    });
    z3_path
        || ty
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|word| z3_names.iter().any(|n| n == word))
}

/// What to tell a reader about variables that hold Z3 values.
pub fn z3_hint(vars: &[(String, String)]) -> String {
    let held: Vec<String> = vars
        .iter()
        .map(|(n, ty)| format!("`{n}` holds a Z3 value (of type `{ty}`)"))
        .collect();
    format!(
        "{}. Z3 values cannot be used in a later cell, because each cell has its own Z3 context: build it inside a `fn`, or in the cell that solves.",
        held.join(", ")
    )
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

/// A cell's outputs as nbformat stores them: stdout, stderr, then its value.
fn outputs(stdout: Vec<String>, stderr: Vec<String>, value: evcxr::EvalOutputs) -> Vec<Output> {
    let mut outputs = Vec::new();
    for (name, lines) in [("stdout", stdout), ("stderr", stderr)] {
        if !lines.is_empty() {
            let mut text = lines.join("\n");
            text.push('\n');
            outputs.push(Output::Stream {
                name: name.into(),
                text,
            });
        }
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

fn run_cells(
    mut engine: Engine,
    nb: &Notebook,
    label: &str,
    limits: CellLimits,
    progress: &mut impl FnMut(Progress<'_>),
) -> Result<Vec<Vec<Output>>, ExecError> {
    let total = nb.code_cells().count();
    let mut all = Vec::with_capacity(total);
    // Variables that held Z3 values after an earlier cell.
    let mut z3_vars: Vec<(String, String)> = Vec::new();
    let mut sources: Vec<&str> = Vec::new();
    for (index, (position, cell)) in nb.code_cells().enumerate() {
        debug_assert_eq!(cell.kind, CellKind::Code);
        let index = index + 1;
        let name = cell.name.clone().unwrap_or_else(|| format!("cell-{index}"));
        let cell_label = match &cell.name {
            Some(n) => format!("code cell {index}, {n:?}"),
            None => format!("code cell {index}"),
        };
        progress(Progress::Start { index, name: &name });
        let (outputs, stats) = match engine.run(&cell.source, limits.timeout) {
            Ok(done) => done,
            Err(CellFailure::Failed(message)) => {
                let mut message = strip_ansi(message.trim_end());
                if !z3_vars.is_empty() && crashed(&message) {
                    message.push_str(&format!(
                        "\nThe cell crashed after an earlier cell left Z3 values in variables: {}",
                        z3_hint(&z3_vars)
                    ));
                }
                return Err(ExecError::Cell {
                    notebook: label.to_string(),
                    cell: position,
                    label: cell_label,
                    message,
                });
            }
            Err(CellFailure::OutOfMemory(message)) => {
                return Err(ExecError::Memory {
                    notebook: label.to_string(),
                    cell: position,
                    label: cell_label,
                    limit: limits.memory.map_or("none".into(), memory_text),
                    message: strip_ansi(message.trim_end()),
                })
            }
            Err(CellFailure::Timeout) => {
                return Err(ExecError::Timeout {
                    notebook: label.to_string(),
                    cell: position,
                    label: cell_label,
                    seconds: limits.timeout.as_secs(),
                })
            }
            Err(CellFailure::Interrupted) => {
                return Err(ExecError::Interrupted {
                    notebook: label.to_string(),
                    cell: position,
                    label: cell_label,
                })
            }
        };
        sources.push(&cell.source);
        let held = z3_variables(&engine.ctx, &sources);
        if !held.is_empty() && held != z3_vars {
            progress(Progress::Z3Values { index, vars: &held });
        }
        z3_vars = held;
        progress(Progress::Done {
            index,
            outputs: &outputs,
            stats,
        });
        all.push(outputs);
    }
    Ok(all)
}

/// Whether a cell's failure is the evcxr process dying of a signal such as
/// SIGSEGV, as it does when a Z3 value from another cell is used.
pub fn crashed(message: &str) -> bool {
    message.contains("SIGSEGV")
        || message.contains("signal: 11")
        || message.contains("Segmentation fault")
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

    #[test]
    fn ansi_codes_are_stripped() {
        assert_eq!(strip_ansi("\u{1b}[1;31merror\u{1b}[0m: x"), "error: x");
        assert_eq!(strip_ansi("plain"), "plain");
    }

    #[test]
    fn z3_types_are_recognised_and_named_in_the_hint() {
        let names = z3_names(&[
            "use puzzlebook::prelude::*;\nuse puzzlebook::z3::ast::{Ast, Bool, Int as I};",
            "// Z3's solver:\nuse puzzlebook::z3::Solver;\nlet x = 1;",
            "use puzzlebook::z3::ast::*;",
        ]);
        for n in ["Ast", "Bool", "I", "Solver", "Real", "Dynamic"] {
            assert!(names.contains(&n.to_string()), "{n} in {names:?}");
        }
        assert_eq!(
            z3_names(&["use puzzlebook::z3::ast::Int as Z3Int;"]),
            ["Z3Int"]
        );
        assert_eq!(
            z3_names(&["use puzzlebook::z3::{ast::Int, Solver};"]),
            ["Int", "Solver"]
        );
        assert!(holds_z3("z3::ast::Int", &[]));
        assert!(holds_z3("Vec<Real>", &names));
        assert!(holds_z3("(Solver, Vec<Real>, Vec<I>)", &names));
        assert!(!holds_z3("DataFrame", &names));
        assert!(!holds_z3("Vec<i64>", &names));
        // A check's answer is plain data, however it is named.
        let names = z3_names(&["use puzzlebook::z3::{SatResult, Solver};"]);
        assert_eq!(names, ["Solver"]);
        assert!(!holds_z3("(SatResult, Option<Vec<[i64; 3]>>)", &names));
        assert!(!holds_z3("z3::SatResult", &names));
        assert!(holds_z3("(z3::SatResult, z3::Solver)", &names));
        assert!(z3_names(&["use puzzlebook::prelude::*;"]).is_empty());
        let hint = z3_hint(&[("x".into(), "z3::ast::Int".into())]);
        assert!(
            hint.starts_with(
                "`x` holds a Z3 value (of type `z3::ast::Int`). Z3 values cannot be used in a later cell"
            ),
            "{hint}"
        );
        assert!(crashed(
            "Subprocess terminated with status: signal: 11 (SIGSEGV)"
        ));
        assert!(!crashed("error[E0308]: mismatched types"));
    }
}
