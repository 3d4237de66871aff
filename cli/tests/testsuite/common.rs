//! Helpers shared by the command's integration tests.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

use serde_json::Value;

use puzzlebook_cli::kernel::LOADING_NOTE;
use puzzlebook_cli::runner::hash::library_files;

/// The checkout: the library's folder, which holds `notebooks/` and `reports/`.
pub fn root_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .canonicalize()
        .expect("the checkout exists")
}

/// The command's package folder (`cli/`), which holds these tests' fixtures.
pub fn cli_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `puzzlebook` binary with `args`, and without `CI` (which would turn
/// `report` into a check).
pub fn puzzlebook(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_puzzlebook"));
    c.args(args).env_remove("CI");
    c
}

/// Bytes a process printed, as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A process's standard output, after asserting that it succeeded (else its
/// output and errors, under `what`).
pub fn ok(o: Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what} failed ({}):\n{}\n{}",
        o.status,
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

/// The Python the Jupyter and browser tests drive their tools from (nbclient,
/// websocket-client, Pillow): cli/tests/kernel/setup-venv makes it once.
pub fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = Command::new(cli_dir().join("tests/kernel/setup-venv"))
            .output()
            .expect("cli/tests/kernel/setup-venv runs");
        let stdout = ok(
            out,
            "cli/tests/kernel/setup-venv (python3 -m venv, pip install)",
        );
        PathBuf::from(stdout.trim())
    })
}

/// The `bin` folder of the environment with nbgrader in it (`setup-venv
/// nbgrader`, made once).
pub fn nbgrader_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let out = Command::new(cli_dir().join("tests/kernel/setup-venv"))
            .arg("nbgrader")
            .output()
            .expect("cli/tests/kernel/setup-venv runs");
        let python = ok(
            out,
            "cli/tests/kernel/setup-venv nbgrader (python3 -m venv, pip install)",
        );
        PathBuf::from(python.trim()).parent().unwrap().to_path_buf()
    })
}

/// `nbgrader` from its venv, run in the course folder `course`, with the
/// venv's `bin` first on `PATH` (nbgrader starts `jupyter` from there).
pub fn nbgrader(course: &Path) -> Command {
    let bin = nbgrader_bin();
    let mut c = Command::new(bin.join("nbgrader"));
    c.current_dir(course).env(
        "PATH",
        format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    );
    c
}

/// `c` with the environment a user's shell gives, as Jupyter starts a kernel
/// from it: without what `cargo test` adds for its test binaries. Above all
/// `LD_LIBRARY_PATH`, which names the workspace's `target/debug/deps` and
/// the toolchain's libraries, and once hid a kernel that could not load
/// notebook 04's cells in a new build folder; and cargo's `CARGO_*` package
/// variables. `CARGO_HOME` and `CARGO_TARGET_DIR`, which a user's shell may
/// set, stay.
pub fn as_from_a_shell(c: &mut Command) -> &mut Command {
    c.env_remove("LD_LIBRARY_PATH");
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else { continue };
        let cargos = name == "CARGO"
            || (name.starts_with("CARGO_") && name != "CARGO_HOME" && name != "CARGO_TARGET_DIR")
            || name.starts_with("__CARGO");
        if cargos {
            c.env_remove(name);
        }
    }
    c
}

/// A notebook's code cell as the tests expect it, worked out here from the
/// `.ipynb` JSON and docs/reports.md's rules, not by the command's code, so that a
/// naming bug in the command does not agree with itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedCell {
    /// `metadata.name`, else `cell-N`, N counting code cells from 1.
    pub name: String,
    /// The hash the runner stored (`metadata.puzzlebook.hash`).
    pub hash: Option<String>,
    /// Whether its value is an SVG figure.
    pub figure: bool,
    /// Whether its value has an org table (`text/x-org`), which the org
    /// report shows.
    pub org_table: bool,
    /// Whether its value is an HTML table, which the page shows.
    pub html_table: bool,
}

/// Panics if a process whose command line holds `pattern` still runs
/// (`pgrep -f`): what a test's run must not leave behind.
pub fn assert_nothing_running(pattern: &str) {
    let left = Command::new("pgrep")
        .args(["-f", pattern])
        .output()
        .expect("pgrep runs");
    assert!(
        left.stdout.is_empty(),
        "left running: {}",
        text(&left.stdout)
    );
}

/// The code cells of the notebook at `path`, named as [`ExpectedCell`] says.
pub fn expected_cells(path: &Path) -> Vec<ExpectedCell> {
    let text = std::fs::read_to_string(path).expect("the notebook reads");
    let nb: serde_json::Value = serde_json::from_str(&text).expect("the notebook is JSON");
    let cells = nb["cells"].as_array().expect("a cells list");
    let code = cells.iter().filter(|c| c["cell_type"] == "code");
    code.enumerate()
        .map(|(i, c)| {
            let values: Vec<&serde_json::Value> = c["outputs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|o| o["output_type"] == "execute_result")
                .map(|o| &o["data"])
                .collect();
            let has = |mime: &str| values.iter().any(|d| d.get(mime).is_some());
            ExpectedCell {
                name: c["metadata"]["name"]
                    .as_str()
                    .map_or_else(|| format!("cell-{}", i + 1), str::to_string),
                hash: c["metadata"]["puzzlebook"]["hash"]
                    .as_str()
                    .map(str::to_string),
                figure: has("image/svg+xml"),
                org_table: has("text/x-org"),
                html_table: has("text/html") && !has("image/svg+xml"),
            }
        })
        .collect()
}

/// Taken by every test that starts evcxr in the runner's build folder, which
/// one engine uses at a time ([`lock`]).
static EVCXR: Mutex<()> = Mutex::new(());

pub(crate) fn run(c: &mut Command) -> Output {
    c.output().expect("the binary runs")
}

/// A throwaway project: a copy of the library's fingerprinted files and
/// Cargo.lock, fixture notebooks whose `:dep` points at the real library, and
/// a reports folder.
pub(crate) struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    pub(crate) fn new(notebooks: &[&str]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files = library_files(&root_dir()).unwrap();
        for f in files
            .iter()
            .map(PathBuf::as_path)
            .chain([Path::new("Cargo.lock")])
        {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::copy(root_dir().join(f), root.join(f)).unwrap();
        }
        std::fs::create_dir_all(root.join("notebooks")).unwrap();
        for name in notebooks {
            let text =
                std::fs::read_to_string(cli_dir().join("tests/fixtures/notebooks").join(name))
                    .unwrap()
                    .replace("@CRATE@", root_dir().to_str().unwrap());
            std::fs::write(root.join("notebooks").join(name), text).unwrap();
        }
        Fixture { dir }
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn notebook(&self, name: &str) -> PathBuf {
        self.root().join("notebooks").join(name)
    }

    pub(crate) fn report(&self, name: &str) -> PathBuf {
        self.root()
            .join("reports")
            .join(Path::new(name).with_extension("org"))
    }

    pub(crate) fn cmd(&self, args: &[&str]) -> Command {
        let mut c = puzzlebook(args);
        c.arg("--root").arg(self.root());
        c
    }

    pub(crate) fn read(&self, p: &Path) -> String {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    /// Temporary files a write left behind, in `notebooks/` and anywhere
    /// under `reports/` (figures are staged in `reports/figures/<stem>/`).
    pub(crate) fn leftovers(&self) -> Vec<String> {
        fn walk(dir: &Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries {
                let e = e.unwrap();
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with(".puzzlebook-") {
                    out.push(e.path().display().to_string());
                }
                if e.file_type().unwrap().is_dir() {
                    walk(&e.path(), out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.root().join("notebooks"), &mut out);
        walk(&self.root().join("reports"), &mut out);
        out
    }
}

/// The runner's turn: see [`EVCXR`].
pub(crate) fn lock() -> std::sync::MutexGuard<'static, ()> {
    EVCXR.lock().unwrap_or_else(|e| e.into_inner())
}

/// Installs the puzzlebook kernelspec into `prefix`, loading this checkout,
/// without building: the tests share the default kernel build folders, which
/// earlier runs keep warm (building at install is tested on its own).
pub(crate) fn install_kernel(prefix: &Path) {
    ok(
        puzzlebook(&["kernel", "install", "--no-build", "--prefix"])
            .arg(prefix)
            .arg("--root")
            .arg(root_dir())
            .output()
            .unwrap(),
        "puzzlebook kernel install",
    );
}

/// Kernels from these tests share the kernel build folders; take turns.
pub(crate) static KERNEL: Mutex<()> = Mutex::new(());

/// Every file under `dir`, in its folders too, with its bytes.
pub(crate) fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.insert(p.display().to_string(), bytes);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, &mut out);
    out
}

/// HTML text with the escapes the pages use undone.
pub(crate) fn unescaped(html: &str) -> String {
    html.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The JSON in the file at `p`.
pub(crate) fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The kernel loads the crate in the background; a cell that arrives first
/// waits, and says so on its standard error ([`LOADING_NOTE`]), which the
/// runner never prints. `nb` without those lines (and without a stream that
/// held nothing else).
pub(crate) fn without_loading_notes(nb: &Value) -> Value {
    let mut nb = nb.clone();
    for cell in nb["cells"].as_array_mut().unwrap() {
        let Some(outputs) = cell["outputs"].as_array_mut() else {
            continue;
        };
        for o in outputs.iter_mut() {
            if o["output_type"] == "stream" && o["name"] == "stderr" {
                let text: String = joined(&o["text"])
                    .split_inclusive('\n')
                    .filter(|l| !l.starts_with(LOADING_NOTE))
                    .collect();
                o["text"] = Value::from(text);
            }
        }
        outputs.retain(|o| !(o["output_type"] == "stream" && joined(&o["text"]).is_empty()));
    }
    nb
}

/// A kernel sends a cell's printed lines as many stream messages, which
/// Jupyter shows as one: `nb` with each run of stream outputs of the same name
/// joined into one (nbclient's `coalesce_streams`, which nbconvert leaves off).
pub(crate) fn coalesce_streams(nb: &Value) -> Value {
    let mut nb = nb.clone();
    for cell in nb["cells"].as_array_mut().unwrap() {
        let Some(outputs) = cell["outputs"].as_array_mut() else {
            continue;
        };
        let mut joined_outputs: Vec<Value> = Vec::new();
        for o in outputs.drain(..) {
            if let Some(last) = joined_outputs.last_mut() {
                if o["output_type"] == "stream"
                    && last["output_type"] == "stream"
                    && o["name"] == last["name"]
                {
                    let text = joined(&last["text"]) + &joined(&o["text"]);
                    // As nbformat writes text: a list of lines.
                    last["text"] = text.split_inclusive('\n').collect();
                    continue;
                }
            }
            joined_outputs.push(o);
        }
        *outputs = joined_outputs;
    }
    nb
}

/// Each code cell's id, execution count and outputs as pretty JSON, for a
/// diff: every multiline string as a list of lines, as nbformat writes it,
/// whoever wrote it (JupyterLab's model holds one string).
pub(crate) fn outputs_text(nb: &Value) -> String {
    let mut s = String::new();
    for cell in nb["cells"].as_array().unwrap() {
        if cell["cell_type"] == "code" {
            s.push_str(&format!(
                "== cell {} [{}]\n",
                cell["id"], cell["execution_count"]
            ));
            let mut outputs = cell["outputs"].clone();
            for o in outputs.as_array_mut().into_iter().flatten() {
                if o.get("text").is_some() {
                    o["text"] = as_lines(&o["text"]);
                }
                // Text only: a JSON type's value is JSON, which nbformat
                // keeps as it is.
                let data = o["data"].as_object_mut().into_iter().flatten();
                for (_, v) in data.filter(|(mime, _)| !mime.contains("json")) {
                    if v.is_string() || v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
                    {
                        *v = as_lines(v);
                    }
                }
            }
            s.push_str(&serde_json::to_string_pretty(&outputs).unwrap());
            s.push('\n');
        }
    }
    s
}

/// A multiline string as nbformat's list of lines.
fn as_lines(v: &Value) -> Value {
    joined(v).split_inclusive('\n').collect()
}

/// A notebook's multiline string, stored as one string or a list of lines.
pub(crate) fn joined(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(lines) => lines
            .iter()
            .map(|l| {
                l.as_str()
                    .unwrap_or_else(|| panic!("not a line of text: {l}"))
            })
            .collect(),
        other => panic!("not a multiline string: {other}"),
    }
}
