//! Ending a process when the one that started it has gone, as ipykernel's
//! parent poller does: the kernel watches the Jupyter client that started it
//! (`JPY_PARENT_PID`), and the process that runs cells watches the runner or
//! the kernel. Without it a kernel whose client was killed kept running, and
//! kept its build folder and hundreds of megabytes, until killed by hand.

use std::time::Duration;

/// How often the parent is looked at.
pub const POLL: Duration = Duration::from_secs(1);

/// The process this one watches: the parent it has now, and `named` (from
/// `JPY_PARENT_PID`, which jupyter_client sets to the client's process id
/// when it starts a kernel), if given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parent {
    ppid: libc::pid_t,
    named: Option<libc::pid_t>,
}

impl Parent {
    /// This process's parent now, and the process `JPY_PARENT_PID` names.
    pub fn of_this_process() -> Parent {
        let named = std::env::var("JPY_PARENT_PID")
            .ok()
            .and_then(|v| v.trim().parse::<libc::pid_t>().ok())
            .filter(|&pid| pid > 1);
        Parent {
            // SAFETY: getppid has no preconditions.
            ppid: unsafe { libc::getppid() },
            named,
        }
    }

    /// This process's parent now, and no other.
    pub fn direct() -> Parent {
        Parent {
            named: None,
            ..Parent::of_this_process()
        }
    }

    /// Whether the parent has gone: this process was handed to another
    /// parent (init, or a subreaper), or the named process no longer exists.
    pub fn gone(&self) -> bool {
        // SAFETY: getppid has no preconditions; kill with signal 0 only
        // checks that the process exists.
        unsafe {
            libc::getppid() != self.ppid
                || self.named.is_some_and(|pid| {
                    libc::kill(pid, 0) != 0
                        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
                })
        }
    }

    /// Starts a thread that calls `on_gone` once the parent has gone, then
    /// ends the process with exit code `code`.
    pub fn watch(self, code: i32, on_gone: impl FnOnce() + Send + 'static) {
        let spawned = std::thread::Builder::new()
            .name("puzzlebook-parent".into())
            .spawn(move || {
                while !self.gone() {
                    std::thread::sleep(POLL);
                }
                on_gone();
                std::process::exit(code);
            });
        if let Err(e) = spawned {
            eprintln!("puzzlebook: cannot watch the parent process: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_living_parent_is_not_gone_and_a_dead_named_one_is() {
        let me = Parent::of_this_process();
        assert!(!me.gone());
        // A process that has exited and been reaped no longer exists.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as libc::pid_t;
        child.wait().unwrap();
        let named = Parent {
            named: Some(pid),
            ..me
        };
        assert!(named.gone());
        // A process that was never this one's parent means a new parent.
        let moved = Parent { ppid: 1, ..me };
        assert!(moved.gone());
    }
}
