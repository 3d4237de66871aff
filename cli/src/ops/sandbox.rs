//! A submission's sandbox: bubblewrap with no network, processes of its own,
//! a private copy-on-write view of the build folder, and nothing else of the
//! grader's machine but what a run needs, read-only: the system's programs,
//! libraries and settings ([`SYSTEM`]) and the paths it is given.
//!
//! The copy-on-write views are overlayfs mounts, made in a mount namespace
//! of their own by util-linux's `unshare` and `mount` (Debian bookworm's
//! bubblewrap, 0.8.0, has no `--overlay`), each with its upper layer in the
//! sandbox's private folder: what a run writes there is gone with it, and
//! no run sees another's. `prlimit` bounds file size and processes for
//! everything inside.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use thiserror::Error;

/// Why no sandbox can be made here.
#[derive(Debug, Error)]
pub enum SandboxError {
    /// A tool is missing or refused to run.
    #[error("cannot start a sandbox for the submissions: {why}. Install bubblewrap (Debian: `apt install bubblewrap`; util-linux gives `unshare` and `prlimit`) and let user namespaces be made, or grade with --no-sandbox, which trusts every submission with this machine and every other student's grade")]
    Unavailable {
        /// What went wrong.
        why: String,
    },
    /// A path overlayfs cannot take in its options.
    #[error("cannot give a sandbox a copy-on-write view of {path}: its path has a `,`, `:` or `\\`, which overlayfs options cannot hold; move it (EVCXR_TMPDIR, CARGO_HOME, TMPDIR) to a plain path")]
    Path {
        /// The path.
        path: PathBuf,
    },
}

/// The most bytes one file written in a sandbox may hold: far more than a
/// compiled cell, far less than a disk.
pub const FILE_SIZE: u64 = 4 << 30;

/// The most processes the grader's user may have while a sandbox runs:
/// enough for cargo and rustc, not for a fork bomb. (The kernel does not
/// count root's: run as root, the PID namespace still ends them all.)
pub const PROCESSES: u64 = 4096;

/// What a sandbox shows, and where it keeps what it writes.
#[derive(Debug, Clone, Default)]
pub struct Sandbox {
    /// Its own folder on the host, for the upper layers of its views; not
    /// seen inside.
    pub private: PathBuf,
    /// Folders seen at their own paths, writable, copy-on-write: the build
    /// folder and `CARGO_HOME`.
    pub copy_on_write: Vec<PathBuf>,
    /// Folders and files seen read-only at their own paths: the toolchain,
    /// the crates the notebook's `:dep` lines name, this program.
    pub read_only: Vec<PathBuf>,
    /// Folders and files seen empty and read-only even where a folder
    /// above them is shown (a shown path inside a hidden folder is still
    /// seen): the source notebook, the submissions, the output folder, the
    /// teacher's folders. What nothing shows is not seen anyway.
    pub hidden: Vec<PathBuf>,
    /// The one folder it writes that the grader reads, at its own path; the
    /// run's working folder is `job/work` and its home `job/home`.
    pub job: PathBuf,
    /// Its whole environment.
    pub env: Vec<(OsString, OsString)>,
}

impl Sandbox {
    /// What `script` printed on its standard output, run by `/bin/sh` in
    /// the sandbox, which must end well (it shows its standard error if not).
    #[cfg(test)]
    pub(crate) fn sh(&self, script: &str) -> String {
        let out = self
            .command(Path::new("/bin/sh"), &["-c".as_ref(), script.as_ref()])
            .unwrap()
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The command that runs `program` with `args` in the sandbox. Its
    /// process is bubblewrap's: killing it ends every process inside.
    pub fn command(&self, program: &Path, args: &[&OsStr]) -> Result<Command, SandboxError> {
        // The private folder holds the views' upper layers.
        for dir in self
            .copy_on_write
            .iter()
            .chain(std::iter::once(&self.private))
        {
            let text = dir.to_string_lossy();
            if text.contains([',', ':', '\\']) {
                return Err(SandboxError::Path { path: dir.clone() });
            }
        }
        let root = unsafe { libc::geteuid() } == 0;
        let mut c = Command::new("prlimit");
        c.arg(format!("--fsize={FILE_SIZE}"))
            .arg(format!("--nproc={PROCESSES}"))
            .args(["--", "unshare", "--mount", "--propagation", "private"]);
        // An ordinary user makes the mounts as root of a user namespace.
        if !root {
            c.arg("--map-root-user");
        }
        let options = if root { "" } else { ",userxattr" };
        c.args(["--", "sh", "-c", &mount_script(options), "sh"]);
        c.arg(self.copy_on_write.len().to_string());
        for (k, dir) in self.copy_on_write.iter().enumerate() {
            c.arg(dir)
                .arg(self.private.join(format!("upper-{k}")))
                .arg(self.private.join(format!("work-{k}")));
        }
        c.arg("bwrap").args(self.bwrap_arguments());
        c.arg("--").arg(program).args(args);
        c.env_clear().stdin(Stdio::null());
        // Should the grader die, killed or not, the sandbox dies with it:
        // bubblewrap's outer process gets SIGKILL, and its inner one, which
        // it started with `--die-with-parent`, follows.
        // SAFETY: `prctl` is async-signal-safe.
        unsafe {
            c.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        // The tools themselves are found on the grader's PATH.
        if let Some(path) = std::env::var_os("PATH") {
            c.env("PATH", path);
        }
        Ok(c)
    }

    /// Makes the private folder's layers and the job's folders.
    pub fn prepare(&self) -> std::io::Result<()> {
        for k in 0..self.copy_on_write.len() {
            std::fs::create_dir_all(self.private.join(format!("upper-{k}")))?;
            std::fs::create_dir_all(self.private.join(format!("work-{k}")))?;
        }
        std::fs::write(self.private.join("empty-file"), "")?;
        std::fs::create_dir_all(self.job.join("work"))?;
        std::fs::create_dir_all(self.job.join("home"))
    }

    /// bubblewrap's arguments. The sandbox starts empty: the system's
    /// folders ([`SYSTEM`]) and what `read_only`, `copy_on_write` and `job`
    /// name are shown, nothing else of the host. Mounts are made in order of
    /// depth, so the deepest rule for a path wins: a folder shown inside a
    /// hidden one is seen, and a hidden one inside a shown one is not.
    fn bwrap_arguments(&self) -> Vec<OsString> {
        let mut a: Vec<OsString> = Vec::new();
        let mut push = |words: &[&OsStr]| a.extend(words.iter().map(|w| w.to_os_string()));
        for dir in SYSTEM.iter().map(Path::new) {
            match std::fs::read_link(dir) {
                // Debian's /bin, /lib, /sbin: links into /usr.
                Ok(target) => push(&["--symlink".as_ref(), target.as_os_str(), dir.as_os_str()]),
                Err(_) if dir.is_dir() => {
                    push(&["--ro-bind".as_ref(), dir.as_os_str(), dir.as_os_str()])
                }
                Err(_) => {}
            }
        }
        let tmp_size = TMP_SIZE.to_string();
        let shm_size = SHM_SIZE.to_string();
        push(&[
            "--dev".as_ref(),
            "/dev".as_ref(),
            "--size".as_ref(),
            shm_size.as_ref(),
            "--tmpfs".as_ref(),
            "/dev/shm".as_ref(),
            "--proc".as_ref(),
            "/proc".as_ref(),
            "--size".as_ref(),
            tmp_size.as_ref(),
            "--tmpfs".as_ref(),
            "/tmp".as_ref(),
        ]);
        let empty_file = self.private.join("empty-file");
        let plan = self.plan();
        for &(path, rule) in &plan {
            match rule {
                Rule::Show { writable: true } => {
                    push(&["--bind".as_ref(), path.as_os_str(), path.as_os_str()])
                }
                Rule::Show { writable: false } if path.exists() => {
                    push(&["--ro-bind".as_ref(), path.as_os_str(), path.as_os_str()])
                }
                Rule::Show { writable: false } => {}
                // An empty folder in memory, in which a deeper shown path
                // can still be mounted; made read-only below.
                Rule::Hide if path.is_dir() => push(&[
                    "--size".as_ref(),
                    "1048576".as_ref(),
                    "--tmpfs".as_ref(),
                    path.as_os_str(),
                ]),
                Rule::Hide if path.exists() => push(&[
                    "--ro-bind".as_ref(),
                    empty_file.as_os_str(),
                    path.as_os_str(),
                ]),
                Rule::Hide => {}
            }
        }
        // Nothing but the mounts above can be written: not the empty root
        // bubblewrap starts from, nor `/dev`, both of which live in memory.
        for &(path, rule) in &plan {
            if rule == Rule::Hide && path.is_dir() {
                push(&["--remount-ro".as_ref(), path.as_os_str()]);
            }
        }
        push(&[
            "--remount-ro".as_ref(),
            "/dev".as_ref(),
            "--remount-ro".as_ref(),
            "/".as_ref(),
            "--chdir".as_ref(),
            self.job.join("work").as_os_str(),
            "--unshare-all".as_ref(),
            // The program is process 1 itself, with no bubblewrap reaper
            // above it holding its descriptors (the results' pipe) open
            // under `/proc/1/fd` for any process inside; and process 1
            // cannot be killed from inside.
            "--as-pid-1".as_ref(),
            "--die-with-parent".as_ref(),
            "--new-session".as_ref(),
            "--cap-drop".as_ref(),
            "ALL".as_ref(),
            "--clearenv".as_ref(),
        ]);
        for (name, value) in &self.env {
            push(&["--setenv".as_ref(), name.as_os_str(), value.as_os_str()]);
        }
        a
    }

    /// Each path shown or hidden, in the order its mount is made: by depth,
    /// and at one depth a hidden path after a shown one, so that hiding
    /// wins. A hidden path is left out where nothing shown would show it.
    fn plan(&self) -> Vec<(&Path, Rule)> {
        let mut rules: Vec<(&Path, Rule)> = self
            .read_only
            .iter()
            .map(|p| (p.as_path(), Rule::Show { writable: false }))
            .chain(
                self.copy_on_write
                    .iter()
                    .chain(std::iter::once(&self.job))
                    .map(|p| (p.as_path(), Rule::Show { writable: true })),
            )
            .chain(self.hidden.iter().map(|p| (p.as_path(), Rule::Hide)))
            .collect();
        rules.sort_by_key(|(p, rule)| (p.components().count(), *rule == Rule::Hide));
        let mut plan: Vec<(&Path, Rule)> = Vec::new();
        for (path, rule) in rules {
            if rule == Rule::Hide {
                // What the path is under once the mounts before it are made:
                // the deepest of them that holds it, else the system's.
                let under = plan
                    .iter()
                    .rev()
                    .find(|(p, _)| path.starts_with(p))
                    .map(|(_, r)| *r);
                let system = SYSTEM.iter().any(|d| path.starts_with(d));
                let seen = match under {
                    Some(r) => r != Rule::Hide,
                    None => system,
                };
                if !seen {
                    continue;
                }
            }
            plan.push((path, rule));
        }
        plan
    }
}

/// What the sandbox does with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Seen at its own path.
    Show { writable: bool },
    /// Seen as an empty read-only folder or file.
    Hide,
}

/// The host's folders every sandbox sees, read-only: its programs, its
/// libraries and its settings. Nothing else of the host is there unless a
/// sandbox names it: not `/home`, `/root`, `/srv`, `/var`, `/run` or `/tmp`.
pub const SYSTEM: [&str; 8] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

/// The size of a sandbox's own `/tmp`, which lives in memory.
pub const TMP_SIZE: u64 = 512 << 20;

/// The size of a sandbox's `/dev/shm`.
pub const SHM_SIZE: u64 = 64 << 20;

/// The files under `/etc` that not everyone may read (`/etc/shadow`, ssh's
/// host keys): hidden, since a sandbox run as root could read them, its
/// capabilities dropped or not.
pub fn private_system_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        use std::os::unix::fs::PermissionsExt;
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
                continue;
            };
            if meta.is_dir() {
                if meta.permissions().mode() & 0o005 != 0o005 {
                    out.push(e.path());
                } else {
                    walk(&e.path(), out);
                }
            } else if meta.is_file() && meta.permissions().mode() & 0o004 == 0 {
                out.push(e.path());
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new("/etc"), &mut out);
    out.sort();
    out
}

/// The shell that mounts each copy-on-write view (`$1` of them, then three
/// paths each: the folder, its upper layer, overlayfs's work folder) over
/// its folder, and then runs the rest of its arguments. The paths are
/// arguments, never part of the script.
fn mount_script(options: &str) -> String {
    format!(
        "set -e; n=$1; shift; while [ \"$n\" -gt 0 ]; do \
         mount -t overlay overlay -o \"lowerdir=$1,upperdir=$2,workdir=$3{options}\" \"$1\"; \
         shift 3; n=$((n - 1)); done; exec \"$@\""
    )
}

/// Whether a sandbox can be made here: one like a submission's, over a
/// folder of its own, runs `true`. The error says what failed.
pub fn check_available(scratch: &Path) -> Result<(), SandboxError> {
    let unavailable = |why: String| SandboxError::Unavailable { why };
    let lower = scratch.join("lower");
    std::fs::create_dir_all(&lower)
        .map_err(|e| unavailable(format!("{}: {e}", lower.display())))?;
    let sandbox = Sandbox {
        private: scratch.join("private"),
        copy_on_write: vec![lower.clone()],
        job: scratch.join("job"),
        ..Sandbox::default()
    };
    sandbox
        .prepare()
        .map_err(|e| unavailable(format!("{}: {e}", scratch.display())))?;
    let mut c = sandbox.command(
        Path::new("/bin/sh"),
        &["-c".as_ref(), "echo x > x && touch ../../lower/y".as_ref()],
    )?;
    let out = c
        .output()
        .map_err(|e| unavailable(format!("cannot run prlimit: {e}")))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(unavailable(format!(
            "a trial sandbox failed ({}): {}",
            out.status,
            said.trim()
        )));
    }
    if lower.join("y").exists() {
        return Err(unavailable(
            "a trial sandbox wrote through its copy-on-write view".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &Sandbox) -> Vec<String> {
        s.bwrap_arguments()
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_deepest_rule_wins_and_what_nothing_shows_is_not_mounted() {
        let t = tempfile::tempdir().unwrap();
        let course = t.path().join("course");
        let lib = course.join("lib");
        let notebooks = lib.join("notebooks");
        std::fs::create_dir_all(&notebooks).unwrap();
        let source = notebooks.join("02.ipynb");
        std::fs::write(&source, "{}").unwrap();
        let inside_lib = lib.join("src");
        std::fs::create_dir_all(&inside_lib).unwrap();
        let out = t.path().join("out");
        std::fs::create_dir_all(&out).unwrap();
        let s = Sandbox {
            private: t.path().join("p"),
            copy_on_write: vec![t.path().join("build")],
            // `lib/src` is shown inside `lib/notebooks`'s sibling; `/` is
            // shown too, with every hidden path inside it.
            read_only: vec![lib.clone(), inside_lib.clone(), PathBuf::from("/")],
            hidden: vec![
                course.clone(),
                notebooks.clone(),
                source.clone(),
                out.clone(),
                lib.clone(),
            ],
            job: t.path().join("p/job"),
            env: vec![("HOME".into(), t.path().join("p/job/home").into())],
        };
        let w = words(&s);
        let at = |needle: &[&str]| {
            w.windows(needle.len())
                .position(|x| x == needle)
                .unwrap_or_else(|| panic!("{needle:?} in {w:?}"))
        };
        let p = |p: &Path| p.display().to_string();
        // `/` is shown, the course inside it hidden after it; the library
        // is both shown and hidden: hiding wins; the library's `src`,
        // deeper, is shown over it; the hidden folders are made read-only
        // after every mount inside them.
        let show_root = at(&["--ro-bind", "/", "/"]);
        let hide_course = at(&["--tmpfs", &p(&course)]);
        let show_lib = at(&["--ro-bind", &p(&lib), &p(&lib)]);
        let hide_lib = at(&["--tmpfs", &p(&lib)]);
        let show_src = at(&["--ro-bind", &p(&inside_lib), &p(&inside_lib)]);
        let lib_read_only = at(&["--remount-ro", &p(&lib)]);
        assert!(show_root < hide_course && hide_course < show_lib, "{w:?}");
        assert!(show_lib < hide_lib && hide_lib < show_src, "{w:?}");
        assert!(show_src < lib_read_only, "{w:?}");
        // Inside a hidden folder, a hidden file needs no mount of its own.
        assert!(!w.contains(&p(&source)), "{w:?}");
        assert!(!w.contains(&p(&notebooks)), "{w:?}");
        at(&["--tmpfs", &p(&out)]);
        at(&[
            "--bind",
            &p(&t.path().join("build")),
            &p(&t.path().join("build")),
        ]);
        at(&["--remount-ro", "/"]);
        at(&[
            "--unshare-all",
            "--as-pid-1",
            "--die-with-parent",
            "--new-session",
        ]);
        at(&["--clearenv"]);
        assert!(!w.iter().any(|x| x == "--share-net"));
    }

    #[test]
    fn a_sandbox_starts_empty_but_for_the_system_and_what_it_is_given() {
        let t = tempfile::tempdir().unwrap();
        let secret = t.path().join("submissions/bob.ipynb");
        std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
        std::fs::write(&secret, "{}").unwrap();
        let s = Sandbox {
            private: t.path().join("p"),
            hidden: vec![secret.clone()],
            job: t.path().join("p/job"),
            ..Sandbox::default()
        };
        let w = words(&s);
        let p = |p: &Path| p.display().to_string();
        // No `/` (so no /home, /root, /srv, /var, /run), and a file hidden
        // where nothing shows it needs no mount.
        assert!(!w.windows(3).any(|x| x == ["--ro-bind", "/", "/"]), "{w:?}");
        assert!(!w.contains(&p(&secret)), "{w:?}");
        assert!(
            w.windows(3).any(|x| x == ["--ro-bind", "/usr", "/usr"]),
            "{w:?}"
        );
        assert!(w.windows(2).any(|x| x == ["--tmpfs", "/tmp"]), "{w:?}");
        // A system file nobody may read is hidden inside what is shown.
        let s = Sandbox {
            hidden: vec![PathBuf::from("/etc/shadow")],
            ..s
        };
        let empty_file = p(&s.private.join("empty-file"));
        assert!(words(&s)
            .windows(3)
            .any(|x| x == ["--ro-bind", &empty_file, "/etc/shadow"]));
    }

    #[test]
    fn etc_s_files_not_for_everyone_are_found_and_no_others() {
        use std::os::unix::fs::PermissionsExt;
        let found = private_system_files();
        let others_may_read = |p: &Path| {
            let mode = std::fs::symlink_metadata(p).unwrap().permissions().mode();
            mode & 0o004 != 0 && (!p.is_dir() || mode & 0o001 != 0)
        };
        for p in &found {
            assert!(!others_may_read(p), "{} is readable by all", p.display());
        }
        assert!(!found.contains(&PathBuf::from("/etc/passwd")));
        // Debian's /etc/shadow is root's and the shadow group's alone.
        let shadow = Path::new("/etc/shadow");
        if shadow.exists() && !others_may_read(shadow) {
            assert!(found.iter().any(|p| p == shadow), "{found:?}");
        }
    }

    #[test]
    fn a_path_overlayfs_cannot_hold_is_refused_by_name() {
        let s = Sandbox {
            copy_on_write: vec![PathBuf::from("/a,b")],
            ..Sandbox::default()
        };
        let e = s.command(Path::new("/bin/true"), &[]).unwrap_err();
        assert!(e.to_string().contains("/a,b"), "{e}");
    }

    #[test]
    fn a_sandbox_writes_its_view_not_the_folder_and_leaves_nothing_running() {
        let t = tempfile::tempdir().unwrap();
        check_available(&t.path().join("trial")).unwrap();
        let lower = t.path().join("build");
        std::fs::create_dir_all(&lower).unwrap();
        std::fs::write(lower.join("f"), "base").unwrap();
        let secret = t.path().join("secret.ipynb");
        std::fs::write(&secret, "hidden tests").unwrap();
        // A hidden folder with a shown one inside it.
        let course = t.path().join("course");
        std::fs::create_dir_all(course.join("crate")).unwrap();
        std::fs::write(course.join("answers.txt"), "42").unwrap();
        std::fs::write(course.join("crate/lib.rs"), "fn f() {}").unwrap();
        let s = Sandbox {
            private: t.path().join("p"),
            copy_on_write: vec![lower.clone()],
            read_only: vec![t.path().to_path_buf(), course.join("crate")],
            hidden: vec![secret.clone(), course.clone()],
            job: t.path().join("p/job"),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        };
        s.prepare().unwrap();
        let script = format!(
            "echo mine > {f}; cat {f}; cat {secret} | wc -c; \
             (setsid sh -c 'sleep 3; echo late > {marker}' &); \
             cat /proc/1/comm; echo $HOME; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' '; echo; \
             test -e /root && echo root-seen || echo no-root; \
             (touch /x || touch /dev/x) 2>/dev/null && echo wrote-root || echo read-only; \
             head -c {big} /dev/zero > /tmp/big 2>/dev/null && echo tmp-unbounded || echo tmp-full; \
             ls {course} | tr '\\n' ' '; echo; cat {course}/crate/lib.rs; echo; \
             touch {course}/x 2>/dev/null && echo hidden-writable || echo hidden-read-only; \
             grep -E '^Max (file size|processes) ' /proc/self/limits | tr -s ' '",
            course = course.display(),
            big = TMP_SIZE + (1 << 20),
            f = lower.join("f").display(),
            secret = secret.display(),
            marker = t.path().join("p/job/late").display(),
        );
        let said = s.sh(&script);
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(lines.len(), 13, "{said}");
        assert_eq!(lines[0], "mine");
        assert_eq!(lines[1], "0", "the secret reads as empty");
        // Process 1 is the program: the grader's processes, and
        // bubblewrap's, are not there.
        assert_eq!(lines[2], "sh", "{said}");
        assert_eq!(lines[3], "", "no HOME but the one given");
        assert_eq!(lines[4], "lo ", "the loopback device alone: no network");
        assert_eq!(
            lines[5..11],
            [
                "no-root",
                "read-only",
                "tmp-full",
                "crate ",
                "fn f() {}",
                "hidden-read-only"
            ],
            "{said}"
        );
        // Every process inside has the limits on files and processes.
        assert_eq!(
            lines[11..],
            [
                format!("Max file size {FILE_SIZE} {FILE_SIZE} bytes "),
                format!("Max processes {PROCESSES} {PROCESSES} processes "),
            ],
            "{said}"
        );
        assert_eq!(std::fs::read_to_string(lower.join("f")).unwrap(), "base");
        std::thread::sleep(std::time::Duration::from_secs(4));
        assert!(
            !t.path().join("p/job/late").exists(),
            "nothing outlives the run"
        );
    }
}
