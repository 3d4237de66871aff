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

use super::cell_memory::kernel_cell_memory;
use super::spec::CONTROL_FILE_ARG;
use crate::engine::{
    cache_dir, copy_build, has_built_crate, pin_versions, BuildDirLock, EngineError, EngineScope,
};

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
    /// The engine could not load the crate.
    #[error("loading the crate: {0}")]
    Load(String),
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

/// Gives a cold build folder `slot` the build of a warm one under `root`, so a
/// second kernel does not build z3, polars and puzzlebook again: copies the
/// warm folder's `target` ([`copy_build`]) and its `Cargo.lock`. A warm
/// folder may belong to a running kernel. Returns the folder copied from, if
/// any.
pub fn seed_from_warm_slot(root: &Path, slot: &Path) -> Option<PathBuf> {
    if has_built_crate(slot) {
        return None;
    }
    let warm = (0..MAX_SLOTS)
        .map(|n| root.join(format!("slot-{n}")))
        .find(|d| d != slot && has_built_crate(d))?;
    if !copy_build(&warm, slot) {
        return None;
    }
    let _ = std::fs::copy(warm.join("Cargo.lock"), slot.join("Cargo.lock"));
    Some(warm)
}

/// A kernel build folder made ready for [`Prepared::build`]: locked, given a
/// warm folder's build if it had none, its versions pinned and the engine's
/// environment set. `kernel install` makes one before its spinner's thread
/// starts, since it sets environment variables.
pub struct Prepared {
    slot: BuildDirLock,
    checkout: PathBuf,
}

impl Prepared {
    /// Prepares the first free build folder for the kernelspec whose evcxr
    /// `config` folder this is, loading the crate at `checkout`.
    ///
    /// Sets the engine's environment variables, so call it before any thread starts.
    pub fn new(config: &Path, checkout: &Path) -> Result<Prepared, KernelError> {
        let slot = acquire_slot(&slots_dir())?;
        seed_from_warm_slot(&slots_dir(), &slot.dir);
        pin_versions(checkout, &slot.dir, true)?;
        let mut scope = EngineScope::enter()?;
        scope.engine(&slot.dir, config, kernel_cell_memory())?;
        scope.keep();
        Ok(Prepared {
            slot,
            checkout: checkout.to_path_buf(),
        })
    }

    /// Builds what the kernel's notebooks build, so that no first start or
    /// first notebook waits for it, and returns the folder: the crate as a
    /// kernel loads it (z3, plotters and puzzlebook), and the crate with its
    /// `polars-dylib` feature, as notebook 04 loads it.
    pub fn build(self) -> Result<PathBuf, KernelError> {
        let (mut ctx, outputs) =
            evcxr::CommandContext::new().map_err(|e| KernelError::Load(e.to_string()))?;
        // Nothing here reads what the cells print. evcxr waits, after each
        // run, until its standard output channel is empty, and every run
        // ends with a line there ([`crate::engine::cell_process::end_of_output`]):
        // with the channels gone, evcxr drops the lines instead.
        drop(outputs);
        let with_polars = format!(
            ":dep puzzlebook = {{ path = {}, features = [\"polars-dylib\"] }}",
            serde_json::to_string(&self.checkout.to_string_lossy()).expect("a string")
        );
        // `:load_config` first: it sets the optimisation level both builds use.
        for command in [":load_config --quiet", with_polars.as_str()] {
            // Before each `:dep`: cargo rewrote the lock to hold only what
            // the last one needed, so polars would resolve afresh from the
            // registry, newer than the checkout's lock and than what a
            // kernel, which pins, then builds again.
            pin_versions(&self.checkout, &self.slot.dir, true)?;
            ctx.execute(command)
                .map_err(|e| KernelError::Load(e.to_string()))?;
        }
        Ok(self.slot.dir.clone())
    }
}

/// The checkout the kernelspec whose evcxr `config` folder this is loads: the
/// `crate` in its kernel.json's metadata.
fn checkout_of(config: &Path) -> Option<PathBuf> {
    let json = std::fs::read_to_string(config.parent()?.join("kernel.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&json).ok()?;
    Some(PathBuf::from(
        json["metadata"]["puzzlebook"]["crate"].as_str()?,
    ))
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
    // As ipykernel does: when the client that started the kernel is gone
    // (killed, crashed), nobody can shut the kernel down, so it ends itself.
    crate::engine::parent::Parent::of_this_process().watch(0, || {
        eprintln!(
            "puzzlebook: the Jupyter client that started this kernel has gone; shutting down"
        );
    });
    let slot = acquire_slot(&slots_dir())?;
    let mut scope = EngineScope::enter()?;
    scope.engine(&slot.dir, &config, kernel_cell_memory())?;
    scope.keep();
    let dir = slot.dir.clone();
    let checkout = checkout_of(&config);
    let pin = {
        let (dir, checkout) = (dir.clone(), checkout.clone());
        move || {
            if let Some(checkout) = &checkout {
                if let Err(e) = pin_versions(checkout, &dir, true) {
                    eprintln!("puzzlebook: {e}");
                }
            }
        }
    };
    let seed = {
        let pin = pin.clone();
        move || {
            if let Some(warm) = seed_from_warm_slot(&slots_dir(), &dir) {
                eprintln!(
                    "puzzlebook: started {} from the build in {}",
                    dir.display(),
                    warm.display()
                );
            }
            pin();
        }
    };
    let result = super::jupyter::run(connection_file, seed, pin).map_err(KernelError::Server);
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
    fn a_cold_slot_starts_from_a_warm_one() {
        let d = tempfile::tempdir().unwrap();
        let warm = d
            .path()
            .join("slot-0/target/x86_64-unknown-linux-gnu/debug/deps");
        std::fs::create_dir_all(&warm).unwrap();
        std::fs::write(warm.join("libpuzzlebook-0123.rlib"), "built").unwrap();
        std::fs::write(d.path().join("slot-0/Cargo.lock"), "lock").unwrap();
        // The engine's start already made a target folder in the cold slot.
        let cold = d.path().join("slot-1");
        std::fs::create_dir_all(cold.join("target/debug")).unwrap();
        assert_eq!(
            seed_from_warm_slot(d.path(), &cold),
            Some(d.path().join("slot-0"))
        );
        let copied =
            cold.join("target/x86_64-unknown-linux-gnu/debug/deps/libpuzzlebook-0123.rlib");
        assert_eq!(std::fs::read_to_string(&copied).unwrap(), "built");
        assert_eq!(
            std::fs::read_to_string(cold.join("Cargo.lock")).unwrap(),
            "lock"
        );
        // The same modification time, which cargo's freshness check compares.
        let mtime = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        assert_eq!(mtime(&copied), mtime(&warm.join("libpuzzlebook-0123.rlib")));
        // A warm slot is left alone, and with nothing warm there is nothing to do.
        assert_eq!(seed_from_warm_slot(d.path(), &cold), None);
        let lonely = tempfile::tempdir().unwrap();
        assert_eq!(
            seed_from_warm_slot(lonely.path(), &lonely.path().join("slot-0")),
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
