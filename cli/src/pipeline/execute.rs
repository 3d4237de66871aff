//! Executing a notebook's code cells in order through `evcxr::CommandContext`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use thiserror::Error;

use super::notebook::{CellKind, Notebook, Output};
use crate::engine::{engine_environment, EngineError};

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
    /// A cell finished with these outputs.
    Done {
        /// 1-based among code cells.
        index: usize,
        /// Its outputs.
        outputs: &'a [Output],
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
/// stops the run with an error naming `label` (the notebook) and the cell.
///
/// The caller must hold the [`crate::engine::BuildDirLock`] for `build_dir`.
pub fn execute(
    nb: &Notebook,
    label: &str,
    dir: &Path,
    build_dir: &Path,
    mut progress: impl FnMut(Progress<'_>),
) -> Result<Vec<Vec<Output>>, ExecError> {
    let engine = |message: String| ExecError::Engine {
        notebook: label.to_string(),
        message,
    };
    // evcxr reads these when the context starts; the child inherits the cwd.
    let config_dir = build_dir.join("config");
    std::fs::create_dir_all(&config_dir).map_err(|source| EngineError::Io {
        path: config_dir.clone(),
        source,
    })?;
    engine_environment(build_dir, &config_dir).map_err(engine)?;
    let previous_dir = std::env::current_dir().map_err(|e| engine(e.to_string()))?;
    std::env::set_current_dir(dir).map_err(|e| engine(format!("{}: {e}", dir.display())))?;
    // The cells run with the notebook's folder as the working directory: evcxr
    // resolves `:dep` paths against it, and the child process inherits it.
    let result = run_in_dir(nb, label, &mut progress);
    let _ = std::env::set_current_dir(&previous_dir);
    result
}

/// A started evcxr context and the readers of what its cells print.
struct Engine {
    ctx: evcxr::CommandContext,
    stdout: StdoutCollector,
    stderr: crossbeam_channel::Receiver<String>,
}

impl Engine {
    /// Starts evcxr with the runner's settings ([`crate::engine::init_commands`])
    /// and primes it ([`crate::engine::PRIME_QUESTION_MARK`]).
    fn start() -> Result<Engine, String> {
        let (mut ctx, channels) =
            evcxr::CommandContext::new().map_err(|e| strip_ansi(&e.to_string()))?;
        let stdout = StdoutCollector::start(channels.stdout);
        for command in crate::engine::init_commands().lines() {
            ctx.execute(command).map_err(|e| e.to_string())?;
        }
        ctx.execute(crate::engine::PRIME_QUESTION_MARK)
            .map_err(|e| format!("priming `?`: {e}"))?;
        stdout.take();
        let _ = channels.stderr.try_iter().count();
        Ok(Engine {
            ctx,
            stdout,
            stderr: channels.stderr,
        })
    }

    /// Runs one cell: its outputs, or the compiler's or runtime's message.
    fn run(&mut self, source: &str) -> Result<Vec<Output>, String> {
        let result = self.ctx.execute(source);
        let stdout: Vec<String> = self.stdout.take();
        // Give the stderr reader thread a moment to deliver a panic message.
        std::thread::sleep(Duration::from_millis(20));
        let stderr: Vec<String> = self.stderr.try_iter().collect();
        let evaluated = result.map_err(|e| failure_message(e, &stderr))?;
        if let Some(p) = stderr.iter().position(|l| l.contains("panicked at")) {
            return Err(stderr[p..].join("\n"));
        }
        Ok(outputs(stdout, stderr, evaluated))
    }
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

fn run_in_dir(
    nb: &Notebook,
    label: &str,
    progress: &mut impl FnMut(Progress<'_>),
) -> Result<Vec<Vec<Output>>, ExecError> {
    let mut engine = Engine::start().map_err(|message| ExecError::Engine {
        notebook: label.to_string(),
        message,
    })?;
    let total = nb.code_cells().count();
    let mut all = Vec::with_capacity(total);
    for (index, (position, cell)) in nb.code_cells().enumerate() {
        debug_assert_eq!(cell.kind, CellKind::Code);
        let index = index + 1;
        let name = cell.name.clone().unwrap_or_else(|| format!("cell-{index}"));
        progress(Progress::Start { index, name: &name });
        let outputs = engine
            .run(&cell.source)
            .map_err(|message| ExecError::Cell {
                notebook: label.to_string(),
                cell: position,
                label: match &cell.name {
                    Some(n) => format!("code cell {index}, {n:?}"),
                    None => format!("code cell {index}"),
                },
                message: strip_ansi(message.trim_end()),
            })?;
        progress(Progress::Done {
            index,
            outputs: &outputs,
        });
        all.push(outputs);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_codes_are_stripped() {
        assert_eq!(strip_ansi("\u{1b}[1;31merror\u{1b}[0m: x"), "error: x");
        assert_eq!(strip_ansi("plain"), "plain");
    }
}
