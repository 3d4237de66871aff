//! The Jupyter kernel: `puzzlebook kernel install`, then Jupyter's own tools
//! (`jupyter nbconvert --execute` with its defaults, and nbclient, from
//! cli/tests/kernel/requirements.txt) run notebooks against the installed
//! kernel: notebook 04's first cells must give the committed outputs (every
//! chapter must in JupyterLab, jupyterlab.rs), and a user's plain evcxr
//! `rust` kernel comes out of it unchanged.
//!
//! Outputs and execution counts are compared after two named rules. "Streams
//! are joined" ([`coalesce_streams`]): a kernel sends a cell's printed lines
//! as many stream messages, which Jupyter shows as one, and the runner writes
//! one output per stream. "The kernel says when a cell waits for the crate to
//! load" ([`without_loading_notes`]). The runner numbers the code cells 1, 2,
//! … as a fresh kernel does, and the counts must match.
//!
//! The kernel starts within nbclient's default 60-second limit even in a cold
//! build folder, where loading the crate takes minutes; a cell then waits with
//! progress, and an interrupt ends the wait. A Z3 value left in a variable is
//! named at once, and again when a later cell crashes on it.

use crate::common::{
    as_from_a_shell, cli_dir, coalesce_streams, install_kernel, joined, ok, outputs_text,
    puzzlebook, python, read_json, root_dir, text, without_loading_notes, KERNEL,
};
use puzzlebook_cli::kernel::LOADING_NOTE;
use puzzlebook_cli::notebook::io::load_notebook;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A throwaway Jupyter world: our kernel installed under `prefix`, Jupyter's
/// search path pointing there, and a user's plain evcxr `rust` kernel both in
/// that search path and in the user data folder, as evcxr_jupyter would find it.
struct Jupyter {
    dir: tempfile::TempDir,
}

const USERS_RUST_KERNEL: &[(&str, &str)] = &[
    (
        "kernel.json",
        "{\"argv\": [\"/usr/local/bin/evcxr_jupyter\", \"--control_file\", \"{connection_file}\"], \"display_name\": \"Rust\", \"language\": \"rust\"}\n",
    ),
    ("version.txt", "0.0.1-users-own\n"),
];

impl Jupyter {
    fn new() -> Jupyter {
        let dir = tempfile::tempdir().unwrap();
        let j = Jupyter { dir };
        for kernels in [
            j.jupyter_path().join("kernels"),
            j.data_home().join("jupyter/kernels"),
        ] {
            let rust = kernels.join("rust");
            std::fs::create_dir_all(&rust).unwrap();
            for (name, body) in USERS_RUST_KERNEL {
                std::fs::write(rust.join(name), body).unwrap();
            }
        }
        install_kernel(&j.prefix());
        j
    }

    fn prefix(&self) -> PathBuf {
        self.dir.path().join("prefix")
    }

    fn jupyter_path(&self) -> PathBuf {
        self.prefix().join("share/jupyter")
    }

    fn data_home(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Runs notebooks through the kernel with nbclient; returns the executed
    /// copies' folder.
    fn execute(&self, notebooks: &[PathBuf]) -> PathBuf {
        self.execute_with(&[], notebooks)
    }

    /// [`Jupyter::execute`] with options for execute_notebooks.py
    /// (`--allow-errors`, `--streams-in-order`).
    fn execute_with(&self, options: &[&str], notebooks: &[PathBuf]) -> PathBuf {
        let out = self.dir.path().join("executed");
        let o = self
            .python("execute_notebooks.py")
            .args(options)
            .arg("puzzlebook")
            .arg(&out)
            .args(notebooks)
            .output()
            .expect("python runs");
        ok(o, "nbclient (cli/tests/kernel/execute_notebooks.py)");
        out
    }

    /// Runs notebooks as a user would from the shell, `jupyter nbconvert --to
    /// notebook --execute`, with nbconvert's defaults: the kernel the notebook
    /// names (the chapters name the puzzlebook kernel), 60 s to start it and
    /// no limit per cell; with `cache` as the cache folder. Returns the
    /// executed copies' folder, `out` in this world, and nbconvert's standard
    /// error, which holds the kernel's (where cargo reports what it compiles).
    fn nbconvert_in(&self, cache: &Path, out: &str, notebooks: &[PathBuf]) -> (PathBuf, String) {
        let out = self.dir.path().join(out);
        let mut c = self.in_this_world(Command::new(python().parent().unwrap().join("jupyter")));
        let o = c
            .env("XDG_CACHE_HOME", cache)
            .args(["nbconvert", "--to", "notebook", "--execute"])
            .arg("--output-dir")
            .arg(&out)
            .args(notebooks)
            .output()
            .expect("jupyter nbconvert runs");
        let stderr = text(&o.stderr);
        ok(o, "jupyter nbconvert --to notebook --execute");
        (out, stderr)
    }

    /// Starts the kernel with jupyter_client and runs cli/tests/kernel/cold_start.py
    /// (a cell interrupted while it waits, then `40 + 2`), with `cache` as the
    /// cache folder; returns what the script recorded and the kernel's
    /// standard error (where cargo reports what it compiles).
    fn start_kernel(&self, cache: &Path, what: &str) -> (Value, String) {
        self.start_kernel_and_run(cache, what, None)
    }

    /// [`Jupyter::start_kernel`], then runs `more` in the kernel too; its
    /// reply is under "more".
    fn start_kernel_and_run(
        &self,
        cache: &Path,
        what: &str,
        more: Option<&str>,
    ) -> (Value, String) {
        let report = self.dir.path().join("start.json");
        let o = self
            .python("cold_start.py")
            .arg("puzzlebook")
            .arg(&report)
            .args(more)
            .env("XDG_CACHE_HOME", cache)
            .output()
            .expect("python runs");
        let stderr = text(&o.stderr);
        ok(o, &format!("cli/tests/kernel/cold_start.py ({what})"));
        (read_json(&report), stderr)
    }

    /// The test Python running `cli/tests/kernel/<script>`, in this Jupyter world.
    fn python(&self, script: &str) -> Command {
        let mut c = Command::new(python());
        c.arg(cli_dir().join("tests/kernel").join(script));
        self.in_this_world(c)
    }

    /// `c` with Jupyter's folders pointing into this world, and the
    /// environment of a user's shell, not cargo's ([`as_from_a_shell`]).
    fn in_this_world(&self, mut c: Command) -> Command {
        as_from_a_shell(&mut c);
        c.env("JUPYTER_PATH", self.jupyter_path())
            .env("XDG_DATA_HOME", self.data_home())
            .env_remove("JUPYTER_DATA_DIR")
            .env("JUPYTER_RUNTIME_DIR", self.dir.path().join("runtime"))
            .env("JUPYTER_CONFIG_DIR", self.dir.path().join("config"))
            .env_remove("CI");
        c
    }

    /// Panics unless both copies of the user's `rust` kernel are as written.
    fn assert_users_kernel_untouched(&self) {
        for kernels in [
            self.jupyter_path().join("kernels"),
            self.data_home().join("jupyter/kernels"),
        ] {
            let rust = kernels.join("rust");
            let mut names: Vec<String> = std::fs::read_dir(&rust)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            assert_eq!(names, ["kernel.json", "version.txt"], "{}", rust.display());
            for (name, body) in USERS_RUST_KERNEL {
                let now = std::fs::read_to_string(rust.join(name)).unwrap();
                assert_eq!(&now, body, "{} was rewritten", rust.join(name).display());
            }
        }
    }
}

fn all_outputs(nb: &Value) -> Vec<&Value> {
    nb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["cell_type"] == "code")
        .flat_map(|c| c["outputs"].as_array().unwrap())
        .collect()
}

/// Each code cell's outputs, reduced to what a reader sees: `text: …` for
/// printed text, `display: …` for a display and `value: …` for the cell's
/// value, each by its HTML if it has any, else its plain text.
fn seen_outputs(nb: &Value) -> Vec<Vec<String>> {
    nb["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["cell_type"] == "code")
        .map(|c| {
            c["outputs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| {
                    let rich = || {
                        let data = &o["data"];
                        joined(if data["text/html"].is_null() {
                            &data["text/plain"]
                        } else {
                            &data["text/html"]
                        })
                    };
                    match o["output_type"].as_str().unwrap() {
                        "stream" => {
                            format!("{}: {}", o["name"].as_str().unwrap(), joined(&o["text"]))
                        }
                        "display_data" => format!("display: {}", rich()),
                        "execute_result" => format!("value: {}", rich()),
                        other => format!("{other}: {o}"),
                    }
                })
                .collect()
        })
        .collect()
}

/// A cell shows tables as it runs and clears what it showed: Jupyter (the
/// kernel, through nbclient) and the runner (`puzzlebook report`, whose
/// notebook and org report are read) show the same, in the same order.
#[test]
#[ignore = "slow: Jupyter's client from PyPI (setup-venv), a kernel and a runner on a fixture"]
fn displays_and_clears_show_the_same_in_jupyter_and_in_the_runner() {
    let turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let name = "displays.ipynb";
    // What each cell shows, from its source: a table's cells are `<td>`s
    // (a number's with its alignment).
    let table = |n: &str| format!(">{n}</td>");
    let expect = |outputs: &[Vec<String>], what: &str| {
        assert_eq!(outputs.len(), 5, "{what}: {outputs:#?}");
        assert_eq!(outputs[0], Vec::<String>::new(), "{what}");
        let cell = &outputs[1];
        assert_eq!(cell.len(), 4, "{what}: {cell:#?}");
        assert_eq!(cell[0], "stdout: before\n", "{what}");
        assert!(
            cell[1].starts_with("display: <table>") && cell[1].contains(&table("1")),
            "{what}: {cell:#?}"
        );
        assert!(
            cell[2].starts_with("display: <table>") && cell[2].contains(&table("2")),
            "{what}: {cell:#?}"
        );
        assert_eq!(cell[3], "stdout: after\n", "{what}");
        // Each step cleared the one before; the last clear waits for
        // "done", which then replaces the last step.
        assert_eq!(outputs[2], ["stdout: done\n"], "{what}");
        // The clear that does not wait took the text and the table; the
        // value comes after it.
        assert_eq!(outputs[3], ["value: 42"], "{what}");
        // A clear that waits, with nothing printed after it: the value is
        // the next output, and takes the table's place.
        assert_eq!(outputs[4], ["value: 42"], "{what}");
    };

    let jupyter = Jupyter::new();
    let nb = jupyter.dir.path().join(name);
    std::fs::write(
        &nb,
        std::fs::read_to_string(cli_dir().join("tests/fixtures/notebooks").join(name))
            .unwrap()
            .replace("@CRATE@", root_dir().to_str().unwrap()),
    )
    .unwrap();
    // Each stream message as it came, then neighbours joined, as JupyterLab
    // shows them (nbclient's own joining takes a stream's text across the
    // displays between).
    let executed = jupyter.execute_with(&["--streams-in-order"], std::slice::from_ref(&nb));
    let in_jupyter = coalesce_streams(&without_loading_notes(&read_json(&executed.join(name))));
    expect(&seen_outputs(&in_jupyter), "in Jupyter");

    // The kernels are done: let the kernel tests go on while this one waits
    // for the runner's build folder.
    drop(turn);
    let _g = crate::common::lock();
    let f = crate::common::Fixture::new(&[name]);
    let o = f.cmd(&["report"]).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let by_runner = read_json(&f.notebook(name));
    expect(&seen_outputs(&by_runner), "by the runner");
    // The report shows the two tables between the lines, in order.
    let report = f.read(&f.report(name));
    let at = report.find("]: two-tables\n").expect("the cell's results");
    assert!(
        report[at..].starts_with(
            "]: two-tables\n: before\n| n |\n|---|\n| 1 |\n| n |\n|---|\n| 2 |\n: after\n"
        ),
        "{report}"
    );
}

/// Also: with the crate's shared Z3, which the kernel loads, a solver, an
/// optimizer, variables and a model made in one cell are used in later ones,
/// with no warning.
#[test]
#[ignore = "slow: Jupyter's client from PyPI (setup-venv), a kernel"]
fn a_notebook_without_its_dep_cell_runs_on_the_preloaded_crate_and_z3_values_cross_cells() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    let nb = cli_dir().join("tests/fixtures/kernel/no-dep-cell.ipynb");
    let executed = jupyter.execute(std::slice::from_ref(&nb));
    let ran = without_loading_notes(&read_json(&executed.join("no-dep-cell.ipynb")));
    let outputs = all_outputs(&ran);
    // Three of the crate's cells, then the Z3 cells' value and print.
    assert_eq!(outputs.len(), 5, "{outputs:?}");
    // The first cell to use `?` ends in a table: evcxr must not fall back to
    // Debug for it (the kernel's prelude enables `?` first).
    let org = joined(&outputs[0]["data"]["text/x-org"]);
    assert!(org.starts_with("|  Q | answer | A "), "{}", outputs[0]);
    assert!(
        org.contains("|  1 | D      | no  | no  | no | yes | no  |"),
        "{org}"
    );
    // The answer the write-up gives.
    assert_eq!(
        joined(&outputs[1]["data"]["text/plain"]),
        "\"DADBEDDEDABADBADBABE\"",
        "{}",
        outputs[1]
    );
    let data = &outputs[2]["data"];
    assert_eq!(
        joined(&data["text/html"]),
        "<table>\n<thead>\n<tr><th>a</th><th>b</th></tr>\n</thead>\n<tbody>\n<tr><td>x</td><td>y</td></tr>\n</tbody>\n</table>"
    );
    assert!(joined(&data["text/plain"]).contains("| x | y |"), "{data}");
    let all = outputs_text(&ran);
    // 3 < x < 5 leaves x = 4, so r = x = 4 and b = (x > 0) holds; the
    // optimizer's x is at most 10 and maximised.
    assert!(all.contains("(Sat, Sat)"), "{all}");
    assert!(
        all.contains("x = Some(4), r = Some((4, 1)), b = Some(true); the optimum x = Some(10)"),
        "{all}"
    );
    assert!(!all.contains("warning"), "{all}");
    jupyter.assert_users_kernel_untouched();
}

#[test]
fn install_and_uninstall_touch_only_our_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().to_str().unwrap();
    let kernels = dir.path().join("share/jupyter/kernels");
    std::fs::create_dir_all(kernels.join("rust")).unwrap();
    std::fs::write(kernels.join("rust/kernel.json"), "{}").unwrap();

    let out = ok(
        puzzlebook(&["kernel", "install", "--no-build", "--prefix", prefix])
            .current_dir(root_dir())
            .output()
            .unwrap(),
        "install",
    );
    assert!(out.contains("Rust (puzzlebook)"), "{out}");
    let spec = read_json(&kernels.join("puzzlebook/kernel.json"));
    assert_eq!(spec["argv"][0], env!("CARGO_BIN_EXE_puzzlebook"));
    assert_eq!(spec["argv"][1], "--control_file");
    assert_eq!(spec["display_name"], "Rust (puzzlebook)");
    let config = PathBuf::from(spec["env"]["EVCXR_CONFIG_DIR"].as_str().unwrap());
    let init = std::fs::read_to_string(config.join("init.evcxr")).unwrap();
    assert!(
        init.contains(&format!("path = {:?}", root_dir().canonicalize().unwrap())),
        "{init}"
    );

    ok(
        puzzlebook(&["kernel", "uninstall", "--prefix", prefix])
            .output()
            .unwrap(),
        "uninstall",
    );
    assert!(!kernels.join("puzzlebook").exists());
    assert_eq!(
        std::fs::read_to_string(kernels.join("rust/kernel.json")).unwrap(),
        "{}"
    );

    // Uninstalling again, and installing from a folder that is not the crate,
    // are errors that say what to do.
    let again = puzzlebook(&["kernel", "uninstall", "--prefix", prefix])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("no puzzlebook kernel is installed"),
        "{}",
        text(&again.stderr)
    );
    let elsewhere = puzzlebook(&["kernel", "install", "--prefix", prefix])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(elsewhere.status.code(), Some(2));
    assert!(
        text(&elsewhere.stderr).contains("--root"),
        "{}",
        text(&elsewhere.stderr)
    );
    assert!(!kernels.join("puzzlebook").exists());
}

#[test]
fn the_kernel_refuses_to_start_outside_its_kernelspec() {
    let o = puzzlebook(&["--control_file", "/nonexistent.json"])
        .env_remove("EVCXR_CONFIG_DIR")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("puzzlebook kernel install"), "{err}");
}

#[test]
#[ignore = "slow: Jupyter's client from PyPI (setup-venv), a kernel whose slot builds the crate"]
fn the_kernel_answers_at_once_while_its_slot_builds_and_a_waiting_cell_can_be_interrupted() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    // A cache folder of its own, where loading the crate has a build to wait
    // for. Where a kernel here has built its slot before, the new slot starts
    // as a copy of it without the crate's own build, so the wait is for the
    // crate (under a minute) rather than z3 and polars as well (minutes),
    // which the install test builds from nothing; on a fresh machine the
    // slot starts empty.
    let cache = jupyter.dir.path().join("cold-cache");
    assert!(built_for_the_crate("libpuzzlebook-0123456789abcdef.rlib"));
    assert!(built_for_the_crate("puzzlebook-0123456789abcdef"));
    assert!(!built_for_the_crate(
        "libpuzzlebook_z3_dylib-0123456789abcdef.so"
    ));
    assert!(!built_for_the_crate("puzzlebook-z3-dylib-0123456789abcdef"));
    if let Some(warm) = warm_slot() {
        let slot = cache.join("puzzlebook/kernel/slot-0");
        assert!(puzzlebook_cli::engine::copy_build(&warm, &slot));
        remove_crate_build(&slot.join("target"));
        assert!(!puzzlebook_cli::engine::has_built_crate(&slot));
    }
    let (seen, _) = jupyter.start_kernel(&cache, "a cold build folder");
    // It started within jupyter_client's 60 s (else the script failed), while
    // the build had not even begun; the first cell says what it waits for ...
    let interrupted = &seen["interrupted"];
    assert!(
        interrupted["streams"]
            .as_str()
            .unwrap()
            .contains(LOADING_NOTE),
        "{seen:#}"
    );
    // ... and an interrupt ends the wait, not the kernel.
    assert_eq!(interrupted["status"], "error", "{seen:#}");
    assert_eq!(interrupted["ename"], "Interrupted", "{seen:#}");
    // The next cell runs once the crate is loaded.
    assert_eq!(seen["after"]["status"], "ok", "{seen:#}");
    assert_eq!(seen["after"]["result"], "42", "{seen:#}");
    eprintln!(
        "cold start: ready in {:.1} s; the next cell waited {:.0} s for the build",
        seen["ready_seconds"].as_f64().unwrap_or(0.0),
        seen["after"]["seconds"].as_f64().unwrap_or(0.0)
    );
}

#[test]
#[ignore = "slow: Jupyter's client from PyPI (setup-venv), `kernel install`'s build in an empty cache, about 2 minutes"]
fn install_builds_the_first_build_folder_and_later_kernels_start_from_it() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    // An empty cache folder, as on a machine that never ran the kernel.
    let cache = jupyter.dir.path().join("fresh-cache");
    let out = ok(
        puzzlebook(&["kernel", "install", "--prefix"])
            .arg(jupyter.prefix())
            .arg("--root")
            .arg(root_dir())
            .env("XDG_CACHE_HOME", &cache)
            .output()
            .unwrap(),
        "puzzlebook kernel install (with its build)",
    );
    assert!(
        out.contains("Built the kernel's first build folder"),
        "{out}"
    );
    assert!(out.contains("puzzlebook/kernel/slot-0"), "{out}");
    // The kernel's first start then compiles none of the dependencies (cargo
    // reports each crate it compiles on the kernel's standard error), and
    // neither does notebook 04's own `:dep` line, which adds the crate's
    // polars: install built the crate with it too.
    let with_polars = format!(
        "{}\npuzzlebook::sum_product::candidates(9)?.height()",
        notebook_04_dep().replace(
            "path = \"..\"",
            &format!(
                "path = {:?}",
                root_dir().canonicalize().unwrap().to_str().unwrap()
            )
        )
    );
    let (seen, stderr) =
        jupyter.start_kernel_and_run(&cache, "the first kernel", Some(&with_polars));
    assert_eq!(seen["after"]["result"], "42", "{seen:#}");
    assert_eq!(seen["more"]["result"], "45", "{seen:#}");
    assert_compiled_no_dependency(&stderr);
    assert!(
        !stderr.contains("Compiling puzzlebook"),
        "the kernel compiled the crate or its polars library:\n{stderr}"
    );
    // The kernel builds cells at opt-level 0, as the runner does (its
    // init.evcxr asks for it): evcxr wrote it into the slot's manifest.
    let manifest = cache.join("puzzlebook/kernel/slot-0/Cargo.toml");
    let manifest = std::fs::read_to_string(&manifest).unwrap();
    assert!(manifest.contains("\nopt-level = 0\n"), "{manifest}");

    // A second kernel, while a first one holds slot-0 (a notebook left
    // open), gets slot-1 and starts from slot-0's build instead of building
    // again.
    // It runs notebook 04's first cells, as a user would from the shell,
    // under `jupyter nbconvert --execute` with nbconvert's defaults: the
    // `:dep` line with the shared polars, then the cells through step 1,
    // where a copied slot's polars library once failed to load. They must
    // give the committed outputs (the whole chapter runs in JupyterLab,
    // jupyterlab.rs).
    // (If this test fails, the first kernel's script reads the end of its
    // input as the test unwinds, and shuts its kernel down.)
    let slots = cache.join("puzzlebook/kernel");
    let (mut first, _) = jupyter.hold_kernel(Some(&cache));
    let committed = first_code_cells(
        &read_json(&root_dir().join("notebooks/04-impossible-puzzle.ipynb")),
        5,
    );
    assert!(
        committed.to_string().contains("polars-dylib") && committed.to_string().contains("step-1"),
        "{committed:#}"
    );
    let nb = jupyter.dir.path().join("04-impossible-puzzle.ipynb");
    std::fs::write(
        &nb,
        committed.to_string().replace(
            r#"path = \"..\""#,
            &format!(
                r#"path = \"{}\""#,
                root_dir().canonicalize().unwrap().display()
            ),
        ),
    )
    .unwrap();
    let (out, stderr) = jupyter.nbconvert_in(&cache, "second", std::slice::from_ref(&nb));
    drop(first.stdin.take());
    let _ = first.wait();
    assert!(
        stderr.contains(&format!(
            "puzzlebook: started {} from the build in {}",
            slots.join("slot-1").display(),
            slots.join("slot-0").display()
        )),
        "{stderr}"
    );
    assert_compiled_no_dependency(&stderr);
    assert!(puzzlebook_cli::engine::has_built_crate(
        &slots.join("slot-1")
    ));
    let ran = coalesce_streams(&read_json(&out.join("04-impossible-puzzle.ipynb")));
    assert_eq!(
        outputs_text(&committed),
        outputs_text(&without_loading_notes(&ran)),
        "notebook 04 in a second kernel"
    );
    // Rich output as Jupyter keeps it: every result reads as text, and a
    // table is an HTML table (step 1's is).
    let mut tables = 0;
    for o in all_outputs(&ran) {
        if o["output_type"] == "execute_result" {
            assert!(!joined(&o["data"]["text/plain"]).is_empty(), "{o}");
            if o["data"].get("text/html").is_some() {
                let html = joined(&o["data"]["text/html"]);
                assert!(html.starts_with("<table>"), "{html}");
                tables += 1;
            }
        }
    }
    assert!(tables >= 1, "no HTML table in {ran:#}");
    jupyter.assert_users_kernel_untouched();
}

/// The `:dep` line of notebook 04's first code cell, as committed.
fn notebook_04_dep() -> String {
    let nb = load_notebook(&root_dir().join("notebooks/04-impossible-puzzle.ipynb")).unwrap();
    let first = nb.code_cells().next().expect("a code cell");
    let dep = first
        .cell
        .source
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(
        dep.starts_with(":dep puzzlebook = { path = \"..\""),
        "{dep}"
    );
    dep
}

/// Panics if cargo, in a kernel's standard error, compiled one of the
/// library's heavy dependencies.
fn assert_compiled_no_dependency(stderr: &str) {
    for dependency in ["z3", "puzzlebook-z3-dylib", "polars", "plotters"] {
        assert!(
            !stderr.contains(&format!("Compiling {dependency} v")),
            "the kernel compiled {dependency}:\n{stderr}"
        );
    }
}

impl Jupyter {
    /// Runs `cells` one by one in a new kernel with cli/tests/kernel/run_cells.py
    /// (`--poke` first sends frames that are no signed message), with `env`
    /// added to the Jupyter client's environment, which the kernel inherits.
    fn run_cells(&self, poke: bool, env: &[(&str, &str)], cells: &[&str]) -> Value {
        self.run_cells_from(self.python("run_cells.py"), poke, env, cells)
    }

    /// [`Self::run_cells`], with the client started as a non-interactive
    /// shell starts a background job (`jupyter … &`): SIGINT ignored, which
    /// every process it starts inherits, the kernel's too.
    fn run_cells_in_a_background_job(&self, cells: &[&str]) -> Value {
        use std::os::unix::process::CommandExt;
        let mut c = self.python("run_cells.py");
        // SAFETY: signal(2) only, between fork and exec.
        unsafe {
            c.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_IGN);
                Ok(())
            });
        }
        self.run_cells_from(c, false, &[], cells)
    }

    fn run_cells_from(
        &self,
        mut c: Command,
        poke: bool,
        env: &[(&str, &str)],
        cells: &[&str],
    ) -> Value {
        let report = self.dir.path().join("cells.json");
        if poke {
            c.arg("--poke");
        }
        c.arg("puzzlebook").arg(&report).args(cells);
        for (k, v) in env {
            c.env(k, v);
        }
        ok(
            c.output().expect("python runs"),
            "cli/tests/kernel/run_cells.py",
        );
        read_json(&report)
    }

    /// Starts a kernel with cli/tests/kernel/hold_kernel.py, which keeps it
    /// open as a notebook tab does, with `cache` as the cache folder (the
    /// default one if `None`); returns the script's process and the kernel's
    /// process id, once its first cell has run.
    fn hold_kernel(&self, cache: Option<&Path>) -> (std::process::Child, u32) {
        use std::io::BufRead;
        let mut c = self.python("hold_kernel.py");
        c.arg("puzzlebook")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        if let Some(cache) = cache {
            c.env("XDG_CACHE_HOME", cache);
        }
        let mut child = c.spawn().expect("python runs");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let held: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("hold_kernel.py said {line:?}: {e}"));
        assert_eq!(held["status"], "ok", "{held}");
        (child, held["pid"].as_u64().unwrap() as u32)
    }
}

/// Whether process `pid` is running (it exists and is not a zombie).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the command name, which is in parentheses.
        let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
        !matches!(state, Some(Some('Z')) | Some(Some('X')))
    })
}

/// The processes whose parent is `pid`.
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(child) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        let ppid = stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(pid) {
            out.push(child);
        }
    }
    out
}

/// A slot of the default kernel cache whose crate is built, if any.
fn warm_slot() -> Option<PathBuf> {
    (0..puzzlebook_cli::kernel::serve::MAX_SLOTS)
        .map(|n| puzzlebook_cli::kernel::serve::slots_dir().join(format!("slot-{n}")))
        .find(|d| puzzlebook_cli::engine::has_built_crate(d))
}

/// Whether `name`, under a slot's `target`, is what cargo built for the
/// `puzzlebook` crate itself (`libpuzzlebook-<hash>.*`, `puzzlebook-<hash>`
/// fingerprints and build-script folders), not one of its dependencies, whose
/// names go on with an underscore or another word (`libpuzzlebook_z3_dylib-…`,
/// `puzzlebook-z3-dylib-…`).
fn built_for_the_crate(name: &str) -> bool {
    let rest = name
        .strip_prefix("libpuzzlebook-")
        .or_else(|| name.strip_prefix("puzzlebook-"));
    rest.and_then(|r| r.get(..16))
        .is_some_and(|hash| hash.chars().all(|c| c.is_ascii_hexdigit()))
        && rest.is_some_and(|r| r.len() == 16 || r[16..].starts_with('.'))
}

/// Removes, under `target`, what [`built_for_the_crate`] names, so that
/// cargo builds the crate again and nothing else (its `incremental/` cache
/// may stay: cargo decides from the fingerprints).
fn remove_crate_build(target: &Path) {
    let Ok(entries) = std::fs::read_dir(target) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if built_for_the_crate(&e.file_name().to_string_lossy()) {
            if path.is_dir() {
                std::fs::remove_dir_all(&path).unwrap();
            } else {
                std::fs::remove_file(&path).unwrap();
            }
        } else if path.is_dir() && !path.is_symlink() {
            remove_crate_build(&path);
        }
    }
}

/// `nb` cut after its `n`th code cell.
fn first_code_cells(nb: &Value, n: usize) -> Value {
    let mut nb = nb.clone();
    let cells = nb["cells"].as_array_mut().unwrap();
    let mut seen = 0;
    let end = cells
        .iter()
        .position(|c| {
            seen += usize::from(c["cell_type"] == "code");
            seen == n
        })
        .expect("enough code cells");
    cells.truncate(end + 1);
    nb
}

#[test]
#[ignore = "slow: Jupyter's client from PyPI (setup-venv), a kernel"]
fn a_kernel_whose_client_was_killed_ends_and_so_does_its_cell_process() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    let (mut client, kernel) = jupyter.hold_kernel(None);
    let cells = children(kernel);
    assert!(!cells.is_empty(), "the kernel's cell process runs");
    assert!(running(kernel));
    // The client dies without shutting the kernel down: kill -9.
    client.kill().unwrap();
    client.wait().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while (running(kernel) || cells.iter().any(|&c| running(c)))
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert!(!running(kernel), "the kernel outlived its client");
    for c in cells {
        assert!(!running(c), "the kernel's cell process {c} outlived it");
    }
}

/// jupyter_server replaces a tab's stale connection with a new one under the
/// same session, which is the connection's ZeroMQ identity, often before the
/// old one's replies have come. Eight tabs doing that for 20 seconds (some
/// 4000 requests), and then a new client is still answered on shell and
/// control. Before, a reply to a client that had gone ended the control loop
/// and with it the whole server, which hung instead of exiting; and a
/// disconnect seen inside a receive could hold the shell's worker for ever
/// (`cli/src/kernel/gone_clients.rs`, `recv_in_place.rs`). Each failed every
/// run of this test.
#[test]
#[ignore = "slow: Jupyter's client from PyPI (setup-venv), a kernel"]
fn the_kernel_keeps_answering_while_tabs_reconnect_under_their_sessions() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    let report = jupyter.dir.path().join("tabs.json");
    let o = jupyter
        .python("reconnecting_tabs.py")
        .args(["puzzlebook", "8", "20"])
        .arg(&report)
        .output()
        .expect("python runs");
    ok(o, "cli/tests/kernel/reconnecting_tabs.py");
    let r = read_json(&report);
    assert!(
        r["requests"].as_u64().unwrap() > 500,
        "the tabs hardly ran: {r}"
    );
    assert_eq!(r["shell"], true, "the shell channel stopped answering: {r}");
    assert_eq!(
        r["control"], true,
        "the control channel stopped answering: {r}"
    );
    assert_eq!(r["alive"], true, "{r}");
}

#[test]
#[ignore = "slow: Jupyter's client from PyPI (setup-venv), a kernel and its replays"]
fn a_crash_loses_no_earlier_variable_and_a_question_mark_error_fails_its_cell() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    let seen = jupyter.run_cells(
        true,
        &[("PUZZLEBOOK_CELL_MEMORY", "1G")],
        &[
            "let a = 1usize;",
            "let b = vec![2usize, 3];",
            "let c = a + b.len();\nprintln!(\"c is {c}\");",
            // 3 GiB, past the 1 GiB limit: the allocation aborts the process.
            "let big = vec![1u8; 3 << 30];\nbig.len()",
            "a + b.len() + c",
            "let n: i32 = \"seven\".parse()?;\nn + 1",
            "c * 2",
            // Z3 values, made with the crate's shared Z3, come back after a
            // crash too.
            "use puzzlebook::z3::{ast::Int, Solver};\nlet s = Solver::new();\nlet x = Int::new_const(\"x\");",
            "s.assert(&x.gt(&Int::from_i64(3)));\ns.assert(&x.lt(&Int::from_i64(5)));",
            "std::process::abort();",
            "s.check();\ns.get_model().unwrap().eval(&x, true).unwrap().as_i64()",
        ],
    );
    // Frames that are no signed message neither panicked nor stopped it.
    assert_eq!(seen["poked"], "ok", "{seen:#}");
    assert_eq!(seen["alive_after_poke"], true, "{seen:#}");
    let cells = seen["cells"].as_array().unwrap();
    let status: Vec<&str> = cells
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        status,
        ["ok", "ok", "ok", "error", "ok", "error", "ok", "ok", "ok", "error", "ok"],
        "{seen:#}"
    );
    let crash = cells[3]["streams"].as_str().unwrap();
    assert!(
        crash.contains("memory allocation of 3221225472 bytes failed"),
        "{crash}"
    );
    assert!(crash.contains("the cells' limit is 1.0 GiB"), "{crash}");
    assert!(
        crash.contains("ran cells [1], [2], [3] again in"),
        "{crash}"
    );
    // Cell 3's print was not shown a second time.
    assert!(!crash.contains("c is 3"), "{crash}");
    // Every error reply names its error, as the message schema requires
    // (evcxr_jupyter's said only "error"): the crash's, from evcxr, and the
    // `?` error's, from the kernel's own reply.
    assert_eq!(cells[3]["reply_ename"], "Error", "{seen:#}");
    assert_eq!(cells[3]["reply_evalue"], cells[3]["evalue"], "{seen:#}");
    assert!(
        cells[3]["evalue"]
            .as_str()
            .is_some_and(|e| e.contains("SIGABRT")),
        "{seen:#}"
    );
    assert_eq!(cells[5]["reply_ename"], "Error", "{seen:#}");
    assert_eq!(cells[5]["reply_evalue"], cells[5]["evalue"], "{seen:#}");
    // Cells 1-3's variables are back for cell 5.
    assert_eq!(cells[4]["result"], "6", "{seen:#}");
    // A `?` error is an error reply, as nbconvert needs to stop.
    assert_eq!(cells[5]["ename"], "Error", "{seen:#}");
    assert!(
        cells[5]["streams"]
            .as_str()
            .unwrap()
            .contains("invalid digit found in string"),
        "{seen:#}"
    );
    assert_eq!(cells[6]["result"], "6", "{seen:#}");
    // The second replay ran every cell that succeeded, by execution count,
    // and no failed one (the crash, the `?` error), with their prints kept
    // quiet; the solver and its assertions were rebuilt.
    let crash = cells[9]["streams"].as_str().unwrap();
    assert!(
        crash.contains("ran cells [1], [2], [3], [5], [7], [8], [9] again in"),
        "{crash}"
    );
    assert!(!crash.contains("c is 3"), "{crash}");
    assert_eq!(cells[10]["result"], "Some(4)", "{seen:#}");
}

/// Everything a cell prints reaches Jupyter before the cell's reply, on both
/// streams and however much: evcxr returns once it has read a cell's standard
/// output and reads its standard error on a thread of its own, and a client
/// stops listening to a cell at its idle status, so a line sent after it is
/// lost (evcxr_jupyter waited one millisecond, and only for a cell with a
/// value).
///
/// Also: crash recovery can be turned off (which changes nothing before a
/// crash).
#[test]
#[ignore = "slow: Jupyter's client from PyPI (setup-venv), two kernels"]
fn every_line_a_cell_prints_reaches_jupyter_before_its_reply_and_replay_can_be_off() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    let many = "for i in 0..2000 {\n    eprintln!(\"err {i}\");\n    println!(\"out {i}\");\n}";
    let seen = jupyter.run_cells(
        false,
        &[("PUZZLEBOOK_REPLAY", "off")],
        &[
            many,
            "eprintln!(\"last words\");",
            "println!(\"one line\");",
            many,
            "eprintln!(\"before\");\nlet n: i32 = \"x\".parse()?;\nn",
            "let a = 1usize;",
            "std::process::abort();",
            "a",
        ],
    );
    let cells = seen["cells"].as_array().unwrap();
    // The first cell may wait for the crate's load, and say so.
    let printed = |i: usize| -> Vec<String> {
        let mut lines: Vec<String> = cells[i]["streams"]
            .as_str()
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with(LOADING_NOTE))
            .map(str::to_string)
            .collect();
        lines.sort();
        lines
    };
    let mut all: Vec<String> = (0..2000)
        .flat_map(|i| [format!("err {i}"), format!("out {i}")])
        .collect();
    all.sort();
    for i in [0, 3] {
        assert_eq!(cells[i]["status"], "ok", "{:#}", cells[i]);
        let lines = printed(i);
        assert!(
            lines == all,
            "cell {}: {} of 4000 lines arrived before its reply",
            i + 1,
            lines.len()
        );
    }
    assert_eq!(printed(1), ["last words"], "{seen:#}");
    assert_eq!(printed(2), ["one line"], "{seen:#}");
    // A failing cell's own lines come before its error, too.
    assert_eq!(cells[4]["status"], "error", "{seen:#}");
    let failed = printed(4);
    assert!(failed.contains(&"before".to_string()), "{failed:?}");
    assert!(
        failed
            .iter()
            .any(|l| l.contains("invalid digit found in string")),
        "{failed:?}"
    );
    // With crash recovery off, a crash loses the session's variables, and
    // says so.
    assert_eq!(cells[6]["status"], "error", "{seen:#}");
    assert!(
        cells[6]["streams"]
            .as_str()
            .unwrap()
            .contains("crash recovery is off"),
        "{seen:#}"
    );
    assert_eq!(cells[7]["status"], "error", "{seen:#}");
}

/// Jupyter's own conformance suite, jupyter_kernel_test, as the Jupyter
/// team wrote it (pinned), subclassed with Rust code as IRkernel's tests
/// are (cli/tests/kernel/conformance.py): every reply and output message is
/// checked against the v5 schema. evcxr_jupyter's error replies had no
/// `ename`, and it answered no `history_request` and every
/// `is_complete_request` with "complete".
#[test]
#[ignore = "slow: jupyter_kernel_test from PyPI, a kernel"]
fn jupyter_s_conformance_suite_passes() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    let report = jupyter.dir.path().join("conformance.json");
    ok(
        jupyter
            .python("conformance.py")
            .arg("puzzlebook")
            .arg(&report)
            .output()
            .expect("python runs"),
        "cli/tests/kernel/conformance.py",
    );
    let seen = read_json(&report);
    let tests = seen["tests"].as_object().expect("a tests object");
    let outcome = |name: &str| tests.get(name).and_then(Value::as_str).unwrap_or("not run");
    for name in [
        "test_kernel_info",
        "test_execute_stdout",
        "test_execute_stderr",
        "test_error",
        "test_execute_result",
        "test_display_data",
        "test_clear_output",
        "test_completion",
        "test_is_complete",
        "test_history",
        "test_inspect",
    ] {
        assert_eq!(outcome(name), "passed", "{name}: {seen:#}");
    }
    // Nothing failed, and what was skipped is what the kernel does not offer
    // (a pager), by name.
    let not_passed: BTreeMap<&str, &str> = tests
        .iter()
        .map(|(name, o)| (name.as_str(), o.as_str().unwrap_or("?")))
        .filter(|(_, o)| *o != "passed")
        .collect();
    assert!(
        not_passed.values().all(|o| o.starts_with("skipped")),
        "{not_passed:#?}"
    );
    assert_eq!(
        not_passed.keys().copied().collect::<Vec<_>>(),
        ["test_pager"],
        "{seen:#}"
    );
}

/// An interrupt keeps the session. A cell stuck in a Z3 check is stopped
/// through Z3's own Ctrl-C handling: its process, and every variable, live on,
/// and Z3 works in the next cell. A cell stuck in plain Rust has its
/// process ended; the replay brings the variables back and says which cells
/// ran again. (evcxr_jupyter ended the process on every interrupt.)
#[test]
#[ignore = "slow: Jupyter's client from PyPI (setup-venv), a kernel and a replay"]
fn an_interrupt_stops_z3_and_keeps_the_session_and_a_stuck_loop_is_replayed() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    // Fourteen pigeons in thirteen holes, as clauses: unsatisfiable, and far
    // beyond what Z3's clause learning proves in a test's time.
    let pigeons = "use puzzlebook::z3::{ast::Bool, Solver};\n\
        let s = Solver::new();\n\
        let p: Vec<Vec<Bool>> = (0..14).map(|i| (0..13).map(|h| Bool::new_const(format!(\"p{i}_{h}\"))).collect()).collect();\n\
        for row in &p { s.assert(&Bool::or(row)); }\n\
        for h in 0..13 { for i in 0..14 { for k in i + 1..14 { s.assert(&Bool::and(&[p[i][h].clone(), p[k][h].clone()]).not()); } } }";
    // The first output comes while the check runs, and brings the interrupt.
    let check = "// interrupt\n\
        std::thread::spawn(|| { std::thread::sleep(std::time::Duration::from_millis(500)); println!(\"checking\"); });\n\
        let r = s.check();\n\
        println!(\"the check said {r:?}\");";
    // Started as a background job is, with SIGINT ignored: the loop below
    // must still end by the interrupt's SIGINT.
    let seen = jupyter.run_cells_in_a_background_job(&[
        "let keep = 41;",
        pigeons,
        check,
        // Longer than the interrupt's grace: the interrupt was for the
        // cell before, and must not end this one.
        "std::thread::sleep(std::time::Duration::from_secs(5));\nkeep + 1",
        "let t = Solver::new();\nt.assert(&Bool::new_const(\"q\"));\nt.check()",
        "// interrupt\nprintln!(\"looping\");\nloop { std::hint::spin_loop(); }",
        "keep + 1",
    ]);
    let cells = seen["cells"].as_array().unwrap();
    let status: Vec<&str> = cells
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        status,
        ["ok", "ok", "error", "ok", "ok", "error", "ok"],
        "{seen:#}"
    );
    let stopped = &cells[2];
    assert_eq!(stopped["ename"], "Interrupted", "{seen:#}");
    assert_eq!(stopped["reply_ename"], "Interrupted", "{seen:#}");
    let printed = stopped["streams"].as_str().unwrap();
    assert!(printed.contains("the check said Unknown"), "{seen:#}");
    // No replay: the process lived on.
    for c in &cells[2..5] {
        assert!(
            !c["streams"].as_str().unwrap().contains("again in"),
            "{seen:#}"
        );
    }
    assert_eq!(cells[3]["result"], "42", "{seen:#}");
    // Z3 answers the next check.
    assert_eq!(cells[4]["result"], "Sat", "{seen:#}");
    // A loop outside Z3: the process ends, and the cells that succeeded run
    // again (not the interrupted one), so `keep` is back.
    // Ended by the interrupt's signal, not by the kill after the grace.
    assert!(
        cells[5]["evalue"]
            .as_str()
            .is_some_and(|e| e.contains("SIGINT")),
        "{seen:#}"
    );
    let looped = cells[5]["streams"].as_str().unwrap();
    assert!(
        looped.contains("ran cells [1], [2], [4], [5] again in"),
        "{seen:#}"
    );
    assert_eq!(cells[6]["result"], "42", "{seen:#}");
}

#[test]
#[ignore = "slow: Jupyter's client from PyPI (setup-venv), the released chapters in a kernel, about 3 minutes"]
fn a_released_chapter_runs_in_jupyter_and_stops_only_at_its_exercises() {
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    let out = tempfile::tempdir().unwrap();
    ok(
        puzzlebook(&["exercises", "release", "--root"])
            .arg(root_dir())
            .arg("--out")
            .arg(out.path())
            .output()
            .unwrap(),
        "puzzlebook exercises release",
    );
    // The released copies live outside the checkout: their `:dep` names it.
    let mut released: Vec<PathBuf> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    released.sort();
    assert_eq!(released.len(), 4, "{released:?}");
    for nb in &released {
        let text = std::fs::read_to_string(nb).unwrap();
        let pinned = text.replace(
            r#"path = \"..\""#,
            &format!(r#"path = \"{}\""#, root_dir().display()),
        );
        assert_ne!(
            pinned,
            text,
            "{} has no `:dep … path = \"..\"`",
            nb.display()
        );
        std::fs::write(nb, pinned).unwrap();
    }
    let executed = jupyter.execute_with(&["--allow-errors"], &released);
    for nb in &released {
        let teacher = read_json(&root_dir().join("notebooks").join(nb.file_name().unwrap()));
        let ran = read_json(&executed.join(nb.file_name().unwrap()));
        // The cells that call an exercise, from the teacher's metadata: its
        // test cells, each with the exercise it tests.
        let mut tests = BTreeMap::new();
        for c in teacher["cells"].as_array().unwrap() {
            let meta = &c["metadata"]["nbgrader"];
            if meta["grade"] == true {
                let id = meta["grade_id"].as_str().unwrap();
                let exercise = id.strip_suffix("-test").unwrap_or(id).to_string();
                tests.insert(
                    c["metadata"]["name"].as_str().unwrap().to_string(),
                    exercise,
                );
            }
        }
        assert!(!tests.is_empty(), "{} has no exercise", nb.display());
        let code = ran["cells"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["cell_type"] == "code");
        for c in code {
            let name = c["metadata"]["name"].as_str().unwrap_or("(unnamed)");
            let said = c["outputs"].to_string();
            let failed = c["outputs"]
                .as_array()
                .unwrap()
                .iter()
                .any(|o| o["output_type"] == "error");
            match tests.get(name) {
                // The stub panics in the test cell with the exercise's name,
                // and the kernel makes the panic the cell's error.
                Some(exercise) => assert!(
                    failed && said.contains(&format!("exercise {exercise} is not solved yet")),
                    "{}: {name}: {said}",
                    nb.display()
                ),
                None => assert!(
                    !failed && !said.contains("panicked at"),
                    "{}: {name} failed: {said}",
                    nb.display()
                ),
            }
        }
    }
}

#[test]
#[ignore = "slow: nbgrader from PyPI, autograde through a kernel"]
fn nbgrader_autogrades_through_the_kernel_full_marks_for_the_reference_and_none_for_wrong_answers()
{
    let _turn = KERNEL.lock().unwrap_or_else(|e| e.into_inner());
    let jupyter = Jupyter::new();
    let course = tempfile::tempdir().unwrap();
    // Two students hand in the fixture's exercise (2 points): "reference"
    // the teacher's notebook, "wrong" the same with x at most y in place of
    // x below y. Autograding is per cell, so one exercise proves what the
    // chapters would; `grade` grades every chapter's wrong answers
    // (grading.rs). All live outside the checkout, so their `:dep` names it,
    // with the shared Z3 the kernel's crate is loaded with.
    for dir in [
        "source/exercise",
        "submitted/reference/exercise",
        "submitted/wrong/exercise",
    ] {
        std::fs::create_dir_all(course.path().join(dir)).unwrap();
    }
    let source = std::fs::read_to_string(cli_dir().join("tests/fixtures/notebooks/exercise.ipynb"))
        .unwrap()
        .replace(
            r#"path = \"@CRATE@\" }"#,
            &format!(
                r#"path = \"{}\", features = [\"z3-dylib\"] }}"#,
                root_dir().display()
            ),
        );
    assert!(source.contains("z3-dylib"), "{source}");
    let wrong = crate::exercises::with_answer(
        &source,
        "t-1",
        "vec![v[0].ge(1), v[1].le(3), v[0].le(&v[1])]",
    );
    assert_ne!(wrong, source);
    for (dir, body) in [
        ("source/exercise", &source),
        ("submitted/reference/exercise", &source),
        ("submitted/wrong/exercise", &wrong),
    ] {
        std::fs::write(course.path().join(dir).join("exercise.ipynb"), body).unwrap();
    }
    let points = 2.0;
    std::fs::write(
        course.path().join("nbgrader_config.py"),
        format!(
            "c = get_config()\nc.CourseDirectory.root = {:?}\nc.ClearSolutions.code_stub = {{\"rust\": \"puzzlebook::unsolved!()\"}}\n\
             c.Execute.kernel_name = \"puzzlebook\"\nc.Execute.timeout = 1800\n",
            course.path().display().to_string()
        ),
    )
    .unwrap();
    let nbgrader = |args: &[&str]| {
        let o = jupyter
            .in_this_world(crate::common::nbgrader(course.path()))
            .args(args)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "nbgrader {args:?}:\n{}\n{}",
            text(&o.stdout),
            text(&o.stderr)
        );
    };
    nbgrader(&["generate_assignment", "exercise", "--force"]);
    nbgrader(&["autograde", "exercise", "--create", "--force"]);
    nbgrader(&["export", "--to", "grades.csv"]);
    let csv = std::fs::read_to_string(course.path().join("grades.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"))
    };
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    for (student, expected) in [("reference", points), ("wrong", 0.0)] {
        let row = rows
            .iter()
            .find(|r| r[col("student_id")] == student)
            .unwrap_or_else(|| panic!("no row for {student} in {csv}"));
        let (score, max) = (
            row[col("score")].parse::<f64>().unwrap(),
            row[col("max_score")].parse::<f64>().unwrap(),
        );
        assert_eq!((score, max), (expected, points), "{student}: {csv}");
    }
    // The wrong student's feedback, as nbgrader writes it, shows the
    // witness the test found.
    nbgrader(&[
        "generate_feedback",
        "exercise",
        "--student",
        "wrong",
        "--force",
    ]);
    let page = course.path().join("feedback/wrong/exercise/exercise.html");
    let html = std::fs::read_to_string(&page)
        .unwrap_or_else(|e| panic!("{}: {e}", page.display()))
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let witness = "your model allows x=1, y=1, which the reference rules out (it breaks x below y)";
    assert!(html.contains(witness), "{}: no {witness:?}", page.display());
}
