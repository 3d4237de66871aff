//! Ending the rest of a sandbox's PID namespace when a cell is stopped, so
//! that no process the cell started holds its pipes and keeps the run waiting.

/// Sends SIGKILL to every process of this one's PID namespace but itself
/// and process 1 (`kill(-1, …)`, which the kernel applies to the namespace
/// at once, so a process that forks meanwhile is no escape).
///
/// Only for a runner alone in a namespace of its own under its own process
/// 1, as `grade-job` is in its sandbox ([`crate::runner::execute::CellLimits::alone_in_namespace`]):
/// anywhere else it would kill every process of the user.
pub(crate) fn end_the_rest() {
    // SAFETY: `kill` takes plain integers.
    unsafe {
        libc::kill(-1, libc::SIGKILL);
    }
}
