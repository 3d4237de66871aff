//! `grade`'s runs, each submission in a sandbox of its own ([`super::sandbox`]):
//! the grader's end, which hands a job in, bounds its time and reads its
//! results back; and the end inside, `puzzlebook grade-job`, which runs it.
//!
//! Inside, the results leave on the job process's standard output, which it
//! keeps to itself: the cells' process and what it starts get neither that
//! descriptor nor, the job process being not dumpable, a way into it. What
//! the cells print is only ever text in those results.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressDrawTarget};
use puzzlebook::grade::handed;
use serde::{Deserialize, Serialize};

use super::paths::Project;
use super::progress::bar;
use super::sandbox::{Sandbox, SandboxError};
use super::RunnerError;
use crate::engine::{self, EngineScope};
use crate::notebook::ipynb::Notebook;
use crate::runner::execute::{self, CellLimits, CellResults, Progress};
use crate::runner::handover;

/// The most bytes of results read back from one run: every cell's two
/// streams at their cap, and room for JSON's escapes.
const RESULTS_CAP: u64 = 512 << 20;

/// How much of a run's own standard error is kept, to say why it failed.
const STDERR_TAIL: usize = 16 << 10;

/// How a progress line starts on the job's standard error.
const PROGRESS: &str = "puzzlebook-grade-job: cell ";

/// What the job process is handed, as `job.json` in its folder.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JobFile {
    label: String,
    notebook: String,
    build_dir: PathBuf,
    timeout_seconds: u64,
    memory: Option<u64>,
    /// The variable through which the cells hand over, in the job's
    /// [`HAND_OVER`] folder: answers, or the reference.
    hand_over: String,
}

/// The job folder's folder in which the cells hand answers or the
/// reference over ([`puzzlebook::grade::handed`]).
const HAND_OVER: &str = "hand-over";

/// A notebook to run in a sandbox.
#[derive(Clone)]
pub(super) struct Job<'a> {
    /// Where the caller keeps it.
    pub index: usize,
    /// Its path as shown.
    pub label: &'a str,
    /// The notebook, its `:dep` paths absolute.
    pub nb: &'a Notebook,
    /// What its cells hand over: answers
    /// ([`puzzlebook::grade::handed::HAND_IN_VAR`]) or the reference
    /// ([`puzzlebook::grade::handed::REFERENCE_VAR`]).
    pub hand_over: &'static str,
    /// Whether the rest are worth running only if this one runs cleanly:
    /// when it fails, or one of its cells does, no job starts after it.
    pub vital: bool,
    /// The grade's seed, written into its hand-over folder.
    pub seed: u64,
}

/// What a run handed over, by exercise: the bytes of its file, none, or why
/// it could not be read.
pub(super) type HandedOver = BTreeMap<String, Result<Option<Vec<u8>>, String>>;

/// A run's cells and what it handed over.
pub(super) struct Ran {
    /// Each code cell's outputs or failure.
    pub cells: CellResults,
    /// The files of the exercises asked for.
    pub handed: HandedOver,
}

/// The files of `exercises` in `dir`, as the cells left them; read once
/// every process that could write them has ended. A `dir` that is not a
/// folder (a link planted in its place) holds nothing.
pub(super) fn read_handed(dir: &Path, exercises: &[String]) -> HandedOver {
    let is_folder = std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir());
    exercises
        .iter()
        .map(|id| {
            let read = match is_folder {
                // Without the folder's path, which means nothing to a
                // student and differs from run to run.
                true => handed::read_bytes(dir, id).map_err(|e| match e {
                    handed::HandedError::Io { source, .. } => source.to_string(),
                    other => other.to_string(),
                }),
                false => Ok(None),
            };
            (id.clone(), read)
        })
        .collect()
}

/// What each sandbox may see besides the build folder: read-only paths,
/// and hidden ones.
pub(super) struct Seen {
    /// The crates the notebooks' `:dep` lines name, and the toolchain.
    pub read_only: Vec<PathBuf>,
    /// The source notebook, the submissions, the output folder.
    pub hidden: Vec<PathBuf>,
}

/// Whether a run went through cleanly: every cell ran, and every exercise
/// asked for was handed over.
pub(super) fn ran_cleanly(ran: &Result<Ran, String>) -> bool {
    ran.as_ref().is_ok_and(|r| {
        r.cells.iter().all(Result::is_ok) && r.handed.values().all(|h| matches!(h, Ok(Some(_))))
    })
}

/// Runs each job in its own sandbox under `folder`, up to `project.jobs`
/// at once, in their order, over the built folder `base` (which the caller
/// holds), and returns each one's cells and the files of `exercises` it
/// handed over, or why it has none, by index. An interrupt kills every
/// running sandbox and starts no more; so does a [`Job::vital`] job that did
/// not run cleanly ([`ran_cleanly`]), though the runs already going finish.
pub(super) fn run_all(
    project: &Project,
    base: &Path,
    folder: &Path,
    jobs: &[Job<'_>],
    seen: &Seen,
    exercises: &[String],
) -> Vec<(usize, Result<Ran, String>)> {
    let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
    let run = |job: &Job<'_>| {
        let pb = multi.add(bar(job.label, job.nb.code_cells().count()));
        let private = folder.join(job.index.to_string());
        let out = run_one(project, base, &private, job, seen, &pb).map(|cells| Ran {
            cells,
            handed: read_handed(&private.join("job").join(HAND_OVER), exercises),
        });
        // Gone at once: what one run wrote must not fill the disk for the
        // runs after it.
        make_removable(&private);
        let _ = std::fs::remove_dir_all(&private);
        pb.finish_and_clear();
        out
    };
    schedule(jobs, project.jobs, run, stops)
        .into_iter()
        .map(|(i, out)| (jobs[i].index, out))
        .collect()
}

/// Whether no job may start after `job`, which ended with `out`: an
/// interrupt came, or it was vital and did not run cleanly.
fn stops(job: &Job<'_>, out: &Result<Ran, String>) -> bool {
    engine::interrupted() || (job.vital && !ran_cleanly(out))
}

/// `run` on each of `jobs`, up to `at_once` at a time, started in their
/// order; once `stops` says so of a job's result, or an interrupt came, none
/// starts after that is known (one already taken from the list still runs).
/// Each result comes with its job's place in `jobs`, in that order.
fn schedule<J: Sync, R: Send>(
    jobs: &[J],
    at_once: usize,
    run: impl Fn(&J) -> R + Sync,
    stops: impl Fn(&J, &R) -> bool + Sync,
) -> Vec<(usize, R)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..at_once.clamp(1, jobs.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(i) else { break };
                if stop.load(Ordering::SeqCst) || engine::interrupted() {
                    break;
                }
                let out = run(job);
                if stops(job, &out) {
                    stop.store(true, Ordering::SeqCst);
                }
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, out));
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(i, _)| *i);
    results
}

/// Every folder under `dir` made the owner's to list and delete again, so
/// that the grader's temporary folder can be removed whatever a run left
/// there (a folder it made unreadable, say). Best effort: what fails stays.
fn make_removable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return;
    };
    if !meta.is_dir() {
        return;
    }
    let mode = meta.permissions().mode();
    if mode & 0o700 != 0o700 {
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode | 0o700));
    }
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        make_removable(&e.path());
    }
}

/// The environment a sandbox gets: what finds the toolchain, the system's
/// libraries and Z3, and no more of the grader's. It keeps what cargo's
/// fingerprints read (the flags, `RUSTC_BOOTSTRAP`): the warm-up built the
/// crates outside with the grader's, and a sandbox without them would build
/// every one again, in its own view, for each submission.
fn environment(job: &Path) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    const PASSED: [&str; 14] = [
        "PATH",
        "LD_LIBRARY_PATH",
        "LIBRARY_PATH",
        "RUSTUP_HOME",
        "RUSTUP_TOOLCHAIN",
        "CARGO_HOME",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC_BOOTSTRAP",
        "Z3_SYS_Z3_HEADER",
        "Z3_LIBRARY_PATH_OVERRIDE",
        "PKG_CONFIG_PATH",
        "LANG",
        "LC_ALL",
    ];
    let mut env: Vec<_> = PASSED
        .iter()
        .filter_map(|name| Some((name.into(), std::env::var_os(name)?)))
        .collect();
    // Found where the grader finds them, though HOME moves.
    if std::env::var_os("RUSTUP_HOME").is_none() {
        env.push(("RUSTUP_HOME".into(), rustup_home().into()));
    }
    if std::env::var_os("CARGO_HOME").is_none() {
        env.push(("CARGO_HOME".into(), cargo_home().into()));
    }
    // The grader's copy of the standard library's sources, which the
    // sandbox sees read-only (environment_paths): one copy for every run.
    // Used there as it is: were it not a copy (the grader could not make
    // one), a copy made in each sandbox would cost every run the time saved.
    // Without a toolchain no path is handed, and each run says what is
    // missing, as the grader's own engine does, making no copy either.
    if let Ok(sources) = engine::rust_analyzer_sources() {
        env.push(("RUST_SRC_PATH".into(), sources.into()));
    }
    env.push((engine::std_sources::AS_IS_VAR.into(), "1".into()));
    // There is no network: cargo must not try it (the build folder's own
    // config allows it, for the first build outside), and the variable
    // comes before any config file.
    env.push(("CARGO_NET_OFFLINE".into(), "true".into()));
    env.push(("HOME".into(), job.join("home").into()));
    env.push(("TMPDIR".into(), "/tmp".into()));
    env
}

fn home() -> PathBuf {
    std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from)
}

/// rustup's folder: `RUSTUP_HOME`, else `~/.rustup`.
pub(super) fn rustup_home() -> PathBuf {
    std::env::var_os("RUSTUP_HOME").map_or_else(|| home().join(".rustup"), PathBuf::from)
}

/// cargo's folder: `CARGO_HOME`, else `~/.cargo`.
pub(super) fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME").map_or_else(|| home().join(".cargo"), PathBuf::from)
}

/// The folders the environment's search paths name (the libraries, Z3's
/// header), which a sandbox must see.
pub(super) fn environment_paths() -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for name in ["PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "PKG_CONFIG_PATH"] {
        if let Some(v) = std::env::var_os(name) {
            paths.extend(std::env::split_paths(&v).filter(|p| p.is_absolute()));
        }
    }
    // The header's folder, and the library's folder itself.
    if let Some(v) = std::env::var_os("Z3_SYS_Z3_HEADER") {
        let p = PathBuf::from(v);
        if let Some(dir) = p.parent().filter(|_| p.is_absolute()) {
            paths.push(dir.to_path_buf());
        }
    }
    if let Some(v) = std::env::var_os("Z3_LIBRARY_PATH_OVERRIDE") {
        let p = PathBuf::from(v);
        if p.is_absolute() {
            paths.push(p);
        }
    }
    // The copy of the standard library's sources that rust-analyzer reads
    // (engine::std_sources), in the grader's cache.
    paths.extend(engine::rust_analyzer_sources().ok());
    paths.push(rustup_home());
    paths
}

/// One job in its sandbox, in the private folder `private`.
fn run_one(
    project: &Project,
    base: &Path,
    private: &Path,
    job: &Job<'_>,
    seen: &Seen,
    pb: &indicatif::ProgressBar,
) -> Result<CellResults, String> {
    let job_dir = private.join("job");
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    let mut read_only = seen.read_only.clone();
    read_only.push(exe.clone());
    let sandbox = Sandbox {
        private: private.to_path_buf(),
        // cargo writes its lock and caches under CARGO_HOME, if it has one.
        copy_on_write: std::iter::once(base.to_path_buf())
            .chain(Some(cargo_home()).filter(|p| p.is_dir()))
            .collect(),
        read_only,
        hidden: seen.hidden.clone(),
        job: job_dir.clone(),
        env: environment(&job_dir),
    };
    let cannot = |what: &str, e: std::io::Error| format!("cannot {what} for its sandbox: {e}");
    sandbox
        .prepare()
        .map_err(|e| cannot("make the folders", e))?;
    std::fs::create_dir_all(job_dir.join(HAND_OVER))
        .and_then(|()| puzzlebook::grade::inputs::write_seed(&job_dir.join(HAND_OVER), job.seed))
        .map_err(|e| cannot("make the hand-over folder", e))?;
    let file = JobFile {
        label: job.label.to_string(),
        notebook: job.nb.to_json(),
        build_dir: base.to_path_buf(),
        timeout_seconds: project.limits.timeout.as_secs(),
        memory: project.limits.memory,
        hand_over: job.hand_over.to_string(),
    };
    std::fs::write(
        job_dir.join("job.json"),
        serde_json::to_string(&file).expect("plain data serializes"),
    )
    .map_err(|e| cannot("write the job", e))?;
    let mut child = sandbox
        .command(&exe, &["grade-job".as_ref(), job_dir.as_os_str()])
        .map_err(|e| e.to_string())?
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| SandboxError::Unavailable {
            why: format!("cannot run prlimit: {e}"),
        })
        .map_err(|e| e.to_string())?;
    let mut stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let results = std::thread::spawn(move || {
        let mut text = Vec::new();
        let read = (&mut stdout).take(RESULTS_CAP + 1).read_to_end(&mut text);
        // Drain the rest, so the run never blocks on a full pipe.
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        read.map(|_| text)
    });
    let pb_for_errors = pb.clone();
    let tail = std::thread::spawn(move || read_stderr(stderr, &pb_for_errors));
    // Each cell has its timeout inside; this bounds the whole run, should
    // the job process itself be stopped.
    let cells = job.nb.code_cells().count() as u32;
    let allowed = project
        .limits
        .timeout
        .saturating_mul(cells.saturating_add(2));
    let deadline = Instant::now().checked_add(allowed);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => {
                let _ = child.kill();
                break Err(format!("cannot wait for its sandbox: {e}"));
            }
        }
        if engine::interrupted() {
            let _ = child.kill();
            let _ = child.wait();
            return Err("interrupted".into());
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            let _ = child.kill();
            let _ = child.wait();
            break Err(format!(
                "its run was still going after {} s, {} cell timeouts, so its sandbox was ended",
                allowed.as_secs(),
                cells.saturating_add(2)
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = results.join().expect("the reader does not panic");
    let tail = tail.join().expect("the reader does not panic");
    let status = status?;
    let text = text.map_err(|e| format!("cannot read its results: {e}"))?;
    if text.len() as u64 > RESULTS_CAP {
        return Err(format!(
            "its results were larger than {}",
            crate::limits::memory_text(RESULTS_CAP)
        ));
    }
    if !status.success() || text.is_empty() {
        return Err(format!(
            "its run ended ({status}) without results{}",
            match tail.trim() {
                "" => String::new(),
                said => format!(":\n{said}"),
            }
        ));
    }
    let text = String::from_utf8(text).map_err(|_| "its results are not UTF-8".to_string())?;
    handover::from_json(&text).map_err(|e| e.to_string())
}

/// The job's standard error: progress lines move the bar; the last
/// [`STDERR_TAIL`] bytes of the rest are kept.
fn read_stderr(stderr: impl Read, pb: &indicatif::ProgressBar) -> String {
    let mut tail = String::new();
    let mut lines = std::io::BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match std::io::BufRead::read_until(&mut (&mut lines).take(1 << 20), b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        if let Some(n) = text.trim_end().strip_prefix(PROGRESS) {
            if let Ok(n) = n.parse::<u64>() {
                pb.set_position(n);
            }
            continue;
        }
        tail.push_str(&text);
        if tail.len() > 2 * STDERR_TAIL {
            let mut cut = tail.len() - STDERR_TAIL;
            while !tail.is_char_boundary(cut) {
                cut += 1;
            }
            tail.drain(..cut);
        }
    }
    tail
}

/// `puzzlebook grade-job DIR`, inside a sandbox: runs the notebook of
/// `DIR/job.json` past its failing cells and writes its results on
/// standard output.
pub fn run_job(dir: &Path) -> Result<(), RunnerError> {
    let io = |path: &Path, source| crate::notebook::io::IoError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = dir.join("job.json");
    let text = std::fs::read_to_string(&file).map_err(|e| io(&file, e))?;
    // Read before any cell runs, and gone before one does.
    std::fs::remove_file(&file).map_err(|e| io(&file, e))?;
    let job: JobFile = serde_json::from_str(&text).map_err(|e| {
        io(
            &file,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    })?;
    let nb = Notebook::parse(&job.notebook).map_err(|e| {
        io(
            &file,
            std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
        )
    })?;
    let alone = reap_as_process_1()?;
    let mut results = keep_stdout()?;
    let limits = CellLimits {
        timeout: Duration::from_secs(job.timeout_seconds),
        memory: job.memory,
        alone_in_namespace: alone,
    };
    let mut scope = EngineScope::enter()?;
    scope.chdir(&dir.join("work"))?;
    let var = [handed::HAND_IN_VAR, handed::REFERENCE_VAR]
        .into_iter()
        .find(|v| *v == job.hand_over)
        .ok_or_else(|| {
            io(
                &file,
                std::io::Error::new(std::io::ErrorKind::InvalidData, "no hand-over variable"),
            )
        })?;
    scope.hand_over(var, &dir.join(HAND_OVER));
    let started = execute::start(&mut scope, &job.label, &job.build_dir, limits)?;
    let mut progress = |p: Progress<'_>| {
        if let Progress::Done { index, .. } = p {
            eprintln!("{PROGRESS}{index}");
        }
    };
    let cells =
        execute::run_started_past_failures(started, &nb, &job.label, limits, &mut progress)?;
    write_results(&mut results, handover::to_json(&cells).as_bytes())
}

/// Writes a job's results, whole, on `out` (its standard output).
pub(super) fn write_results(out: &mut impl Write, bytes: &[u8]) -> Result<(), RunnerError> {
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| {
            crate::notebook::io::IoError::Write {
                path: PathBuf::from("standard output"),
                source: e,
            }
            .into()
        })
}

/// In its sandbox this program is process 1 (`--as-pid-1`), to which every
/// orphan falls. So it forks: the child goes on to run the job, and process
/// 1 closes what it holds of the run's (the results' pipe) and waits for
/// every process that ends until the job has, then ends with the job's
/// status, and the sandbox with it. Elsewhere it does nothing. Whether it
/// forked: the job is then alone in the namespace under its own process 1.
fn reap_as_process_1() -> Result<bool, RunnerError> {
    if std::process::id() != 1 {
        return Ok(false);
    }
    // SAFETY: process 1 calls only `close`, `waitpid` and `_exit` after the
    // fork, which are async-signal-safe.
    unsafe {
        if libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 {
            return Err(os_failure("prctl"));
        }
        let job = libc::fork();
        if job < 0 {
            return Err(os_failure("fork"));
        }
        if job == 0 {
            return Ok(true);
        }
        libc::close(0);
        libc::close(1);
        loop {
            let mut status = 0;
            let pid = libc::waitpid(-1, &mut status, 0);
            if pid == job {
                libc::_exit(if libc::WIFEXITED(status) {
                    libc::WEXITSTATUS(status)
                } else {
                    128 + libc::WTERMSIG(status)
                });
            }
            if pid < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(1);
            }
        }
    }
}

/// A failed call of the process's own, as the error of a run.
fn os_failure(what: &str) -> RunnerError {
    RunnerError::from(crate::notebook::io::IoError::Write {
        path: PathBuf::from("standard output"),
        source: std::io::Error::other(format!("{what}: {}", std::io::Error::last_os_error())),
    })
}

/// Standard output, moved to a descriptor no child inherits, with standard
/// error in its place; and this process made not dumpable, so that no other
/// process of the same user reads or writes it through `/proc`.
fn keep_stdout() -> Result<std::fs::File, RunnerError> {
    let failed = os_failure;
    // SAFETY: plain descriptor and process calls, before any thread starts.
    unsafe {
        if libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 {
            return Err(failed("prctl"));
        }
        let kept = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if kept < 0 {
            return Err(failed("fcntl"));
        }
        if libc::dup2(2, 1) < 0 {
            return Err(failed("dup2"));
        }
        Ok(std::fs::File::from_raw_fd(kept))
    }
}

/// The paths a `:dep` line of `nb` names (`path = "…"`), absolute ones.
pub(super) fn dep_paths(nb: &Notebook) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = nb
        .code_cells()
        .flat_map(|cell| {
            cell.cell
                .source
                .lines()
                .flat_map(line_paths)
                .collect::<Vec<_>>()
        })
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

/// The absolute paths one line names, if it is a `:dep` line (`path = "…"`).
pub(super) fn line_paths(line: &str) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if !line.trim_start().starts_with(":dep") {
        return paths;
    }
    let mut rest = line;
    while let Some(at) = rest.find("path") {
        rest = &rest[at + "path".len()..];
        let after = rest.trim_start();
        let Some(value) = after.strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        let Some(value) = value.strip_prefix('"') else {
            continue;
        };
        let Some(end) = value.find('"') else { continue };
        let p = PathBuf::from(&value[..end]);
        if p.is_absolute() {
            paths.push(p);
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sandbox_sees_the_grader_s_copy_of_the_standard_library_s_sources_read_only() {
        let t = tempfile::tempdir().unwrap();
        super::super::sandbox::check_available(&t.path().join("trial")).unwrap();
        // The copy every engine of this process shows rust-analyzer.
        let sources = engine::rust_analyzer_sources().unwrap();
        let job = t.path().join("p/job");
        std::fs::create_dir_all(&job).unwrap();
        // What `grade` gives each run of the environment's paths and
        // variables (what_is_seen, run_one).
        let s = Sandbox {
            private: t.path().join("p"),
            copy_on_write: Vec::new(),
            read_only: environment_paths()
                .into_iter()
                .filter_map(|p| p.canonicalize().ok())
                .collect(),
            hidden: Vec::new(),
            job: job.clone(),
            env: environment(&job),
        };
        s.prepare().unwrap();
        let script = format!(
            r#"echo "$RUST_SRC_PATH"
test -f "$RUST_SRC_PATH/{mark}" && test -f "$RUST_SRC_PATH/core/src/lib.rs" && echo seen
test -e "$RUST_SRC_PATH/stdarch/crates/core_arch/src/x86" || echo no-x86
touch "$RUST_SRC_PATH/core/x" 2>/dev/null && echo writable || echo read-only
test -w "$RUST_SRC_PATH/core/src/lib.rs" && echo file-writable || echo file-read-only
test -n "${as_is}" && echo used-as-is"#,
            mark = engine::std_sources::MARK,
            as_is = engine::std_sources::AS_IS_VAR,
        );
        let said = s.sh(&script);
        let sources = sources.display().to_string();
        assert_eq!(
            said.lines().collect::<Vec<_>>(),
            [
                sources.as_str(),
                "seen",
                "no-x86",
                "read-only",
                "file-read-only",
                "used-as-is"
            ]
        );
    }

    #[test]
    fn a_failed_vital_job_starts_no_more_and_a_failed_plain_one_stops_nothing() {
        use std::sync::Mutex;
        // (vital, fails)
        let jobs = [(false, true), (true, true), (false, false), (false, false)];
        let started = Mutex::new(Vec::new());
        let run = |job: &(bool, bool)| {
            started.lock().unwrap().push(*job);
            job.1
        };
        let stops = |job: &(bool, bool), failed: &bool| job.0 && *failed;
        let one_at_a_time = schedule(&jobs, 1, run, stops);
        // The plain failure stopped nothing; the vital one, all after it.
        assert_eq!(one_at_a_time, [(0, true), (1, true)]);
        assert_eq!(started.lock().unwrap().len(), 2);
        // Without a vital failure, every job runs, and the results come in
        // the jobs' order though the first ends last.
        let fine = [(true, false), (false, true), (false, false)];
        let slow_first = |j: &(bool, bool)| {
            if j.0 {
                std::thread::sleep(Duration::from_millis(300));
            }
            j.1
        };
        let all = schedule(&fine, 2, slow_first, stops);
        assert_eq!(all, [(0, false), (1, true), (2, false)]);
    }

    #[test]
    fn only_a_vital_job_that_did_not_run_cleanly_stops_the_rest() {
        let nb =
            Notebook::parse(r#"{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}"#)
                .unwrap();
        let job = |vital| Job {
            index: 0,
            label: "x",
            nb: &nb,
            hand_over: handed::HAND_IN_VAR,
            vital,
            seed: 0,
        };
        let handed = |bytes: Option<&[u8]>| {
            BTreeMap::from([("t-1".to_string(), Ok(bytes.map(<[u8]>::to_vec)))])
        };
        let failed = || {
            Err(execute::ExecError::Engine {
                notebook: "x".into(),
                message: "no".into(),
            })
        };
        let ran = |cells: CellResults, handed: HandedOver| Ok::<_, String>(Ran { cells, handed });
        let clean = ran(vec![Ok(vec![])], handed(Some(b"{}")));
        let a_cell_failed = ran(vec![Ok(vec![]), failed()], handed(Some(b"{}")));
        let nothing_handed = ran(vec![Ok(vec![])], handed(None));
        let unreadable = ran(
            vec![Ok(vec![])],
            BTreeMap::from([("t-1".into(), Err("bad".into()))]),
        );
        let no_run: Result<Ran, String> = Err("no sandbox".into());
        assert!(ran_cleanly(&clean));
        for out in [&a_cell_failed, &nothing_handed, &unreadable, &no_run] {
            assert!(!ran_cleanly(out));
            assert!(stops(&job(true), out));
            assert!(!stops(&job(false), out));
        }
        assert!(!stops(&job(true), &clean));
    }

    #[test]
    fn dep_paths_are_the_absolute_path_values_of_dep_lines() {
        let nb = Notebook::parse(
            r#"{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
             "source": ":dep puzzlebook = { path = \"/course/lib\", features = [\"z3-dylib\"] }\n:dep x = { path = \"rel\" }\nlet path = \"/etc\";"}]}"#,
        )
        .unwrap();
        assert_eq!(dep_paths(&nb), [PathBuf::from("/course/lib")]);
    }
}
