//! `grade`'s judgements, each in a process of its own with limits on its
//! time and memory, so that an answer Z3 finds hard, or that makes Z3 fail,
//! costs that answer its judgement and nothing more: the grader's end, and
//! the end inside (`puzzlebook judge-job DIR`).
//!
//! The process is the grader's own code, with no student code in it: it
//! reads the reference and the answer handed in as data, and writes its
//! judgement ([`puzzlebook::grade::judge`]) as JSON on its standard output.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use puzzlebook::grade::handed::{self, HandedIn, Reference};
use puzzlebook::grade::judge::{self, Judgement};

use super::RunnerError;

/// How long one judgement may take, in seconds of its own CPU and of the
/// clock.
pub const SECONDS: u64 = 120;

/// How much memory one judgement's process may map: 4 GiB.
pub const MEMORY: u64 = 4 << 30;

/// The most bytes of judgement read back: witnesses are a few lines each.
const OUTPUT_CAP: u64 = 16 << 20;

/// Judges `answer` (the bytes an answer file held, none, or why it could
/// not be read) against `reference`, in a process of its own whose files go
/// in `scratch` (made here, and left for the caller to remove).
pub fn judge_apart(
    reference: &Reference,
    answer: &Result<Option<Vec<u8>>, String>,
    scratch: &Path,
) -> Judgement {
    let bytes = match answer {
        Ok(Some(bytes)) => bytes,
        // Nothing for Z3 to do: judged here.
        Ok(None) => return judge::judge(reference, Ok(None)),
        Err(why) => {
            return judge::judge(reference, Err(handed::HandedError::Unreadable(why.clone())))
        }
    };
    match run(reference, bytes, scratch) {
        Ok(judgement) => judgement,
        Err(why) => Judgement::not_graded(format!("the grader could not judge the answer ({why})")),
    }
}

/// The judgement, from a `judge-job` process, or why there is none.
fn run(reference: &Reference, answer: &[u8], scratch: &Path) -> Result<Judgement, String> {
    let cannot = |what: &str, e: std::io::Error| format!("cannot {what}: {e}");
    std::fs::create_dir_all(scratch).map_err(|e| cannot("make its folder", e))?;
    let text = serde_json::to_vec(reference).expect("plain data serializes");
    std::fs::write(scratch.join("reference.json"), text)
        .map_err(|e| cannot("write the reference", e))?;
    std::fs::write(scratch.join("answer.json"), answer)
        .map_err(|e| cannot("write the answer", e))?;
    let exe = std::env::current_exe().map_err(|e| cannot("find this program", e))?;
    let mut command = std::process::Command::new(exe);
    command
        .arg("judge-job")
        .arg(scratch)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: between fork and exec only async-signal-safe calls.
    unsafe {
        command.pre_exec(|| {
            let limit = |resource, value: u64, hard: u64| {
                let l = libc::rlimit {
                    rlim_cur: value,
                    rlim_max: hard,
                };
                if libc::setrlimit(resource, &l) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            };
            limit(libc::RLIMIT_AS, MEMORY, MEMORY)?;
            // SIGXCPU at the soft limit, so that it can be told apart.
            limit(libc::RLIMIT_CPU, SECONDS, SECONDS + 5)?;
            limit(libc::RLIMIT_CORE, 0, 0)?;
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .map_err(|e| cannot("start its process", e))?;
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let read = (&mut stdout).take(OUTPUT_CAP + 1).read_to_end(&mut out);
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        read.map(|_| out)
    });
    let deadline = Instant::now() + Duration::from_secs(SECONDS);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(cannot("wait for its process", e));
            }
        }
        if Instant::now() >= deadline || crate::engine::interrupted() {
            let _ = child.kill();
            let _ = child.wait();
            let _ = reader.join();
            return Err(format!("it took more than {SECONDS} s"));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = reader
        .join()
        .expect("the reader does not panic")
        .map_err(|e| cannot("read its judgement", e))?;
    if !status.success() {
        return Err(match status_signal(&status) {
            Some(libc::SIGXCPU | libc::SIGKILL) => format!("it took more than {SECONDS} s of CPU"),
            Some(libc::SIGABRT | libc::SIGSEGV) => format!(
                "Z3 stopped ({status}), perhaps past the judgement's {} of memory",
                crate::limits::memory_text(MEMORY)
            ),
            _ => format!("it ended ({status})"),
        });
    }
    if out.len() as u64 > OUTPUT_CAP {
        return Err("its judgement was too long".into());
    }
    let mut judgement: Judgement =
        serde_json::from_slice(&out).map_err(|e| format!("its judgement is unreadable: {e}"))?;
    // How the points are shared is the reference's, not the process's to say.
    judgement.scoring = reference.scoring;
    // One verdict for each part of the reference, in its order.
    let labels = judgement.parts.iter().map(|(l, _)| l);
    if !labels.eq(reference.parts.iter().map(|p| &p.label)) {
        return Err("its judgement is not of the reference's parts".into());
    }
    Ok(judgement)
}

fn status_signal(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

/// `puzzlebook judge-job DIR`: judges `DIR/answer.json` against
/// `DIR/reference.json` and writes the judgement on standard output.
pub fn run_judge_job(dir: &Path) -> Result<(), RunnerError> {
    let read = |name: &str| -> Result<Vec<u8>, RunnerError> {
        let path: PathBuf = dir.join(name);
        std::fs::read(&path).map_err(|source| {
            crate::notebook::io::IoError::Read {
                path: path.clone(),
                source,
            }
            .into()
        })
    };
    let reference: Reference = serde_json::from_slice(&read("reference.json")?).map_err(|e| {
        crate::notebook::io::IoError::Read {
            path: dir.join("reference.json"),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        }
    })?;
    let answer = handed::from_bytes::<HandedIn>(&read("answer.json")?).map(Some);
    let judgement = judge::judge(&reference, answer);
    let json = serde_json::to_vec(&judgement).expect("plain data serializes");
    super::sandboxed::write_results(&mut std::io::stdout().lock(), &json)?;
    Ok(())
}
