//! Executing a notebook's code cells in order through `evcxr::CommandContext`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;

use super::notebook::{CellKind, Notebook, Output};

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
    /// Another run holds the evcxr build folder.
    #[error("another puzzlebook run is using the evcxr build folder {0}; wait for it to finish, or set EVCXR_TMPDIR to another folder")]
    Busy(PathBuf),
    /// The build folder could not be prepared.
    #[error("cannot prepare the evcxr build folder {path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// What happens as a notebook runs, for progress display and streaming output.
#[derive(Debug)]
pub enum Progress<'a> {
    /// Code cell `index` (1-based) of `total` is starting.
    Start {
        /// 1-based among code cells.
        index: usize,
        /// The number of code cells.
        total: usize,
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

/// The evcxr build folder: `EVCXR_TMPDIR` if set, else `<cache>/puzzlebook/evcxr`,
/// where `<cache>` is `XDG_CACHE_HOME` or `~/.cache`.
pub fn evcxr_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("EVCXR_TMPDIR") {
        return PathBuf::from(d);
    }
    cache_dir().join("evcxr")
}

/// `<cache>/puzzlebook`.
pub fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("puzzlebook")
}

/// Holds the lock on an evcxr build folder: one evcxr at a time per folder.
#[derive(Debug)]
pub struct BuildDirLock {
    _file: std::fs::File,
    /// The folder.
    pub dir: PathBuf,
    /// Whether the folder was empty (a cold build is ahead).
    pub cold: bool,
}

impl BuildDirLock {
    /// Locks `dir` (creating it), or refuses at once if another run holds it.
    pub fn acquire(dir: &Path) -> Result<BuildDirLock, ExecError> {
        let io = |source| ExecError::Io {
            path: dir.to_path_buf(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let cold = !dir.join("target").exists();
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("puzzlebook.lock"))
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => Ok(BuildDirLock {
                _file: file,
                dir: dir.to_path_buf(),
                cold,
            }),
            Err(std::fs::TryLockError::WouldBlock) => Err(ExecError::Busy(dir.to_path_buf())),
            Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
        }
    }
}

/// The folder holding the toolchain's `libstd-*.so`:
/// `<sysroot>/lib/rustlib/<host>/lib`, from `rustc --print sysroot` and `rustc -vV`.
pub fn rust_dylib_dir() -> Result<PathBuf, String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let run = |args: &[&str]| -> Result<String, String> {
        let out = std::process::Command::new(&rustc)
            .args(args)
            .output()
            .map_err(|e| format!("cannot run rustc: {e}"))?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let sysroot = run(&["--print", "sysroot"])?.trim().to_string();
    let host = run(&["-vV"])?
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .ok_or("rustc -vV names no host")?;
    Ok(Path::new(&sysroot)
        .join("lib/rustlib")
        .join(host)
        .join("lib"))
}

/// Lets the evcxr child process find `libstd-*.so`.
///
/// evcxr compiles each cell to a shared object that links the standard library
/// dynamically, and finds it through a relative rpath computed for the `deps/`
/// folder. evcxr 0.22 loads the copy one folder up, so in a build folder deeper
/// than `/tmp/x` the relative path misses and `dlopen` fails. Putting the
/// toolchain's library folder on `LD_LIBRARY_PATH` makes any depth work.
fn add_rust_dylib_dir() -> Result<(), String> {
    let dir = rust_dylib_dir()?;
    let mut paths = vec![dir.clone()];
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        paths.extend(std::env::split_paths(&old).filter(|p| *p != dir));
    }
    let joined = std::env::join_paths(paths).map_err(|e| e.to_string())?;
    std::env::set_var("LD_LIBRARY_PATH", joined);
    Ok(())
}

/// Sets the process environment an evcxr engine started from this process needs:
/// its build folder (`EVCXR_TMPDIR`), its config folder (`EVCXR_CONFIG_DIR`),
/// no inherited cargo target folder, and the toolchain's library folder on
/// `LD_LIBRARY_PATH`.
///
/// Call it before evcxr starts, while the process has one thread: the runner
/// and the Jupyter kernel both do.
pub fn engine_environment(build_dir: &Path, config_dir: &Path) -> Result<(), String> {
    std::env::set_var("EVCXR_TMPDIR", build_dir);
    // evcxr looks for the cells it builds under its own folder; a target folder
    // inherited from the caller (CI sets one) would send them elsewhere.
    std::env::remove_var("CARGO_TARGET_DIR");
    std::env::remove_var("CARGO_BUILD_TARGET_DIR");
    add_rust_dylib_dir()?;
    std::env::set_var("EVCXR_CONFIG_DIR", config_dir);
    Ok(())
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

/// The optimisation level cells and their dependencies are compiled at.
///
/// Level 0 compiles polars and z3 several times faster than evcxr's default 2,
/// and the notebooks' data are small, so results come sooner.
pub const OPT_LEVEL: &str = "0";

/// Runs every code cell of `nb` in order in a fresh evcxr context whose working
/// directory is `dir`; returns each code cell's outputs. The first failing cell
/// stops the run with an error naming `label` (the notebook) and the cell.
///
/// The caller must hold the [`BuildDirLock`] for `build_dir`.
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
    std::fs::create_dir_all(&config_dir).map_err(|source| ExecError::Io {
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

fn run_in_dir(
    nb: &Notebook,
    label: &str,
    progress: &mut impl FnMut(Progress<'_>),
) -> Result<Vec<Vec<Output>>, ExecError> {
    let engine = |message: String| ExecError::Engine {
        notebook: label.to_string(),
        message,
    };
    let (mut ctx, channels) =
        evcxr::CommandContext::new().map_err(|e| engine(strip_ansi(&e.to_string())))?;
    let stdout = StdoutCollector::start(channels.stdout);
    ctx.set_opt_level(OPT_LEVEL)
        .map_err(|e| engine(e.to_string()))?;

    let total = nb.code_cells().count();
    let mut all = Vec::with_capacity(total);
    for (index, (position, cell)) in nb.code_cells().enumerate() {
        debug_assert_eq!(cell.kind, CellKind::Code);
        let index = index + 1;
        let name = cell.name.clone().unwrap_or_else(|| format!("cell-{index}"));
        progress(Progress::Start {
            index,
            total,
            name: &name,
        });
        let fail = |message: String| ExecError::Cell {
            notebook: label.to_string(),
            cell: position,
            label: match &cell.name {
                Some(n) => format!("code cell {index}, {n:?}"),
                None => format!("code cell {index}"),
            },
            message: strip_ansi(message.trim_end()),
        };
        let result = ctx.execute(&cell.source);
        let stdout: Vec<String> = stdout.take();
        // Give the stderr reader thread a moment to deliver a panic message.
        std::thread::sleep(Duration::from_millis(20));
        let stderr: Vec<String> = channels.stderr.try_iter().collect();
        let evaluated = match result {
            Ok(o) => o,
            Err(evcxr::Error::CompilationErrors(errors)) => {
                let text: Vec<String> = errors
                    .iter()
                    .map(|e| {
                        let r = e.rendered();
                        if r.trim().is_empty() {
                            e.message()
                        } else {
                            r
                        }
                    })
                    .collect();
                return Err(fail(text.join("\n")));
            }
            Err(e) => {
                let mut m = e.to_string();
                if !stderr.is_empty() {
                    m.push('\n');
                    m.push_str(&stderr.join("\n"));
                }
                return Err(fail(m));
            }
        };
        if let Some(p) = stderr.iter().position(|l| l.contains("panicked at")) {
            return Err(fail(stderr[p..].join("\n")));
        }
        let mut outputs = Vec::new();
        if !stdout.is_empty() {
            let mut text = stdout.join("\n");
            text.push('\n');
            outputs.push(Output::Stream {
                name: "stdout".into(),
                text,
            });
        }
        if !stderr.is_empty() {
            let mut text = stderr.join("\n");
            text.push('\n');
            outputs.push(Output::Stream {
                name: "stderr".into(),
                text,
            });
        }
        if !evaluated.content_by_mime_type.is_empty() {
            let data: BTreeMap<String, String> = evaluated
                .content_by_mime_type
                .into_iter()
                .map(|(k, v)| (k, strip_ansi(&v)))
                .collect();
            outputs.push(Output::ExecuteResult { data });
        }
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

    #[test]
    fn a_held_build_dir_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let first = BuildDirLock::acquire(d.path()).unwrap();
        assert!(first.cold);
        let second = BuildDirLock::acquire(d.path()).unwrap_err();
        assert!(
            second.to_string().contains("another puzzlebook run"),
            "{second}"
        );
        drop(first);
        BuildDirLock::acquire(d.path()).unwrap();
    }
}
