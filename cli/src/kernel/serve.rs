//! Serving as the Jupyter kernel: a build folder of its own, the runner's
//! environment fixes, and then the Jupyter server ([`super::jupyter`], forked
//! from evcxr_jupyter's).
//!
//! Jupyter starts `puzzlebook --control_file <connection file>` (see
//! [`super::spec`]) with `EVCXR_CONFIG_DIR` pointing at the kernelspec's
//! `evcxr` folder, whose `init.evcxr` and `prelude.rs` load the crate.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::spec::CONTROL_FILE_ARG;
use crate::engine::{cache_dir, engine_environment, BuildDirLock, EngineError};

/// How many kernels may run at once, each with its own build folder.
pub const MAX_SLOTS: usize = 32;

/// Why the kernel could not start.
#[derive(Debug, Error)]
pub enum KernelError {
    /// Started without the kernelspec's environment.
    #[error("EVCXR_CONFIG_DIR does not name a folder with init.evcxr ({0}); start this kernel from Jupyter after `puzzlebook kernel install`")]
    NoConfig(String),
    /// Every build folder is held by another kernel.
    #[error("all {MAX_SLOTS} kernel build folders under {0} are in use; shut down a puzzlebook kernel and start again")]
    AllBusy(PathBuf),
    /// A build folder could not be prepared.
    #[error(transparent)]
    BuildDir(#[from] EngineError),
    /// The environment could not be set up.
    #[error("cannot prepare the kernel's environment: {0}")]
    Environment(String),
    /// The Jupyter server failed.
    #[error("the Jupyter server failed: {0:#}")]
    Server(anyhow::Error),
}

/// The connection file, when the process was started as a kernel: its first
/// argument is `--control_file`, as in the kernelspec's `argv`.
pub fn connection_file_arg(args: impl IntoIterator<Item = OsString>) -> Option<OsString> {
    let mut args = args.into_iter().skip(1);
    match args.next() {
        Some(a) if a == CONTROL_FILE_ARG => args.next(),
        _ => None,
    }
}

/// The folder holding the kernels' build folders: `<cache>/puzzlebook/kernel`.
pub fn slots_dir() -> PathBuf {
    cache_dir().join("kernel")
}

/// Locks the first free build folder `slot-0`, `slot-1`, … under `root`.
///
/// Each running kernel holds one for its lifetime, so builds persist between
/// sessions (the second start is warm) and two kernels never share one.
pub fn acquire_slot(root: &Path) -> Result<BuildDirLock, KernelError> {
    for n in 0..MAX_SLOTS {
        match BuildDirLock::acquire(&root.join(format!("slot-{n}"))) {
            Ok(lock) => return Ok(lock),
            Err(EngineError::Busy(_)) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(KernelError::AllBusy(root.to_path_buf()))
}

/// Serves as the Jupyter kernel until Jupyter shuts it down.
///
/// Call it from `main` before any thread starts (it sets environment
/// variables), and after `evcxr::runtime_hook()`.
pub fn serve(connection_file: &Path) -> Result<(), KernelError> {
    let config = std::env::var_os("EVCXR_CONFIG_DIR").map(PathBuf::from);
    let config = match config {
        Some(c) if c.join("init.evcxr").is_file() => c,
        other => {
            return Err(KernelError::NoConfig(
                other.map_or("unset".into(), |c| c.display().to_string()),
            ))
        }
    };
    let slot = acquire_slot(&slots_dir())?;
    engine_environment(&slot.dir, &config).map_err(KernelError::Environment)?;
    let result = super::jupyter::run(connection_file).map_err(KernelError::Server);
    drop(slot);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_leading_control_file_means_kernel() {
        let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            connection_file_arg(os(&["pb", "--control_file", "/c.json"])),
            Some("/c.json".into())
        );
        assert_eq!(connection_file_arg(os(&["pb", "--control_file"])), None);
        assert_eq!(connection_file_arg(os(&["pb", "report"])), None);
        assert_eq!(
            connection_file_arg(os(&["pb", "run", "--control_file", "x"])),
            None
        );
    }

    #[test]
    fn kernels_take_the_next_free_slot() {
        let d = tempfile::tempdir().unwrap();
        let a = acquire_slot(d.path()).unwrap();
        let b = acquire_slot(d.path()).unwrap();
        assert_eq!(a.dir, d.path().join("slot-0"));
        assert_eq!(b.dir, d.path().join("slot-1"));
        drop(a);
        let c = acquire_slot(d.path()).unwrap();
        assert_eq!(c.dir, d.path().join("slot-0"), "a freed slot is reused");
    }
}
