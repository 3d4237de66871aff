//! The `puzzlebook` Jupyter kernelspec: what it contains, where it goes, and
//! installing or removing it.
//!
//! An installed kernelspec is a folder `<jupyter data>/kernels/puzzlebook`:
//!
//! ```text
//! kernel.json          argv runs this binary as the evcxr kernel; env sets EVCXR_CONFIG_DIR
//! evcxr/init.evcxr     :opt 0 and :dep puzzlebook = { path = "<crate>", features = ["z3-dylib"] }
//! evcxr/prelude.rs     use puzzlebook::prelude::*; and the `?` primer
//! ```
//!
//! Nothing here touches any other kernel's folder.

use std::path::{Path, PathBuf};

use thiserror::Error;

/// The kernel's name, the folder under `kernels/`.
pub const KERNEL_NAME: &str = "puzzlebook";
/// What Jupyter shows in its kernel list.
pub const DISPLAY_NAME: &str = "Rust (puzzlebook)";
/// The argument Jupyter passes first when it starts the kernel; the binary
/// treats a first argument of this as "serve as the kernel".
pub const CONTROL_FILE_ARG: &str = "--control_file";
/// The folder, inside the kernelspec, that the kernel's `EVCXR_CONFIG_DIR` names.
pub const CONFIG_FOLDER: &str = "evcxr";

/// What went wrong installing or removing the kernelspec.
#[derive(Debug, Error)]
pub enum KernelSpecError {
    /// `--root` does not hold the puzzlebook crate.
    #[error("{0} is not the puzzlebook crate (no Cargo.toml naming package \"puzzlebook\"); pass --root with the folder of a puzzlebook checkout")]
    NotTheCrate(PathBuf),
    /// No home folder to find the user's Jupyter data folder in.
    #[error("cannot find your Jupyter data folder: neither JUPYTER_DATA_DIR nor HOME is set; pass --prefix DIR")]
    NoDataDir,
    /// A path the kernelspec must spell out is not UTF-8.
    #[error("{0} is not valid UTF-8, and Jupyter's kernel.json needs it as text; move it to a UTF-8 path")]
    NotUtf8(PathBuf),
    /// `uninstall` found nothing to remove.
    #[error("no puzzlebook kernel is installed at {0}; nothing was removed (pass --user or --prefix DIR to say where it is)")]
    NotInstalled(PathBuf),
    /// The folder holds a kernelspec this command did not write.
    #[error("{0} holds a kernel.json that does not run puzzlebook; it was left alone. Remove it by hand if it is yours to remove")]
    NotOurs(PathBuf),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> KernelSpecError + '_ {
    move |source| KernelSpecError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Where a kernelspec goes, as in `jupyter kernelspec install`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// The user's Jupyter data folder.
    User,
    /// `<prefix>/share/jupyter`, for a virtual environment or a shared install.
    Prefix(PathBuf),
}

impl Location {
    /// The `kernels` folder for this location, given the process environment
    /// `env` (a lookup, so tests can pass their own).
    ///
    /// The user folder follows Jupyter's rule: `JUPYTER_DATA_DIR`, else
    /// `~/Library/Jupyter` on macOS, `%APPDATA%\jupyter` on Windows, and
    /// `$XDG_DATA_HOME/jupyter` or `~/.local/share/jupyter` elsewhere.
    pub fn kernels_dir(
        &self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<PathBuf, KernelSpecError> {
        let data = match self {
            Location::Prefix(p) => p.join("share").join("jupyter"),
            Location::User => {
                let nonempty = |k: &str| env(k).filter(|v| !v.is_empty());
                if let Some(d) = nonempty("JUPYTER_DATA_DIR") {
                    PathBuf::from(d)
                } else if cfg!(target_os = "macos") {
                    PathBuf::from(nonempty("HOME").ok_or(KernelSpecError::NoDataDir)?)
                        .join("Library/Jupyter")
                } else if cfg!(windows) {
                    PathBuf::from(nonempty("APPDATA").ok_or(KernelSpecError::NoDataDir)?)
                        .join("jupyter")
                } else if let Some(x) = nonempty("XDG_DATA_HOME") {
                    PathBuf::from(x).join("jupyter")
                } else {
                    PathBuf::from(nonempty("HOME").ok_or(KernelSpecError::NoDataDir)?)
                        .join(".local/share/jupyter")
                }
            }
        };
        Ok(data.join("kernels"))
    }
}

/// The kernelspec's contents, for one binary and one crate checkout.
#[derive(Debug, Clone)]
pub struct KernelSpec {
    /// The binary Jupyter starts (this `puzzlebook` binary).
    pub exe: PathBuf,
    /// The puzzlebook crate the kernel loads with `:dep`.
    pub crate_dir: PathBuf,
    /// The cells' memory limit the kernel is started with
    /// (`PUZZLEBOOK_CELL_MEMORY` in kernel.json's `env`: a size or `off`);
    /// `None` leaves the kernel's default, half of the machine's memory.
    pub cell_memory: Option<String>,
}

fn utf8(p: &Path) -> Result<&str, KernelSpecError> {
    p.to_str()
        .ok_or_else(|| KernelSpecError::NotUtf8(p.to_path_buf()))
}

impl KernelSpec {
    /// The spec for `crate_dir`, checked to be a puzzlebook checkout, run by `exe`.
    pub fn new(exe: PathBuf, crate_dir: &Path) -> Result<KernelSpec, KernelSpecError> {
        let manifest = crate_dir.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest)
            .map_err(|_| KernelSpecError::NotTheCrate(crate_dir.to_path_buf()))?;
        let names_us = text
            .lines()
            .map(|l| l.split_whitespace().collect::<String>())
            .any(|l| l == "name=\"puzzlebook\"");
        if !names_us {
            return Err(KernelSpecError::NotTheCrate(crate_dir.to_path_buf()));
        }
        let crate_dir = crate_dir.canonicalize().map_err(io(crate_dir))?;
        Ok(KernelSpec {
            exe,
            crate_dir,
            cell_memory: None,
        })
    }

    /// The files of the kernelspec when installed at `spec_dir`, as
    /// (path relative to `spec_dir`, contents).
    pub fn files(&self, spec_dir: &Path) -> Result<Vec<(PathBuf, String)>, KernelSpecError> {
        let exe = utf8(&self.exe)?;
        let config = spec_dir.join(CONFIG_FOLDER);
        let mut env = serde_json::json!({ "EVCXR_CONFIG_DIR": utf8(&config)? });
        if let Some(memory) = &self.cell_memory {
            env[crate::limits::CELL_MEMORY_ENV] = memory.clone().into();
        }
        let kernel_json = serde_json::json!({
            "argv": [exe, CONTROL_FILE_ARG, "{connection_file}"],
            "display_name": DISPLAY_NAME,
            "language": "rust",
            "interrupt_mode": "message",
            "env": env,
            "metadata": { "puzzlebook": {
                "crate": utf8(&self.crate_dir)?,
                "version": env!("CARGO_PKG_VERSION"),
            } },
        });
        let mut json = serde_json::to_string_pretty(&kernel_json).expect("a JSON value");
        json.push('\n');
        // A TOML basic string; JSON's escapes are a subset of TOML's.
        let crate_path = serde_json::to_string(utf8(&self.crate_dir)?).expect("a string");
        let init = format!(
            "// Loaded by the puzzlebook Jupyter kernel before the first cell.\n\
             {}\
             :dep puzzlebook = {{ path = {crate_path}, features = [\"z3-dylib\"] }}\n",
            crate::engine::init_commands()
        );
        let prelude = prelude();
        Ok(vec![
            (PathBuf::from("kernel.json"), json),
            (Path::new(CONFIG_FOLDER).join("init.evcxr"), init),
            (Path::new(CONFIG_FOLDER).join("prelude.rs"), prelude),
        ])
    }

    /// Writes the kernelspec into `kernels_dir/puzzlebook`, replacing an older
    /// puzzlebook kernelspec there; returns the folder. The new folder is
    /// written beside and renamed into place, so a failure leaves the old one.
    pub fn install(&self, kernels_dir: &Path) -> Result<PathBuf, KernelSpecError> {
        let spec_dir = kernels_dir.join(KERNEL_NAME);
        if spec_dir.exists() && !is_ours(&spec_dir) {
            return Err(KernelSpecError::NotOurs(spec_dir));
        }
        std::fs::create_dir_all(kernels_dir).map_err(io(kernels_dir))?;
        let staging = tempfile::Builder::new()
            .prefix(".puzzlebook-install-")
            .tempdir_in(kernels_dir)
            .map_err(io(kernels_dir))?;
        for (rel, contents) in self.files(&spec_dir)? {
            let path = staging.path().join(&rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            std::fs::write(&path, contents).map_err(io(&path))?;
        }
        // Move the old folder aside, the new one in, then drop the old one.
        let old = tempfile::Builder::new()
            .prefix(".puzzlebook-old-")
            .tempdir_in(kernels_dir)
            .map_err(io(kernels_dir))?;
        let old_spec = old.path().join(KERNEL_NAME);
        if spec_dir.exists() {
            std::fs::rename(&spec_dir, &old_spec).map_err(io(&spec_dir))?;
        }
        let staged = staging.keep();
        if let Err(e) = std::fs::rename(&staged, &spec_dir) {
            if old_spec.exists() {
                let _ = std::fs::rename(&old_spec, &spec_dir);
            }
            let _ = std::fs::remove_dir_all(&staged);
            return Err(io(&spec_dir)(e));
        }
        Ok(spec_dir)
    }
}

/// The kernel's `prelude.rs`: the crate's prelude, then the statement that lets
/// cells use `?` from the start ([`crate::engine::PRIME_QUESTION_MARK`]).
fn prelude() -> String {
    format!(
        "use puzzlebook::prelude::*;\n{}\n",
        crate::engine::PRIME_QUESTION_MARK
    )
}

/// Whether `spec_dir/kernel.json` is one `install` wrote.
fn is_ours(spec_dir: &Path) -> bool {
    std::fs::read_to_string(spec_dir.join("kernel.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|v| v["metadata"]["puzzlebook"].is_object())
}

/// Removes `kernels_dir/puzzlebook` if `install` wrote it; returns the folder.
pub fn uninstall(kernels_dir: &Path) -> Result<PathBuf, KernelSpecError> {
    let spec_dir = kernels_dir.join(KERNEL_NAME);
    if !spec_dir.join("kernel.json").exists() {
        return Err(KernelSpecError::NotInstalled(spec_dir));
    }
    if !is_ours(&spec_dir) {
        return Err(KernelSpecError::NotOurs(spec_dir));
    }
    std::fs::remove_dir_all(&spec_dir).map_err(io(&spec_dir))?;
    Ok(spec_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn prefix_and_user_folders_follow_jupyter() {
        let p = Location::Prefix("/opt/venv".into());
        assert_eq!(
            p.kernels_dir(env(&[])).unwrap(),
            Path::new("/opt/venv/share/jupyter/kernels")
        );
        let u = Location::User;
        assert_eq!(
            u.kernels_dir(env(&[("JUPYTER_DATA_DIR", "/j"), ("HOME", "/h")]))
                .unwrap(),
            Path::new("/j/kernels")
        );
        if cfg!(target_os = "linux") {
            assert_eq!(
                u.kernels_dir(env(&[("HOME", "/h")])).unwrap(),
                Path::new("/h/.local/share/jupyter/kernels")
            );
            assert_eq!(
                u.kernels_dir(env(&[("HOME", "/h"), ("XDG_DATA_HOME", "/x")]))
                    .unwrap(),
                Path::new("/x/jupyter/kernels")
            );
        }
        assert!(matches!(
            u.kernels_dir(env(&[])),
            Err(KernelSpecError::NoDataDir)
        ));
    }

    #[test]
    fn the_spec_runs_this_binary_with_the_crate_loaded() {
        let spec = KernelSpec::new(
            "/bin/puzzlebook".into(),
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        )
        .unwrap();
        let files = spec.files(Path::new("/k/puzzlebook")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&files[0].1).unwrap();
        assert_eq!(
            json["argv"],
            serde_json::json!(["/bin/puzzlebook", "--control_file", "{connection_file}"])
        );
        assert_eq!(json["display_name"], "Rust (puzzlebook)");
        assert_eq!(json["env"]["EVCXR_CONFIG_DIR"], "/k/puzzlebook/evcxr");
        let init = &files[1].1;
        assert!(init.contains(":opt 0\n"), "{init}");
        let dep = format!(
            ":dep puzzlebook = {{ path = {:?}, features = [\"z3-dylib\"] }}\n",
            spec.crate_dir.to_str().unwrap()
        );
        assert!(init.contains(&dep), "{init}");
        assert_eq!(
            files[2].1,
            "use puzzlebook::prelude::*;\nOk::<(), std::fmt::Error>(())?;\n"
        );
        // No memory setting unless asked: the kernel then uses its default.
        assert_eq!(json["env"].get("PUZZLEBOOK_CELL_MEMORY"), None);
        let limited = KernelSpec {
            cell_memory: Some("4G".into()),
            ..spec
        };
        let files = limited.files(Path::new("/k/puzzlebook")).unwrap();
        let json: serde_json::Value = serde_json::from_str(&files[0].1).unwrap();
        assert_eq!(json["env"]["PUZZLEBOOK_CELL_MEMORY"], "4G");
        assert_eq!(json["env"]["EVCXR_CONFIG_DIR"], "/k/puzzlebook/evcxr");
    }

    #[test]
    fn a_folder_that_is_not_the_crate_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let e = KernelSpec::new("/bin/x".into(), d.path()).unwrap_err();
        assert!(e.to_string().contains("--root"), "{e}");
        std::fs::write(d.path().join("Cargo.toml"), "[package]\nname = \"other\"\n").unwrap();
        assert!(matches!(
            KernelSpec::new("/bin/x".into(), d.path()),
            Err(KernelSpecError::NotTheCrate(_))
        ));
    }

    #[test]
    fn install_replaces_ours_and_leaves_others_alone() {
        let d = tempfile::tempdir().unwrap();
        let kernels = d.path().join("kernels");
        let spec = KernelSpec::new(
            "/bin/puzzlebook".into(),
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        )
        .unwrap();
        let dir = spec.install(&kernels).unwrap();
        assert!(dir.join("evcxr/init.evcxr").is_file());
        std::fs::write(dir.join("stale"), "x").unwrap();
        spec.install(&kernels).unwrap();
        assert!(!dir.join("stale").exists(), "a reinstall starts clean");
        // No staging folders are left behind.
        let names: Vec<_> = std::fs::read_dir(&kernels)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("puzzlebook")]);

        uninstall(&kernels).unwrap();
        assert!(!dir.exists());
        assert!(matches!(
            uninstall(&kernels),
            Err(KernelSpecError::NotInstalled(_))
        ));

        // Someone else's kernel that happens to be called puzzlebook.
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("kernel.json"), r#"{"argv": ["python"]}"#).unwrap();
        assert!(matches!(
            spec.install(&kernels),
            Err(KernelSpecError::NotOurs(_))
        ));
        assert!(matches!(
            uninstall(&kernels),
            Err(KernelSpecError::NotOurs(_))
        ));
        assert_eq!(
            std::fs::read_to_string(dir.join("kernel.json")).unwrap(),
            r#"{"argv": ["python"]}"#
        );
    }
}
