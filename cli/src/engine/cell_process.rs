//! The process that runs a notebook's cells: evcxr starts this binary again
//! as its child (with `EVCXR_IS_RUNTIME` set), and before evcxr's runtime
//! takes over, [`hook`] gives it a memory limit, marks a cell whose `?`
//! returned an error or that panicked (both of which evcxr itself reports as
//! a success), ends each cell's output on both streams with a mark, and ends
//! the process when the runner or kernel that started it has gone.

use std::io::{BufRead, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::time::Duration;

/// The variable that carries the cells' memory limit, in bytes, from the
/// runner or the kernel to the child ([`crate::engine::EngineScope::engine`]).
pub const MEMORY_VAR: &str = "PUZZLEBOOK_CELL_MEMORY_BYTES";

/// The MIME type of the mark a cell's outputs carry when its `?` returned an
/// error. The runner and the kernel remove it and fail the cell.
const USER_ERROR_MIME: &str = "application/x-puzzlebook-cell-error";

/// The MIME type of the mark a cell's outputs carry when it panicked.
const PANIC_MIME: &str = "application/x-puzzlebook-cell-panic";

/// The line evcxr's generated code prints on standard output after a cell's
/// `?` returned an error (its `EvcxrUserCodeError`'s `From`, which first
/// prints the error on standard error). evcxr reads it, forgets the cell's
/// new variables and reports success.
const EVCXR_USER_ERROR: &[u8] = b"EVCXR_ERROR_OCCURRED\n";

/// The line evcxr's generated code prints on standard output after it caught
/// a cell's panic (its `catch_unwind`; the panic's message went to standard
/// error first). evcxr reads it, forgets the cell's new variables and
/// reports success.
const EVCXR_PANIC: &[u8] = b"EVCXR_PANIC_NOTIFICATION\n";

/// The line evcxr's runtime prints on standard output when a cell's code has
/// returned; evcxr reads it as the end of the cell.
const EVCXR_COMPLETE: &[u8] = b"EVCXR_EXECUTION_COMPLETE\n";

/// The MIME type of the block a cell's outputs carry when it ran in this
/// process: its content is the cell's run number, which its end marks carry.
const RAN_MIME: &str = "application/x-puzzlebook-cell-ran";

/// The start of the line that ends a cell's output on standard output and
/// on standard error, followed by the cell's run number (counted in this
/// process from 1; the first run has no mark when it is evcxr's own `42`).
/// evcxr returns from a cell once it has read the cell's
/// standard output, but reads standard error on a thread of its own and
/// hands both on through channels; so a reader that waits for both marks
/// has every line the cell printed, and none is left to arrive after the
/// cell's result (a kernel would send it after the cell's reply, and
/// Jupyter drops it).
const END_OF_OUTPUT: &str = "PUZZLEBOOK_END_OF_CELL_OUTPUT ";

/// How long the runner and the kernel wait at most, after evcxr returned
/// from a cell, for its end marks: the time they take is that of a thread
/// handing on a line, but a loaded machine may delay one by far more.
pub const END_WAIT: Duration = Duration::from_secs(5);

/// The run number of a cell's end mark, if `line` (without its newline) is
/// one. Every reader of a cell's streams drops these lines.
pub fn end_of_output(line: &str) -> Option<u64> {
    line.strip_prefix(END_OF_OUTPUT)?.trim_end().parse().ok()
}

/// The end mark of run `run`, as a line without its newline.
#[cfg(test)]
pub fn end_line(run: u64) -> String {
    format!("{END_OF_OUTPUT}{run}")
}

/// Removes the block that says a cell ran in the cell process from its
/// outputs, and returns the cell's run number: then both of its streams end
/// with a mark carrying that number ([`end_of_output`]). None for a cell
/// that never reached the process (a compile error, a `:dep` command) and
/// one that ended it.
pub fn take_ran(outputs: &mut evcxr::EvalOutputs) -> Option<u64> {
    outputs
        .content_by_mime_type
        .remove(RAN_MIME)?
        .trim()
        .parse()
        .ok()
}

/// Why a cell that evcxr reports as a success failed: the mark
/// [`copy_marking`] put in its outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellMark {
    /// Its `?` returned an error, which evcxr printed on standard error.
    UserError,
    /// It panicked; the panic's message is on standard error.
    Panic,
}

impl CellMark {
    /// Removes every mark from a cell's outputs and returns the first, if
    /// any: the runner, the kernel and the replay call this on each result.
    pub fn take(outputs: &mut evcxr::EvalOutputs) -> Option<CellMark> {
        let error = outputs.content_by_mime_type.remove(USER_ERROR_MIME);
        let panic = outputs.content_by_mime_type.remove(PANIC_MIME);
        match (error, panic) {
            (Some(_), _) => Some(CellMark::UserError),
            (None, Some(_)) => Some(CellMark::Panic),
            (None, None) => None,
        }
    }
}

/// Call first in `main`, before `evcxr::runtime_hook()`. In evcxr's child it
/// sets the memory limit ([`MEMORY_VAR`]), starts [`mark_user_errors`] and
/// watches its parent: a cell stuck in `loop {}` would otherwise outlive a
/// runner or kernel that was killed. In any other process it does nothing.
pub fn hook() {
    if std::env::var_os("EVCXR_IS_RUNTIME").is_none() {
        return;
    }
    crate::engine::parent::Parent::direct().watch(0, || {});
    // SIGINT ends a cell that Z3 does not catch (the kernel's interrupt, a
    // terminal's Ctrl-C). A process started with SIGINT ignored, as a
    // non-interactive shell starts a background job (`nohup … &`), passes
    // that on to every process it starts: Jupyter, the kernel, this one.
    // Its cells would then outlive every interrupt.
    // SAFETY: signal(2) with a signal number and the default disposition.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
    if let Some(bytes) = std::env::var(MEMORY_VAR)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        limit_memory(bytes);
    }
    // A context that started quickly ran no `42` of its own: its first run
    // is a cell, and is marked as every later one.
    let unmarked = match std::env::var_os(evcxr::puzzlebook::QUICK_START_VAR) {
        Some(_) => 0,
        None => 1,
    };
    if let Err(e) = mark_user_errors(unmarked) {
        eprintln!("puzzlebook: cannot watch the cells' output for `?` errors: {e}");
    }
}

/// Limits the data this process may map (`RLIMIT_DATA`: the heap and
/// private writable mappings, where a cell's values live) to `bytes`. An
/// allocation past it fails, and Rust then aborts with "memory allocation of
/// N bytes failed"; the runner and the kernel name the limit. The allocator
/// is jemalloc, which keeps freed memory mapped for reuse, so the limit
/// bounds the most the process has held, not what it holds now.
fn limit_memory(bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: setrlimit reads the struct it is given.
    if unsafe { libc::setrlimit(libc::RLIMIT_DATA, &limit) } != 0 {
        eprintln!(
            "puzzlebook: cannot limit the cells' memory to {bytes} bytes: {}",
            std::io::Error::last_os_error()
        );
    }
}

impl std::fmt::Display for CellMark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CellMark::UserError => "its `?` returned an error",
            CellMark::Panic => "it panicked",
        })
    }
}

/// Puts a pipe between this process's standard output and evcxr, and a
/// thread that copies it through line by line. Before evcxr's user-error
/// line it adds an empty rich-output block of type [`USER_ERROR_MIME`], and
/// after its panic line one of type [`PANIC_MIME`]; evcxr hands either back
/// in the cell's outputs as it does any `EVCXR_BEGIN_CONTENT` block. So the
/// cell's result itself says that it failed, with nothing left to timing.
/// Before the line that ends a cell, it writes the cell's end marks
/// ([`END_OF_OUTPUT`]) and a [`RAN_MIME`] block, but for the first
/// `unmarked` runs.
fn mark_user_errors(unmarked: u64) -> std::io::Result<()> {
    let mut fds = [0; 2];
    // SAFETY: pipe writes two descriptors into the array it is given; dup and
    // dup2 take and return descriptors, checked below.
    let (read, evcxr) = unsafe {
        if libc::pipe(fds.as_mut_ptr()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let evcxr = libc::dup(1);
        if evcxr < 0 || libc::dup2(fds[1], 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        libc::close(fds[1]);
        (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(evcxr))
    };
    std::thread::Builder::new()
        .name("puzzlebook-stdout".into())
        .spawn(move || {
            let _ = copy_marking(
                std::io::BufReader::new(std::fs::File::from(read)),
                std::fs::File::from(evcxr),
                std::io::stderr(),
                unmarked,
            );
        })?;
    Ok(())
}

/// Copies `from` to `to` line by line, flushing each, with a mark before
/// every user-error line and after every panic line. The panic's mark comes
/// after, not before: a panic in the middle of a rich-output block ends
/// that block at evcxr's panic line, and a mark before it would be read as
/// the block's content. Before each line that ends a cell, the cell's end
/// mark goes to `err` (standard error, where the cell's own lines went
/// before it) and to `to`, and its run number in a [`RAN_MIME`] block, but
/// for the first `unmarked` runs.
fn copy_marking(
    mut from: impl BufRead,
    mut to: impl Write,
    mut err: impl Write,
    unmarked: u64,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    let mut run: u64 = 0;
    loop {
        line.clear();
        if from.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        if line == EVCXR_USER_ERROR {
            write!(
                to,
                "EVCXR_BEGIN_CONTENT {USER_ERROR_MIME}\nEVCXR_END_CONTENT\n"
            )?;
        }
        if line == EVCXR_COMPLETE {
            run += 1;
        }
        // Unless the context started quickly, the first run is evcxr's own
        // `42`, while its context starts: before anyone can read the
        // context's standard output channel, and evcxr waits until that
        // channel is empty, so a mark there would hang it. (A process evcxr
        // starts again after a crash runs no `42` either; the runner and the
        // kernel start quickly, so its first cell is marked as well.)
        if line == EVCXR_COMPLETE && run > unmarked {
            // Standard error first: a kernel that has the mark on standard
            // output may already be waiting for this one.
            writeln!(err, "{END_OF_OUTPUT}{run}")?;
            err.flush()?;
            write!(
                to,
                "EVCXR_BEGIN_CONTENT {RAN_MIME}\n{run}\nEVCXR_END_CONTENT\n{END_OF_OUTPUT}{run}\n"
            )?;
        }
        to.write_all(&line)?;
        if line == EVCXR_PANIC {
            write!(to, "EVCXR_BEGIN_CONTENT {PANIC_MIME}\nEVCXR_END_CONTENT\n")?;
        }
        to.flush()?;
    }
}

/// Whether a failed cell's message says it ran out of the memory the limit
/// allows: Rust's own abort message for a failed allocation.
pub fn out_of_memory(message: &str) -> bool {
    message.contains("memory allocation of") && message.contains("failed")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Copies `input` as the cell process does: what evcxr reads on
    /// standard output, and what the cell process adds on standard error.
    fn copied(input: &str) -> (String, String) {
        copied_after(input, 1)
    }

    /// As [`copied`], with the first `unmarked` runs left without marks.
    fn copied_after(input: &str, unmarked: u64) -> (String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        copy_marking(input.as_bytes(), &mut out, &mut err, unmarked).unwrap();
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn the_user_error_line_gets_a_mark_before_it_and_the_rest_passes_as_is() {
        let (out, _) = copied("a line\nEVCXR_ERROR_OCCURRED\nno newline");
        assert_eq!(
            out,
            format!(
                "a line\nEVCXR_BEGIN_CONTENT {USER_ERROR_MIME}\nEVCXR_END_CONTENT\n\
                 EVCXR_ERROR_OCCURRED\nno newline"
            )
        );
        // The same words inside a longer line are the cell's own output.
        let (out, err) = copied("say EVCXR_ERROR_OCCURRED\nsay EVCXR_EXECUTION_COMPLETE\n");
        assert_eq!(
            out,
            "say EVCXR_ERROR_OCCURRED\nsay EVCXR_EXECUTION_COMPLETE\n"
        );
        assert_eq!(err, "");
    }

    #[test]
    fn the_panic_line_gets_a_mark_after_it() {
        let (out, _) =
            copied("EVCXR_BEGIN_CONTENT text/plain\nhalf\nEVCXR_PANIC_NOTIFICATION\nmore\n");
        assert_eq!(
            out,
            format!(
                "EVCXR_BEGIN_CONTENT text/plain\nhalf\nEVCXR_PANIC_NOTIFICATION\n\
                 EVCXR_BEGIN_CONTENT {PANIC_MIME}\nEVCXR_END_CONTENT\nmore\n"
            )
        );
    }

    #[test]
    fn each_cell_s_output_ends_with_its_numbered_mark_on_both_streams() {
        let (out, err) = copied(
            "42\nEVCXR_EXECUTION_COMPLETE\nfirst\nEVCXR_EXECUTION_COMPLETE\n\
             EVCXR_ERROR_OCCURRED\nEVCXR_EXECUTION_COMPLETE\n",
        );
        // evcxr's own first run, before its channels have a reader, is not
        // marked; the cells after it are.
        assert_eq!(
            out,
            format!(
                "42\nEVCXR_EXECUTION_COMPLETE\nfirst\n\
                 EVCXR_BEGIN_CONTENT {RAN_MIME}\n2\nEVCXR_END_CONTENT\n{END_OF_OUTPUT}2\n\
                 EVCXR_EXECUTION_COMPLETE\n\
                 EVCXR_BEGIN_CONTENT {USER_ERROR_MIME}\nEVCXR_END_CONTENT\nEVCXR_ERROR_OCCURRED\n\
                 EVCXR_BEGIN_CONTENT {RAN_MIME}\n3\nEVCXR_END_CONTENT\n{END_OF_OUTPUT}3\n\
                 EVCXR_EXECUTION_COMPLETE\n"
            )
        );
        assert_eq!(err, format!("{END_OF_OUTPUT}2\n{END_OF_OUTPUT}3\n"));
        // Each stream's reader knows the mark, and the run it ends.
        let lines: Vec<&str> = out.lines().chain(err.lines()).collect();
        let marks: Vec<u64> = lines.iter().filter_map(|l| end_of_output(l)).collect();
        assert_eq!(marks, [2, 3, 2, 3]);
        assert_eq!(end_of_output("first"), None);
        // A context that started quickly ran no `42`: its first run is a
        // cell's, and is marked.
        let (out, err) = copied_after("first\nEVCXR_EXECUTION_COMPLETE\n", 0);
        assert_eq!(
            out,
            format!(
                "first\nEVCXR_BEGIN_CONTENT {RAN_MIME}\n1\nEVCXR_END_CONTENT\n{END_OF_OUTPUT}1\n\
                 EVCXR_EXECUTION_COMPLETE\n"
            )
        );
        assert_eq!(err, format!("{END_OF_OUTPUT}1\n"));
        assert_eq!(end_of_output("PUZZLEBOOK_END_OF_CELL_OUTPUT x"), None);
    }

    #[test]
    fn the_ran_block_reaches_the_outputs_and_is_taken_from_them() {
        let mut outputs = evcxr::EvalOutputs::new();
        assert_eq!(take_ran(&mut outputs), None);
        outputs
            .content_by_mime_type
            .insert(RAN_MIME.into(), "7".into());
        outputs
            .content_by_mime_type
            .insert("text/plain".into(), "kept".into());
        assert_eq!(take_ran(&mut outputs), Some(7));
        assert_eq!(
            outputs.content_by_mime_type.keys().collect::<Vec<_>>(),
            ["text/plain"]
        );
    }

    #[test]
    fn taking_the_marks_removes_both_and_names_the_first() {
        let mut outputs = evcxr::EvalOutputs::new();
        assert_eq!(CellMark::take(&mut outputs), None);
        outputs
            .content_by_mime_type
            .insert(PANIC_MIME.into(), String::new());
        outputs
            .content_by_mime_type
            .insert("text/plain".into(), "kept".into());
        assert_eq!(CellMark::take(&mut outputs), Some(CellMark::Panic));
        outputs
            .content_by_mime_type
            .insert(USER_ERROR_MIME.into(), String::new());
        outputs
            .content_by_mime_type
            .insert(PANIC_MIME.into(), String::new());
        assert_eq!(CellMark::take(&mut outputs), Some(CellMark::UserError));
        assert_eq!(
            outputs.content_by_mime_type.keys().collect::<Vec<_>>(),
            ["text/plain"]
        );
    }

    #[test]
    fn rusts_allocation_failure_is_out_of_memory() {
        assert!(out_of_memory(
            "memory allocation of 2147483648 bytes failed\nSubprocess terminated with status: signal: 6 (SIGABRT)"
        ));
        assert!(!out_of_memory("signal: 11 (SIGSEGV)"));
    }
}
