//! The evcxr engine's set-up, apart from running cells: the build folder and
//! its lock, the toolchain's library folder, the process environment, and the
//! optimisation level cells compile at. The runner and the Jupyter kernel share it.

pub mod cell_process;
#[cfg(test)]
mod evcxr_fork;
pub mod hints;
pub(crate) mod namespace;
pub mod parent;
pub mod std_sources;
pub mod warm;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use thiserror::Error;

/// A build folder that cannot be used.
#[derive(Debug, Error)]
pub enum EngineError {
    /// Another run holds the evcxr build folder.
    #[error("another puzzlebook run is using the evcxr build folder {0}; wait for it to finish, or set EVCXR_TMPDIR to another folder")]
    Busy(PathBuf),
    /// The checkout's Cargo.lock could not be copied into the build folder.
    #[error("cannot copy {from} to {to}: {source}; run from the puzzlebook folder or pass --root")]
    Pin {
        /// The checkout's Cargo.lock.
        from: PathBuf,
        /// The build folder's.
        to: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The working directory could not move to a notebook's folder.
    #[error("cannot work in the notebook's folder {path}: {source}")]
    WorkingDir {
        /// The folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The toolchain lacks what an engine needs.
    #[error("the Rust toolchain is not ready for evcxr: {0}")]
    Toolchain(#[from] ToolchainError),
    /// The build folder could not be prepared.
    #[error("cannot prepare the evcxr build folder {path}: {source}")]
    Io {
        /// The folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// The evcxr build folder: `EVCXR_TMPDIR` if set, else `<cache>/puzzlebook/evcxr`,
/// where `<cache>` is `XDG_CACHE_HOME` or `~/.cache` ([`cache_dir`]).
pub fn evcxr_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("EVCXR_TMPDIR") {
        return PathBuf::from(d);
    }
    cache_dir().join("evcxr")
}

/// `<cache>/puzzlebook`.
pub fn cache_dir() -> PathBuf {
    cache_in(
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
        std::env::temp_dir(),
    )
}

/// `<cache>/puzzlebook` from `XDG_CACHE_HOME` and `HOME`'s values, with the
/// temporary folder when neither is of use. A relative value is ignored (the
/// XDG base directory specification says so of `XDG_CACHE_HOME`): it would
/// mean another folder in each working folder.
fn cache_in(xdg_cache_home: Option<OsString>, home: Option<OsString>, temp: PathBuf) -> PathBuf {
    let absolute = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(xdg_cache_home)
        .or_else(|| absolute(home).map(|h| h.join(".cache")))
        .unwrap_or(temp)
        .join("puzzlebook")
}

/// The build folder of job `k` when several notebooks run at once: `base`
/// itself for job 0, else `base` with `-k` appended (`evcxr-1`, …).
pub fn job_dir(base: &Path, k: usize) -> PathBuf {
    if k == 0 {
        return base.to_path_buf();
    }
    let mut name = base.file_name().unwrap_or_default().to_os_string();
    name.push(format!("-{k}"));
    base.with_file_name(name)
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
    pub fn acquire(dir: &Path) -> Result<BuildDirLock, EngineError> {
        let io = |source| EngineError::Io {
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
            Err(std::fs::TryLockError::WouldBlock) => Err(EngineError::Busy(dir.to_path_buf())),
            Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
        }
    }
}

/// What an engine needs to know of the toolchain, asked once per process
/// ([`toolchain`]).
#[derive(Debug, Clone)]
struct Toolchain {
    /// The host's target triple.
    host: String,
    /// The folder holding the toolchain's `libstd-*.so`
    /// (`<sysroot>/lib/rustlib/<host>/lib`).
    lib: PathBuf,
    /// The standard library's sources to show rust-analyzer
    /// ([`std_sources`]).
    sources: PathBuf,
}

/// The toolchain, from `rustc -vV` and `rustc --print sysroot`, asked once
/// per process; with a check that the standard library's sources are there
/// ([`rust_src`]), and their copy for rust-analyzer made ([`std_sources`]).
fn toolchain() -> Result<Toolchain, ToolchainError> {
    static TOOLCHAIN: std::sync::OnceLock<Result<Toolchain, ToolchainError>> =
        std::sync::OnceLock::new();
    TOOLCHAIN.get_or_init(ask_toolchain).clone()
}

/// The standard library's sources this process's engines show
/// rust-analyzer (`RUST_SRC_PATH`): a copy of the toolchain's without
/// `core::arch`'s x86 intrinsics ([`std_sources`]). A sandbox is handed it,
/// read-only.
pub fn rust_analyzer_sources() -> Result<PathBuf, ToolchainError> {
    toolchain().map(|t| t.sources)
}

/// Why the toolchain's library folder could not be found.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ToolchainError {
    /// `rustc` (or `RUSTC`) did not run.
    #[error("cannot run {rustc}: {reason}; install Rust with rustup, or set RUSTC")]
    Run {
        /// The compiler asked.
        rustc: String,
        /// Why it did not run.
        reason: String,
    },
    /// `rustc -vV` printed no `host:` line.
    #[error("`rustc -vV` names no host")]
    NoHost,
    /// A library folder cannot go on `LD_LIBRARY_PATH` (it holds a `:`).
    #[error("{0}")]
    LibraryPath(String),
    /// The standard library's sources are not installed ([`rust_src`]).
    #[error("the standard library's sources are not in {}{}, and evcxr's rust-analyzer needs them to learn the type of each variable a cell keeps (without them it tries to install them through rustup itself, or the first cell that keeps a variable fails with \"Couldn't automatically determine type of variable\"); install them with `rustup component add rust-src`", .sysroot.join(RUST_SRC).display(), if *.ignored_rust_src_path { " (RUST_SRC_PATH is set, but not to an absolute folder holding `core`, so it was ignored)" } else { "" })]
    NoRustSrc {
        /// The toolchain's sysroot.
        sysroot: PathBuf,
        /// Whether `RUST_SRC_PATH` was set, and not usable.
        ignored_rust_src_path: bool,
    },
}

/// Where the toolchain's `rust-src` component puts the standard library's
/// sources, under its sysroot.
const RUST_SRC: &str = "lib/rustlib/src/rust/library";

/// The standard library's sources, where evcxr's rust-analyzer looks for
/// them (`ra_ap_project_model`'s sysroot discovery): `RUST_SRC_PATH` if it
/// is an absolute path that holds `core`, else the toolchain's `rust-src`
/// component. evcxr asks rust-analyzer for the type of each variable a cell
/// keeps, and without these sources no type that names the standard
/// library's is known; rust-analyzer then runs `rustup component add
/// rust-src` as it loads, a download in the middle of a run (or a failure
/// offline and in a sandbox), and the first `let` of a notebook fails.
/// Checking first turns that into a clear error before anything starts.
fn rust_src(sysroot: &Path, rust_src_path: Option<&OsStr>) -> Option<PathBuf> {
    if let Some(path) = rust_src_path.map(PathBuf::from) {
        if path.is_absolute() && path.join("core").exists() {
            return Some(path);
        }
    }
    let library = sysroot.join(RUST_SRC);
    library.exists().then_some(library)
}

fn ask_toolchain() -> Result<Toolchain, ToolchainError> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let failed = |reason: String| ToolchainError::Run {
        rustc: rustc.to_string_lossy().into_owned(),
        reason,
    };
    let run = |args: &[&str]| -> Result<String, ToolchainError> {
        let out = std::process::Command::new(&rustc)
            .args(args)
            .output()
            .map_err(|e| failed(e.to_string()))?;
        if !out.status.success() {
            let said = String::from_utf8_lossy(&out.stderr);
            return Err(failed(format!(
                "`{} {}` ended with {}: {}",
                rustc.to_string_lossy(),
                args.join(" "),
                out.status,
                said.trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let sysroot = run(&["--print", "sysroot"])?.trim().to_string();
    let rust_src_path = std::env::var_os("RUST_SRC_PATH");
    let Some(found) = rust_src(Path::new(&sysroot), rust_src_path.as_deref()) else {
        return Err(ToolchainError::NoRustSrc {
            sysroot: PathBuf::from(&sysroot),
            ignored_rust_src_path: rust_src_path.is_some(),
        });
    };
    let version = run(&["-vV"])?;
    let host = version
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .ok_or(ToolchainError::NoHost)?;
    let lib = Path::new(&sysroot)
        .join("lib/rustlib")
        .join(&host)
        .join("lib");
    Ok(Toolchain {
        host,
        lib,
        sources: sources_for_rust_analyzer(found, &version),
    })
}

/// The standard library's sources to show rust-analyzer: those `found`
/// as they are in a sandbox (the grader's choice, [`std_sources::AS_IS_VAR`]),
/// else their copy without the x86 intrinsics ([`std_sources`]), canonical,
/// so that a sandbox, shown it by that path, finds it where `RUST_SRC_PATH`
/// says. The copy only saves time: when it cannot be made, a warning says
/// why and engines read `found`, as rust-analyzer does by itself.
fn sources_for_rust_analyzer(found: PathBuf, version: &str) -> PathBuf {
    if std::env::var_os(std_sources::AS_IS_VAR).is_some() {
        return found;
    }
    let to = std_sources::copy_dir(&cache_dir().join("rust-src"), &found, version);
    match std_sources::prepare(&found, &to, version).and_then(std::fs::canonicalize) {
        Ok(copy) => copy,
        Err(e) => {
            eprintln!(
                "warning: cannot copy the standard library's sources into {} for rust-analyzer ({e}); engines read them from {}, and each starts with some 2 s more of CPU. To mend it, mend the path named, make {} writable, or set XDG_CACHE_HOME to a folder that can hold the copy",
                to.display(),
                found.display(),
                to.parent().unwrap_or(&to).display()
            );
            std::fs::canonicalize(&found).unwrap_or(found)
        }
    }
}

/// A library search path with `dirs` first, then the entries of `old` that
/// are not among them, in their order.
fn library_path(dirs: &[PathBuf], old: Option<&OsStr>) -> Result<OsString, ToolchainError> {
    let mut paths = dirs.to_vec();
    if let Some(old) = old {
        paths.extend(std::env::split_paths(old).filter(|p| !dirs.contains(p)));
    }
    std::env::join_paths(paths).map_err(|e| ToolchainError::LibraryPath(e.to_string()))
}

/// What cargo mixes into every file name it builds in an engine's folder,
/// through `__CARGO_DEFAULT_LIB_METADATA` (the variable Rust's own build uses
/// for its `libstd-<hash>.so`).
///
/// Without it cargo names a path package's Rust shared library without a hash:
/// `libpuzzlebook_polars_dylib.so` would be one file for every checkout that
/// builds in the folder (a `bench` copy, a second clone), each build
/// overwriting the last, and cells compiled against one would fail to load
/// with another. With it the file is `libpuzzlebook_polars_dylib-<hash>.so`,
/// one per checkout, and cells ask for theirs.
pub const LIB_METADATA: &str = "puzzlebook";

/// Sets the process environment an evcxr engine started from this process
/// needs: its build folder (`EVCXR_TMPDIR`), its config folder
/// (`EVCXR_CONFIG_DIR`), no inherited cargo target folder, hashed names for
/// shared libraries ([`LIB_METADATA`]), `LD_LIBRARY_PATH`, the standard
/// library's sources rust-analyzer reads (`RUST_SRC_PATH`, [`std_sources`]),
/// and the memory limit of its cells' process
/// ([`crate::engine::cell_process::MEMORY_VAR`]).
///
/// evcxr compiles each cell to a shared object that links the standard
/// library, and with the `polars-dylib` feature polars, dynamically. It finds
/// them through relative rpaths computed for the `deps/` folder, but loads the
/// cell's copy one folder up, where they miss. So `LD_LIBRARY_PATH` gets the
/// toolchain's library folder and the build folder's `deps/`, ahead of
/// anything inherited (`cargo run` puts the workspace's own `deps/` there).
///
/// The `deps/` folder is made here, before evcxr starts its child process:
/// the dynamic loader looks at each `LD_LIBRARY_PATH` folder once, and one
/// that does not exist then is skipped for the life of the process. In a new
/// build folder (a kernel's first start, a second kernel's slot that is copied
/// from the first on the loading thread) `deps/` did not exist yet when the
/// child started, so its later `dlopen` of a cell that links polars' shared
/// library failed with "dlopen failed".
///
/// Use it through [`EngineScope`], which takes the paths absolute and puts
/// back what it changed.
fn engine_environment(
    build_dir: &Path,
    config_dir: &Path,
    memory: Option<u64>,
) -> Result<(), EngineError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| EngineError::Io { path, source }
    };
    std::env::set_var("EVCXR_TMPDIR", build_dir);
    // evcxr looks for the cells it builds under its own folder; a target folder
    // inherited from the caller (CI sets one) would send them elsewhere.
    std::env::remove_var("CARGO_TARGET_DIR");
    std::env::remove_var("CARGO_BUILD_TARGET_DIR");
    std::env::set_var("__CARGO_DEFAULT_LIB_METADATA", LIB_METADATA);
    let Toolchain { host, lib, sources } = toolchain()?;
    // rust-analyzer reads the standard library from here (rustc never does).
    std::env::set_var("RUST_SRC_PATH", sources);
    let deps = build_dir.join("target").join(host).join("debug/deps");
    std::fs::create_dir_all(&deps).map_err(io(&deps))?;
    let old = std::env::var_os("LD_LIBRARY_PATH");
    std::env::set_var(
        "LD_LIBRARY_PATH",
        library_path(&[lib, deps], old.as_deref())?,
    );
    std::env::set_var("EVCXR_CONFIG_DIR", config_dir);
    // Only `grade` hands answers or a reference over, and says where
    // ([`EngineScope::hand_over`]); never a folder from the caller's shell.
    for var in HAND_OVER_VARS {
        std::env::remove_var(var);
    }
    quick_start();
    match memory {
        Some(bytes) => {
            std::env::set_var(crate::engine::cell_process::MEMORY_VAR, bytes.to_string())
        }
        None => std::env::remove_var(crate::engine::cell_process::MEMORY_VAR),
    }
    Ok(())
}

/// Makes this process's engines start without evcxr's own first cell
/// (`42`), with `?` allowed from their first cell: our hook in the
/// vendored evcxr (`cli/vendor/evcxr/PUZZLEBOOK.md`). Upstream runs that
/// cell so that rust-analyzer has a crate before any completion. The
/// runner's engines ask for none, and the kernel's answers none before
/// its crate has loaded ([`crate::kernel`]'s `busy::idle_engine`). Set
/// for the rest of the process, not put back with the scope: every
/// engine of a process that asks starts so, and an engine that evcxr
/// starts again after a crash finds it too. The cells' process reads it
/// as well: its first run is then a cell, and gets its end marks
/// ([`crate::engine::cell_process`]). Every engine of this program starts
/// so ([`EngineScope::engine`] calls this): the runner's, the kernel's and
/// `kernel install`'s build, which must link as the kernel does for its
/// build to be the kernel's ([`evcxr::puzzlebook`]).
pub(crate) fn quick_start() {
    std::env::set_var(evcxr::puzzlebook::QUICK_START_VAR, "1");
}

/// The variables through which a graded run's cells hand their answers, or
/// the reference run its reference, to the grader ([`puzzlebook::grade::handed`]).
const HAND_OVER_VARS: [&str; 2] = [
    puzzlebook::grade::handed::HAND_IN_VAR,
    puzzlebook::grade::handed::REFERENCE_VAR,
];

/// The variables [`engine_environment`] sets or removes.
const ENGINE_VARS: [&str; 10] = [
    HAND_OVER_VARS[0],
    HAND_OVER_VARS[1],
    "EVCXR_TMPDIR",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET_DIR",
    "__CARGO_DEFAULT_LIB_METADATA",
    "LD_LIBRARY_PATH",
    "RUST_SRC_PATH",
    "EVCXR_CONFIG_DIR",
    crate::engine::cell_process::MEMORY_VAR,
];

/// The process-wide state an evcxr engine reads as it starts (its
/// environment) and while its cells run (the working directory, against which
/// evcxr resolves `:dep` paths and which its child process inherits), set for
/// as long as this lives and put back as it was when it is dropped.
///
/// Paths are taken absolute against the working directory as it was when
/// the scope was entered, so a relative `EVCXR_TMPDIR` means the same folder
/// whether the working directory moves before an engine starts or after.
///
/// Both are process-wide: set them while no other thread reads them except
/// through Rust's `std::env` and `Command`, which take the same lock.
#[derive(Debug)]
pub struct EngineScope {
    base: PathBuf,
    previous_dir: Option<PathBuf>,
    previous_vars: Option<Vec<(&'static str, Option<OsString>)>>,
    hand_over: Option<(&'static str, PathBuf)>,
}

impl EngineScope {
    /// Records the working directory, against which later paths are taken.
    pub fn enter() -> Result<EngineScope, EngineError> {
        let base = std::env::current_dir().map_err(|source| EngineError::Io {
            path: PathBuf::from("."),
            source,
        })?;
        Ok(EngineScope {
            base,
            previous_dir: None,
            previous_vars: None,
            hand_over: None,
        })
    }

    /// `path` made absolute against the working directory at [`EngineScope::enter`].
    pub fn absolute(&self, path: &Path) -> PathBuf {
        self.base.join(path)
    }

    /// Sets the environment for an engine that builds in `build_dir`, with
    /// its evcxr config in `config_dir`, and whose cells' process may use
    /// `memory` bytes (`None`: no limit). Call it again for each engine.
    pub fn engine(
        &mut self,
        build_dir: &Path,
        config_dir: &Path,
        memory: Option<u64>,
    ) -> Result<(), EngineError> {
        if self.previous_vars.is_none() {
            self.previous_vars = Some(
                ENGINE_VARS
                    .iter()
                    .map(|v| (*v, std::env::var_os(v)))
                    .collect(),
            );
        }
        let build_dir = self.absolute(build_dir);
        engine_environment(&build_dir, &self.absolute(config_dir), memory)?;
        if let Some((var, dir)) = self.hand_over.take() {
            std::env::set_var(var, self.absolute(&dir));
        }
        Ok(())
    }

    /// Makes the next engine's cells hand their answers over in `dir`
    /// ([`puzzlebook::grade::handed::HAND_IN_VAR`]), or write the reference
    /// there ([`puzzlebook::grade::handed::REFERENCE_VAR`]): `var` set to
    /// `dir` in the environment its cells' process starts with. Engines
    /// started after it hand nothing over.
    pub fn hand_over(&mut self, var: &'static str, dir: &Path) {
        self.hand_over = Some((var, dir.to_path_buf()));
    }

    /// Takes the hand-over folder out of the environment again, once the
    /// engine's cells' process has started with it: evcxr starts that
    /// process again after a crash with the environment of the moment,
    /// which, with several engines, is another engine's. Such a process
    /// then hands nothing over, rather than into another run's folder.
    pub fn stop_handing_over(&mut self) {
        for var in HAND_OVER_VARS {
            std::env::remove_var(var);
        }
    }

    /// Moves the working directory to `dir` until the scope ends.
    pub fn chdir(&mut self, dir: &Path) -> Result<(), EngineError> {
        let dir = self.absolute(dir);
        std::env::set_current_dir(&dir)
            .map_err(|source| EngineError::WorkingDir { path: dir, source })?;
        self.previous_dir.get_or_insert_with(|| self.base.clone());
        Ok(())
    }

    /// Keeps what was set for the rest of the process (the kernel, which
    /// serves one engine until it exits).
    pub fn keep(mut self) {
        self.previous_dir = None;
        self.previous_vars = None;
    }
}

impl Drop for EngineScope {
    fn drop(&mut self) {
        if let Some(dir) = self.previous_dir.take() {
            let _ = std::env::set_current_dir(dir);
        }
        for (name, value) in self.previous_vars.take().unwrap_or_default() {
            match value {
                Some(v) => std::env::set_var(name, v),
                None => std::env::remove_var(name),
            }
        }
    }
}

/// Whether a build folder holds a build of the puzzlebook crate (evcxr builds
/// into `target/debug/deps` or `target/<host triple>/debug/deps`).
pub fn has_built_crate(slot: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(slot.join("target")) else {
        return false;
    };
    entries
        .flatten()
        .map(|e| e.path().join("debug/deps"))
        .chain([slot.join("target/debug/deps")])
        .filter_map(|deps| std::fs::read_dir(deps).ok())
        .flatten()
        .flatten()
        .any(|f| {
            let name = f.file_name();
            let name = name.to_string_lossy();
            name.starts_with("libpuzzlebook-") && name.ends_with(".rlib")
        })
}

/// Whether a file or folder of a target folder, by its name, is of the cell
/// crate evcxr compiles every cell into (`ctx`), not of a dependency.
pub(crate) fn is_cells_build(name: &str) -> bool {
    name.starts_with("libctx-")
        || name.starts_with("libctx.")
        || name.starts_with("libcode_")
        || name.starts_with("ctx-")
}

/// Removes from a build folder what evcxr kept of the cells it compiled
/// there: the last cell's source (`src/lib.rs`), and in each target folder
/// the cell crate's libraries (`libctx-…`, `libcode_N`), its dependency
/// lists and fingerprints, and its incremental state. What cells compiled
/// is then nowhere in the folder, and the dependencies stay built. Returns
/// the paths it could not remove.
///
/// `grade` does this before the build folder is shown to submissions: a
/// teacher's `report` or an earlier trusted grade compiles hidden tests
/// there.
pub fn forget_cells(slot: &Path) -> Vec<PathBuf> {
    let mut gone = vec![slot.join("src/lib.rs")];
    let targets = std::fs::read_dir(slot.join("target"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("debug"))
        .chain([slot.join("target/debug")]);
    for debug in targets {
        for sub in ["", "deps", "incremental", ".fingerprint"] {
            let dir = debug.join(sub);
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                if is_cells_build(&e.file_name().to_string_lossy()) {
                    gone.push(e.path());
                }
            }
        }
    }
    gone.into_iter()
        .filter(|p| {
            let removed = match std::fs::symlink_metadata(p) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(p),
                Ok(_) => std::fs::remove_file(p),
                Err(_) => return false,
            };
            removed.is_err()
        })
        .collect()
}

/// Gives the empty build folder `to` the build in `from`, so cargo finds the
/// dependencies fresh there: copies `from/target` with `cp -a --reflink=auto`,
/// which keeps the timestamps cargo's freshness checks compare. The
/// dependencies' builds do not depend on the folder they are in; only the
/// per-cell crate is rebuilt. Returns whether it copied; after a failed copy,
/// `to/target` is removed again (half a copy is worse than none: cargo would
/// rebuild around it).
///
/// `from` may be in use: the dependencies in it are written once and never
/// change, so copying them meanwhile is safe.
pub fn copy_build(from: &Path, to: &Path) -> bool {
    // `target/.` merges into what an engine's start may already have made.
    if std::fs::create_dir_all(to.join("target")).is_err() {
        return false;
    }
    let copied = std::process::Command::new("cp")
        .arg("-a")
        .arg("--reflink=auto")
        .arg(from.join("target/."))
        .arg(to.join("target"))
        .status()
        .is_ok_and(|s| s.success());
    if !copied {
        let _ = std::fs::remove_dir_all(to.join("target"));
    }
    copied
}

/// Copies the checkout's `Cargo.lock` into evcxr's build folder, so that the
/// cell crate's dependencies resolve to the versions the report hash covers.
/// A notebook that does not `:dep` the crate (`needed` false) runs anywhere:
/// outside a checkout, with no `Cargo.lock` to copy, nothing is pinned.
///
/// evcxr's cell crate has a lock file of its own, which cargo rewrites to hold
/// only what the current `:dep` lines need. A notebook without the `polars`
/// feature drops polars from it, and the next one with the feature would then
/// resolve polars afresh from the registry: possibly newer versions, and a
/// rebuild of minutes. Call this before an engine starts, and before a `:dep`.
pub fn pin_versions(checkout: &Path, build_dir: &Path, needed: bool) -> Result<(), EngineError> {
    let (from, to) = (checkout.join("Cargo.lock"), build_dir.join("Cargo.lock"));
    if !needed && !from.is_file() {
        return Ok(());
    }
    match std::fs::copy(&from, &to) {
        Ok(_) => Ok(()),
        Err(source) => Err(EngineError::Pin { from, to, source }),
    }
}

/// The optimisation level cells and their dependencies are compiled at.
///
/// Level 0 compiles polars and z3 several times faster than evcxr's default 2,
/// and the notebooks' data are small, so results come sooner.
pub const OPT_LEVEL: &str = "0";

/// Whether a cell's code has a `:dep` line: one that may make cargo resolve
/// versions again, so the runner and the kernel put the pinned `Cargo.lock`
/// back first, and the grader's warm-up builds up to the last such cell.
pub fn has_dep_line(code: &str) -> bool {
    code.lines().any(|l| l.trim_start().starts_with(":dep"))
}

/// The evcxr commands that set up an engine as the runner sets up its own
/// (the kernel's `init.evcxr` starts with them).
pub fn init_commands() -> String {
    format!(":opt {OPT_LEVEL}\n")
}

/// The settings file evcxr reads from an engine's config folder
/// (`EVCXR_CONFIG_DIR`) as it starts: the level [`init_commands`] sets,
/// in force from the engine's first compile.
///
/// Unless it starts quickly ([`quick_start`], as this program's
/// engines do), evcxr compiles a cell of its own (`42`) as it starts,
/// before any command can run. At evcxr's default level that cell's manifest differs from every
/// later one's, and evcxr reloads rust-analyzer's view of the crates, the
/// standard library's included, whenever the manifest changes: once more per
/// engine than the `:dep` cell needs, about 1.5 s (BENCHMARKS.md, "The
/// optimisation level from the engine's start").
pub fn config_toml() -> String {
    format!("[evcxr]\nopt_level = \"{OPT_LEVEL}\"\n")
}

/// Puts [`config_toml`] into `config_dir` as `evcxr.toml`, unless it holds
/// that already (a sandbox's view of a warm build folder does).
pub fn write_config(config_dir: &Path) -> Result<(), EngineError> {
    let path = config_dir.join("evcxr.toml");
    let wanted = config_toml();
    if std::fs::read_to_string(&path).is_ok_and(|s| s == wanted) {
        return Ok(());
    }
    std::fs::write(&path, wanted).map_err(|source| EngineError::Io { path, source })
}

/// A statement that makes evcxr allow `?` in cells from the start.
///
/// evcxr enables `?` only after the first cell that uses it fails to compile
/// with E0277, and then compiles that cell again. In the same round it also
/// applies its fallback for any error inside the cell's final expression,
/// printing the value with `Debug` instead of calling `evcxr_display`. So the
/// first cell of a notebook to end in `table(&x)?` showed a Debug dump instead
/// of its table. Running this first takes that round out of the notebook's cells.
///
/// Engines that start quickly ([`quick_start`]) allow `?`
/// from their first cell and need none. The kernel's prelude still holds
/// it, in one cell with its `use` line, where it costs no compile of its own.
pub const PRIME_QUESTION_MARK: &str = "Ok::<(), std::fmt::Error>(())?;";

/// How long a cell may run before the runner stops it, unless
/// `--cell-timeout` says otherwise.
pub const DEFAULT_CELL_TIMEOUT: Duration = Duration::from_secs(600);

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_interrupt(_: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Makes Ctrl-C (SIGINT) stop a run cleanly: instead of dying at once, the
/// process notes the interrupt; the evcxr process, in the same process group,
/// receives it too and ends, so the cell running fails and the runner stops
/// before writing anything ([`interrupted`]).
pub fn catch_interrupts() {
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
}

/// Whether Ctrl-C was pressed since [`catch_interrupts`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_cache_is_under_an_absolute_xdg_cache_home_or_home_and_never_a_relative_one() {
        let temp = PathBuf::from("/tmp");
        let v = |s: &str| Some(OsString::from(s));
        let cache = |x, h| cache_in(x, h, temp.clone());
        assert_eq!(
            cache(v("/x/cache"), v("/home/u")),
            Path::new("/x/cache/puzzlebook")
        );
        assert_eq!(
            cache(None, v("/home/u")),
            Path::new("/home/u/.cache/puzzlebook")
        );
        // A relative value would be a folder in each working folder.
        assert_eq!(
            cache(v("cache"), v("/home/u")),
            Path::new("/home/u/.cache/puzzlebook")
        );
        assert_eq!(cache(v("cache"), v("home")), Path::new("/tmp/puzzlebook"));
        assert_eq!(cache(None, None), Path::new("/tmp/puzzlebook"));
    }

    #[test]
    fn the_standard_library_s_sources_are_found_where_rust_analyzer_looks() {
        let t = tempfile::tempdir().unwrap();
        let sysroot = t.path().join("toolchain");
        let own = t.path().join("own-src");
        std::fs::create_dir_all(own.join("core")).unwrap();
        // Neither the component nor RUST_SRC_PATH: none.
        assert_eq!(rust_src(&sysroot, None), None);
        // RUST_SRC_PATH counts only when absolute and holding `core`.
        assert_eq!(rust_src(&sysroot, Some(own.as_os_str())), Some(own.clone()));
        assert_eq!(rust_src(&sysroot, Some(OsStr::new("own-src"))), None);
        assert_eq!(rust_src(&sysroot, Some(sysroot.as_os_str())), None);
        // The rust-src component, under the sysroot.
        std::fs::create_dir_all(sysroot.join(RUST_SRC)).unwrap();
        assert_eq!(rust_src(&sysroot, None), Some(sysroot.join(RUST_SRC)));
        assert_eq!(
            rust_src(&sysroot, Some(OsStr::new("/nowhere"))),
            Some(sysroot.join(RUST_SRC))
        );
        // The error names the folder and the way out, and a variable it
        // did not use.
        let e = |ignored_rust_src_path| {
            ToolchainError::NoRustSrc {
                sysroot: sysroot.clone(),
                ignored_rust_src_path,
            }
            .to_string()
        };
        assert!(
            e(false).contains("toolchain/lib/rustlib/src/rust/library, and"),
            "{}",
            e(false)
        );
        assert!(
            e(false).contains("rustup component add rust-src"),
            "{}",
            e(false)
        );
        assert!(!e(false).contains("RUST_SRC_PATH"), "{}", e(false));
        assert!(
            e(true).contains("(RUST_SRC_PATH is set, but"),
            "{}",
            e(true)
        );
    }

    #[test]
    fn a_dep_line_is_one_that_starts_with_dep_after_its_indent() {
        assert!(super::has_dep_line("use a;\n  :dep z3 = \"0.22\"\n"));
        assert!(super::has_dep_line(":dep puzzlebook = { path = \"..\" }"));
        assert!(!super::has_dep_line("// :dep in a comment\nlet dep = 1;"));
        assert!(!super::has_dep_line("println!(\":dep\");"));
    }

    #[test]
    fn the_config_file_gives_evcxr_the_runner_s_level() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("evcxr.toml");
        // evcxr's settings file: a table `evcxr` with `opt_level` a string
        // (evcxr's toml_parse.rs); the runner's cells build at level 0.
        let level = |file: &Path| {
            let text = std::fs::read_to_string(file).unwrap();
            let t: toml::Table = text.parse().unwrap();
            t["evcxr"]["opt_level"].as_str().unwrap().to_string()
        };
        write_config(dir.path()).unwrap();
        assert_eq!(level(&file), "0");
        // One that says otherwise is put right.
        std::fs::write(&file, "[evcxr]\nopt_level = \"2\"\n").unwrap();
        write_config(dir.path()).unwrap();
        assert_eq!(level(&file), "0");
        // One already right is left as it is, its time too (a sandbox's view
        // would otherwise copy it up for nothing).
        let old = std::time::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let f = std::fs::File::options().write(true).open(&file).unwrap();
        f.set_modified(old).unwrap();
        drop(f);
        write_config(dir.path()).unwrap();
        assert_eq!(std::fs::metadata(&file).unwrap().modified().unwrap(), old);
    }

    #[test]
    fn forgetting_the_cells_leaves_the_dependencies() {
        let slot = tempfile::tempdir().unwrap();
        let deps = slot
            .path()
            .join("target/x86_64-unknown-linux-gnu/debug/deps");
        let incremental = deps.with_file_name("incremental");
        let fingerprint = deps.with_file_name(".fingerprint");
        for d in [
            &deps,
            &incremental.join("ctx-1a/s-x"),
            &fingerprint.join("ctx-2b"),
            &fingerprint.join("z3-3c"),
            &slot.path().join("src"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        let cells = ["libctx-0d.so", "libcode_7.so", "ctx-0d.d"];
        let kept = ["libz3-4e.rlib", "libpuzzlebook-5f.rlib", "puzzlebook-5f.d"];
        for f in cells.iter().chain(&kept) {
            std::fs::write(deps.join(f), b"").unwrap();
        }
        std::fs::write(slot.path().join("src/lib.rs"), b"// BEGIN HIDDEN TESTS").unwrap();
        assert!(forget_cells(slot.path()).is_empty());
        for f in cells {
            assert!(!deps.join(f).exists(), "{f}");
        }
        for f in kept {
            assert!(deps.join(f).exists(), "{f}");
        }
        assert!(!slot.path().join("src/lib.rs").exists());
        assert!(!incremental.join("ctx-1a").exists());
        assert!(!fingerprint.join("ctx-2b").exists());
        assert!(fingerprint.join("z3-3c").exists());
    }

    use super::*;

    #[test]
    fn the_engines_library_folders_come_before_inherited_ones() {
        let ours = [PathBuf::from("/rust/lib"), PathBuf::from("/b/target/deps")];
        assert_eq!(
            library_path(&ours, None).unwrap(),
            "/rust/lib:/b/target/deps"
        );
        // `cargo run` puts the workspace's own deps/ first; ours go before it,
        // and an entry already there is not repeated.
        assert_eq!(
            library_path(&ours, Some(OsStr::new("/w/target/debug/deps:/rust/lib"))).unwrap(),
            "/rust/lib:/b/target/deps:/w/target/debug/deps"
        );
    }

    #[test]
    fn jobs_take_folders_beside_the_build_folder() {
        let base = Path::new("/c/puzzlebook/evcxr");
        assert_eq!(job_dir(base, 0), base);
        assert_eq!(job_dir(base, 1), Path::new("/c/puzzlebook/evcxr-1"));
        assert_eq!(job_dir(base, 3), Path::new("/c/puzzlebook/evcxr-3"));
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

    /// Runs the test `name` of this binary again in a child process, where
    /// it may change the working directory and the environment without
    /// disturbing the tests that run beside it; true in that child.
    fn in_a_child_process(name: &str) -> bool {
        if std::env::var_os("PUZZLEBOOK_TEST_CHILD").is_some() {
            return true;
        }
        let o = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--nocapture", "--test-threads", "1"])
            .env("PUZZLEBOOK_TEST_CHILD", "1")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(String::from_utf8_lossy(&o.stdout).contains("1 passed"));
        false
    }

    #[test]
    fn the_engine_scope_takes_paths_absolute_and_puts_everything_back() {
        if !in_a_child_process(
            "engine::tests::the_engine_scope_takes_paths_absolute_and_puts_everything_back",
        ) {
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let start = d.path().join("start");
        let notebooks = d.path().join("notebooks");
        std::fs::create_dir_all(&start).unwrap();
        std::fs::create_dir_all(&notebooks).unwrap();
        std::env::set_current_dir(&start).unwrap();
        std::env::set_var("EVCXR_TMPDIR", "before");
        std::env::remove_var("EVCXR_CONFIG_DIR");
        // A build folder where the relative path leads from each folder.
        for dir in [&start, &notebooks] {
            std::fs::create_dir_all(dir.join("evcxr")).unwrap();
        }
        // The copy of the standard library's sources goes in a cache of the
        // test's own.
        let cache = d.path().join("cache");
        std::env::set_var("XDG_CACHE_HOME", &cache);
        let rust_src_path = std::env::var_os("RUST_SRC_PATH");
        {
            let mut scope = EngineScope::enter().unwrap();
            // A relative build folder means the same folder whether the
            // working directory moves before the engine starts or after.
            scope.chdir(&notebooks).unwrap();
            scope
                .engine(Path::new("evcxr"), Path::new("evcxr/config"), Some(1 << 30))
                .unwrap();
            let start = start.canonicalize().unwrap();
            assert_eq!(
                std::env::var_os("EVCXR_TMPDIR").unwrap(),
                start.join("evcxr").as_os_str()
            );
            assert_eq!(
                std::env::var_os("EVCXR_CONFIG_DIR").unwrap(),
                start.join("evcxr/config").as_os_str()
            );
            assert_eq!(
                std::env::var(crate::engine::cell_process::MEMORY_VAR).unwrap(),
                (1u64 << 30).to_string()
            );
            assert_eq!(
                std::env::current_dir().unwrap(),
                notebooks.canonicalize().unwrap()
            );
            // The loader's folder exists before evcxr's child starts.
            assert!(std::env::var("LD_LIBRARY_PATH")
                .unwrap()
                .contains("evcxr/target/"));
            let deps = std::env::split_paths(&std::env::var_os("LD_LIBRARY_PATH").unwrap())
                .nth(1)
                .unwrap();
            assert!(
                deps.ends_with("debug/deps") && deps.is_dir(),
                "{}",
                deps.display()
            );
            // rust-analyzer reads the copy of the standard library's
            // sources: core's, without the x86 intrinsics, in the cache.
            let src = PathBuf::from(std::env::var_os("RUST_SRC_PATH").unwrap());
            assert!(src.join(std_sources::MARK).is_file(), "{}", src.display());
            assert!(src.join("core/src/lib.rs").is_file());
            assert!(!src.join("stdarch/crates/core_arch/src/x86_64").exists());
            assert!(src.starts_with(cache.canonicalize().unwrap()));
        }
        assert_eq!(std::env::var_os("RUST_SRC_PATH"), rust_src_path);
        assert_eq!(
            std::env::current_dir().unwrap(),
            start.canonicalize().unwrap()
        );
        assert_eq!(std::env::var("EVCXR_TMPDIR").unwrap(), "before");
        assert_eq!(std::env::var_os("EVCXR_CONFIG_DIR"), None);
        assert_eq!(
            std::env::var_os(crate::engine::cell_process::MEMORY_VAR),
            None
        );
    }
}
