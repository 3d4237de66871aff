//! The `.ipynb` format: loading, the cells we use, outputs, and byte-stable saving.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use thiserror::Error;

/// A notebook that could not be read.
#[derive(Debug, Error)]
pub enum NotebookError {
    /// The file is not JSON.
    #[error("not valid JSON ({0}); fix the file or restore it with `git checkout`")]
    Json(#[from] serde_json::Error),
    /// The JSON is not an nbformat 4 notebook.
    #[error("not an nbformat 4 notebook: {0}")]
    Format(String),
    /// A cell's `metadata.name` cannot name its result and figure.
    #[error("cell {cell}: the name {name:?} {why}; a name is 1 to {MAX_NAME} ASCII letters, digits, '-' and '_', starting with a letter or digit, and names one code cell's result and figure file")]
    Name {
        /// The cell's 1-based position among all cells.
        cell: usize,
        /// The name as written.
        name: String,
        /// What is wrong with it.
        why: String,
    },
}

/// The longest cell name.
pub const MAX_NAME: usize = 64;

/// Why `name` cannot name a cell's result and figure file, if it cannot.
pub fn bad_name(name: &str) -> Option<String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() {
        Some("is empty".into())
    } else if name.len() > MAX_NAME {
        Some(format!("is {} characters long", name.len()))
    } else if let Some(c) = name.chars().find(|c| !allowed(*c)) {
        Some(format!("has the character {c:?}"))
    } else if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        Some("does not start with a letter or digit".into())
    } else {
        None
    }
}

/// The name of code cell `number` (1-based among code cells): its metadata
/// name, or `cell-N`. It names the cell's result, its page anchor and its
/// figure file.
pub fn cell_name(name: Option<&str>, number: usize) -> String {
    name.map(str::to_string)
        .unwrap_or_else(|| format!("cell-{number}"))
}

/// The name of the `k`-th (from 0) SVG figure among the outputs of the cell
/// named `cell`: the cell's name for the first, then `cell.2`, `cell.3`, …
/// A cell name has no `.`, so no figure takes another cell's name.
pub fn figure_name(cell: &str, k: usize) -> String {
    match k {
        0 => cell.to_string(),
        k => format!("{cell}.{}", k + 1),
    }
}

/// A code cell as [`Notebook::code_cells`] lists it.
#[derive(Debug, Clone)]
pub struct CodeCell<'a> {
    /// Its 1-based position among all cells.
    pub position: usize,
    /// Its 1-based number among code cells.
    pub number: usize,
    /// Its name ([`cell_name`]).
    pub name: String,
    /// The cell.
    pub cell: &'a NotebookCell,
}

/// The kind of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellKind {
    /// Narrative.
    Markdown,
    /// Rust code run by evcxr.
    Code,
    /// Anything else, passed through.
    Raw,
}

impl CellKind {
    /// Its nbformat `cell_type`.
    pub fn as_str(self) -> &'static str {
        match self {
            CellKind::Markdown => "markdown",
            CellKind::Code => "code",
            CellKind::Raw => "raw",
        }
    }
}

/// One output of a code cell, as nbformat stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Text the cell printed.
    Stream {
        /// `stdout` or `stderr`.
        name: String,
        /// The text.
        text: String,
    },
    /// The cell's value, by MIME type.
    ExecuteResult {
        /// MIME type → content.
        data: BTreeMap<String, String>,
    },
    /// Something the cell showed as it ran (`puzzlebook::rich::display`),
    /// by MIME type.
    DisplayData {
        /// MIME type → content.
        data: BTreeMap<String, String>,
    },
}

impl Output {
    /// The renderings of a value or a display, by MIME type; `None` for text.
    pub fn rich(&self) -> Option<&BTreeMap<String, String>> {
        match self {
            Output::Stream { .. } => None,
            Output::ExecuteResult { data } | Output::DisplayData { data } => Some(data),
        }
    }
}

/// The nbformat tag of a cell whose output depends on the Z3 that runs it.
pub const Z3_DEPENDENT: &str = "z3-dependent";

/// A cell: its kind, source, the name of its result, and its outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct NotebookCell {
    /// The kind.
    pub kind: CellKind,
    /// The source text.
    pub source: String,
    /// `metadata.name`, the name of the cell's result.
    pub name: Option<String>,
    /// `metadata.puzzlebook.hash`, the hash the outputs were computed for.
    pub hash: Option<String>,
    /// The outputs (code cells).
    pub outputs: Vec<Output>,
    /// The cell as read, to keep what we do not model (ids, other metadata).
    raw: Value,
}

/// A notebook: its cells and the rest of the document.
#[derive(Debug, Clone, PartialEq)]
pub struct Notebook {
    /// The cells, in order.
    pub cells: Vec<NotebookCell>,
    raw: Value,
}

/// Joins nbformat's multiline strings (a string or a list of strings).
fn multiline(v: Option<&Value>) -> Result<String, NotebookError> {
    match v {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| {
                p.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| NotebookError::Format("a source line is not a string".into()))
            })
            .collect(),
        Some(_) => Err(NotebookError::Format(
            "a cell's source is neither a string nor a list of strings".into(),
        )),
    }
}

/// Splits text into nbformat's list-of-lines form (each line keeps its `\n`).
fn lines(text: &str) -> Value {
    Value::Array(
        text.split_inclusive('\n')
            .map(|l| Value::String(l.to_string()))
            .collect(),
    )
}

impl Notebook {
    /// A notebook of these cells, for the pipeline's unit tests.
    #[cfg(test)]
    pub(crate) fn of_cells(cells: &[(CellKind, &str)]) -> Notebook {
        let mut nb = Notebook::parse(r#"{"nbformat": 4, "cells": []}"#).expect("an empty notebook");
        nb.cells = cells
            .iter()
            .map(|(k, s)| NotebookCell::new(*k, s))
            .collect();
        nb
    }

    /// Parses a notebook from its JSON text.
    pub fn parse(text: &str) -> Result<Notebook, NotebookError> {
        let raw: Value = serde_json::from_str(text)?;
        let obj = raw
            .as_object()
            .ok_or_else(|| NotebookError::Format("the top level is not an object".into()))?;
        match obj.get("nbformat").and_then(Value::as_u64) {
            Some(4) => {}
            Some(v) => {
                return Err(NotebookError::Format(format!(
                    "nbformat {v}; open it in Jupyter and save it as version 4"
                )))
            }
            None => return Err(NotebookError::Format("no \"nbformat\" field".into())),
        }
        let cells = obj
            .get("cells")
            .and_then(Value::as_array)
            .ok_or_else(|| NotebookError::Format("no \"cells\" list".into()))?;
        let cells = cells
            .iter()
            .enumerate()
            .map(|(i, c)| NotebookCell::parse(c).map_err(|e| at_cell(e, i + 1)))
            .collect::<Result<Vec<_>, _>>()?;
        let nb = Notebook { cells, raw };
        nb.check_names()?;
        Ok(nb)
    }

    /// Every cell name is safe as a file name, and no two code cells'
    /// results share one (counting the `cell-N` an unnamed cell gets).
    fn check_names(&self) -> Result<(), NotebookError> {
        for (i, c) in self.cells.iter().enumerate() {
            if let Some(name) = &c.name {
                if let Some(why) = bad_name(name) {
                    return Err(NotebookError::Name {
                        cell: i + 1,
                        name: name.clone(),
                        why,
                    });
                }
            }
        }
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for c in self.code_cells() {
            if let Some(first) = seen.insert(c.name.clone(), c.position) {
                return Err(NotebookError::Name {
                    cell: c.position,
                    name: c.name,
                    why: format!(
                        "is taken by cell {first} (an unnamed code cell is `cell-N`, N its number among code cells)"
                    ),
                });
            }
        }
        Ok(())
    }

    /// The code cells in order, each with its position, number and name: the
    /// one list every stage and renderer names cells by.
    pub fn code_cells(&self) -> impl Iterator<Item = CodeCell<'_>> {
        self.cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.kind == CellKind::Code)
            .enumerate()
            .map(|(n, (i, cell))| CodeCell {
                position: i + 1,
                number: n + 1,
                name: cell_name(cell.name.as_deref(), n + 1),
                cell,
            })
    }

    /// Whether a code cell loads the puzzlebook crate (`:dep puzzlebook …`),
    /// so that the notebook needs the checkout's `Cargo.lock` to build it at
    /// the versions the result hash covers.
    pub fn depends_on_crate(&self) -> bool {
        self.code_cells().any(|c| {
            c.cell.source.lines().any(|l| {
                let mut words = l.trim_start().strip_prefix(":dep").map(|rest| {
                    rest.split(|ch: char| ch.is_whitespace() || ch == '=')
                        .filter(|w| !w.is_empty())
                });
                words.as_mut().and_then(Iterator::next) == Some("puzzlebook")
            })
        })
    }

    /// `metadata.puzzlebook.z3`: the Z3 version the outputs were computed on.
    pub fn z3(&self) -> Option<&str> {
        self.raw
            .get("metadata")
            .and_then(|m| m.get("puzzlebook"))
            .and_then(|p| p.get("z3"))
            .and_then(Value::as_str)
    }

    /// Records the Z3 version the outputs were computed on.
    pub fn set_z3(&mut self, version: &str) {
        if let Some(obj) = self.raw.as_object_mut() {
            let meta = obj
                .entry("metadata")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(m) = meta.as_object_mut() {
                m.insert("puzzlebook".into(), json!({ "z3": version }));
            }
        }
    }

    /// Serialises as Jupyter does: keys sorted, one-space indent, a final newline.
    pub fn to_json(&self) -> String {
        let mut doc = self.raw.clone();
        // Code cells count 1, 2, … as Jupyter numbers them in a fresh kernel.
        let mut count = 0;
        let cells: Vec<Value> = self
            .cells
            .iter()
            .map(|c| {
                if c.kind == CellKind::Code {
                    count += 1;
                }
                c.to_value(count)
            })
            .collect();
        doc["cells"] = Value::Array(cells);
        let doc = sorted(doc);
        let mut buf = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(b" ");
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
        serde::Serialize::serialize(&doc, &mut ser).expect("a JSON value serialises");
        let mut s = String::from_utf8(buf).expect("serde_json writes UTF-8");
        s.push('\n');
        s
    }
}

fn at_cell(e: NotebookError, n: usize) -> NotebookError {
    match e {
        NotebookError::Format(m) => NotebookError::Format(format!("cell {n}: {m}")),
        other => other,
    }
}

/// Sorts every object's keys, as `json.dumps(sort_keys=True)` does.
fn sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let b: BTreeMap<String, Value> = m.into_iter().map(|(k, v)| (k, sorted(v))).collect();
            Value::Object(b.into_iter().collect::<Map<String, Value>>())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(sorted).collect()),
        other => other,
    }
}

impl NotebookCell {
    fn parse(c: &Value) -> Result<NotebookCell, NotebookError> {
        let obj = c
            .as_object()
            .ok_or_else(|| NotebookError::Format("not an object".into()))?;
        let kind = match obj.get("cell_type").and_then(Value::as_str) {
            Some("markdown") => CellKind::Markdown,
            Some("code") => CellKind::Code,
            Some("raw") => CellKind::Raw,
            Some(other) => {
                return Err(NotebookError::Format(format!(
                    "unknown cell_type {other:?}"
                )))
            }
            None => return Err(NotebookError::Format("no cell_type".into())),
        };
        let source = multiline(obj.get("source"))?;
        let meta = obj.get("metadata");
        let name = meta
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let hash = meta
            .and_then(|m| m.get("puzzlebook"))
            .and_then(|p| p.get("hash"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut outputs = Vec::new();
        if let Some(outs) = obj.get("outputs").and_then(Value::as_array) {
            for o in outs {
                match o.get("output_type").and_then(Value::as_str) {
                    Some("stream") => outputs.push(Output::Stream {
                        name: o
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("stdout")
                            .to_string(),
                        text: multiline(o.get("text"))?,
                    }),
                    Some(kind @ ("execute_result" | "display_data")) => {
                        let mut data = BTreeMap::new();
                        if let Some(d) = o.get("data").and_then(Value::as_object) {
                            for (k, v) in d {
                                data.insert(k.clone(), multiline(Some(v))?);
                            }
                        }
                        outputs.push(if kind == "display_data" {
                            Output::DisplayData { data }
                        } else {
                            Output::ExecuteResult { data }
                        });
                    }
                    // Error outputs and others are dropped on the next run.
                    _ => {}
                }
            }
        }
        Ok(NotebookCell {
            kind,
            source,
            name,
            hash,
            outputs,
            raw: c.clone(),
        })
    }

    /// Whether the cell's output depends on the Z3 that runs it: its choice
    /// among right answers (which expression, which model first), or its
    /// version. Marked by the nbformat tag `z3-dependent`: on another Z3 the
    /// output may differ and still be right.
    pub fn z3_dependent(&self) -> bool {
        self.metadata("tags")
            .and_then(Value::as_array)
            .is_some_and(|tags| tags.iter().any(|t| t == Z3_DEPENDENT))
    }

    /// `metadata.<key>` as read, for metadata the pipeline does not model
    /// (nbgrader's).
    pub fn metadata(&self, key: &str) -> Option<&Value> {
        self.raw.get("metadata").and_then(|m| m.get(key))
    }

    /// `metadata.<key>`, to change metadata the pipeline does not model.
    pub fn metadata_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.raw.get_mut("metadata").and_then(|m| m.get_mut(key))
    }

    /// Sets `metadata.<key>`.
    pub fn set_metadata(&mut self, key: &str, value: Value) {
        if let Some(obj) = self.raw.as_object_mut() {
            let meta = obj
                .entry("metadata")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(m) = meta.as_object_mut() {
                m.insert(key.into(), value);
            }
        }
    }

    /// A new cell (used by tests and tools that write notebooks).
    pub fn new(kind: CellKind, source: &str) -> NotebookCell {
        NotebookCell {
            kind,
            source: source.to_string(),
            name: None,
            hash: None,
            outputs: Vec::new(),
            raw: json!({"cell_type": kind.as_str(), "metadata": {}}),
        }
    }

    /// The cell as nbformat JSON; `count` is its number among code cells, its
    /// execution count once it has been executed (it has a hash).
    fn to_value(&self, count: usize) -> Value {
        let mut v = self.raw.clone();
        let obj = v.as_object_mut().expect("cells are objects");
        obj.insert("source".into(), lines(&self.source));
        let meta = obj
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(m) = meta.as_object_mut() {
            match &self.name {
                Some(n) => {
                    m.insert("name".into(), Value::String(n.clone()));
                }
                None => {
                    m.remove("name");
                }
            }
            match &self.hash {
                Some(h) => {
                    m.insert("puzzlebook".into(), json!({ "hash": h }));
                }
                None => {
                    m.remove("puzzlebook");
                }
            }
        }
        if self.kind == CellKind::Code {
            let execution_count = match self.hash {
                Some(_) => json!(count),
                None => Value::Null,
            };
            let mut outs = Vec::new();
            for o in &self.outputs {
                match o {
                    Output::Stream { name, text } => outs.push(json!({
                        "name": name,
                        "output_type": "stream",
                        "text": lines(text),
                    })),
                    Output::ExecuteResult { data } => {
                        let d: Map<String, Value> =
                            data.iter().map(|(k, v)| (k.clone(), lines(v))).collect();
                        outs.push(json!({
                            "data": d,
                            "execution_count": execution_count,
                            "metadata": {},
                            "output_type": "execute_result",
                        }));
                    }
                    Output::DisplayData { data } => {
                        let d: Map<String, Value> =
                            data.iter().map(|(k, v)| (k.clone(), lines(v))).collect();
                        outs.push(json!({
                            "data": d,
                            "metadata": {},
                            "output_type": "display_data",
                        }));
                    }
                }
            }
            obj.insert("outputs".into(), Value::Array(outs));
            obj.insert("execution_count".into(), execution_count);
        } else {
            obj.remove("outputs");
            obj.remove("execution_count");
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = r##"{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "text"]},
  {"cell_type": "code", "execution_count": null, "metadata": {"name": "start"},
   "outputs": [], "source": "1 + 1"}
 ],
 "metadata": {"kernelspec": {"name": "rust"}},
 "nbformat": 4,
 "nbformat_minor": 5
}"##;

    #[test]
    fn parses_cells_and_names() {
        let nb = Notebook::parse(NB).unwrap();
        assert_eq!(nb.cells.len(), 2);
        assert_eq!(nb.cells[0].source, "# Title\ntext");
        assert_eq!(nb.cells[1].name.as_deref(), Some("start"));
        assert_eq!(nb.code_cells().map(|c| c.position).collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn round_trips_through_its_own_format() {
        let nb = Notebook::parse(NB).unwrap();
        let once = nb.to_json();
        let twice = Notebook::parse(&once).unwrap().to_json();
        assert_eq!(once, twice);
        assert!(once.starts_with("{\n \"cells\": [\n  {\n"));
        assert!(once.ends_with("}\n"));
    }

    #[test]
    fn executed_code_cells_count_from_one_as_jupyter_does() {
        let mut nb = Notebook::parse(NB).unwrap();
        nb.cells.push(NotebookCell::new(CellKind::Code, "2 + 2"));
        let unexecuted: Value = serde_json::from_str(&nb.to_json()).unwrap();
        assert_eq!(unexecuted["cells"][1]["execution_count"], Value::Null);
        for (n, i) in [1, 2].into_iter().enumerate() {
            nb.cells[i].hash = Some(format!("h{n}"));
            nb.cells[i].outputs = vec![Output::ExecuteResult {
                data: [("text/plain".to_string(), "2".to_string())].into(),
            }];
        }
        let v: Value = serde_json::from_str(&nb.to_json()).unwrap();
        assert_eq!(v["cells"][1]["execution_count"], 1);
        assert_eq!(v["cells"][1]["outputs"][0]["execution_count"], 1);
        assert_eq!(v["cells"][2]["execution_count"], 2);
        assert_eq!(v["cells"][0].get("execution_count"), None);
    }

    #[test]
    fn bad_input_says_what_is_wrong() {
        assert!(matches!(Notebook::parse("{"), Err(NotebookError::Json(_))));
        let e = Notebook::parse(r#"{"nbformat": 3, "cells": []}"#).unwrap_err();
        assert!(e.to_string().contains("nbformat 3"), "{e}");
        let e = Notebook::parse(r#"{"nbformat": 4, "cells": [{"cell_type": "x"}]}"#).unwrap_err();
        assert!(e.to_string().contains("cell 1"), "{e}");
    }

    fn with_names(names: &[Option<&str>]) -> Result<Notebook, NotebookError> {
        let cells: Vec<Value> = names
            .iter()
            .map(|n| {
                let meta = match n {
                    Some(n) => json!({ "name": n }),
                    None => json!({}),
                };
                json!({"cell_type": "code", "metadata": meta, "source": "1", "outputs": []})
            })
            .collect();
        Notebook::parse(&json!({"nbformat": 4, "cells": cells}).to_string())
    }

    #[test]
    fn a_name_that_is_no_plain_file_name_is_refused_with_its_cell() {
        for (bad, why) in [
            ("../../../../../../tmp/pwned-by-name", "'.'"),
            ("/etc/passwd", "'/'"),
            ("a b", "' '"),
            ("-x", "does not start"),
            ("", "is empty"),
            ("name\\x", "'\\\\'"),
            ("résultat", "'é'"),
        ] {
            let e = with_names(&[Some("ok"), Some(bad)]).unwrap_err();
            let m = e.to_string();
            assert!(m.starts_with("cell 2: the name "), "{m}");
            assert!(m.contains(why), "{bad:?}: {m}");
        }
        let long = "x".repeat(MAX_NAME + 1);
        assert!(with_names(&[Some(&long)]).is_err());
        with_names(&[
            Some(&"x".repeat(MAX_NAME)),
            Some("step-1"),
            Some("a_b"),
            None,
        ])
        .unwrap();
    }

    #[test]
    fn two_cells_cannot_share_a_result_name() {
        let e = with_names(&[Some("a"), None, Some("a")]).unwrap_err();
        assert!(
            e.to_string()
                .contains("cell 3: the name \"a\" is taken by cell 1"),
            "{e}"
        );
        // The second code cell is `cell-2` when unnamed; a cell named so clashes.
        let e = with_names(&[None, None, Some("cell-2")]).unwrap_err();
        assert!(e.to_string().contains("is taken by cell 2"), "{e}");
        with_names(&[None, Some("cell-2")]).unwrap();
    }

    #[test]
    fn a_notebook_depends_on_the_crate_when_a_cell_deps_it() {
        let nb = |src: &str| {
            let cells =
                json!([{"cell_type": "code", "metadata": {}, "source": src, "outputs": []}]);
            Notebook::parse(&json!({"nbformat": 4, "cells": cells}).to_string()).unwrap()
        };
        assert!(nb(":dep puzzlebook = { path = \"..\" }\nuse x;").depends_on_crate());
        assert!(nb("  :dep puzzlebook={ path = \"..\" }").depends_on_crate());
        assert!(!nb("1 + 1").depends_on_crate());
        assert!(!nb(":dep rand = \"0.8\"").depends_on_crate());
        assert!(!nb(":dep puzzlebook_other = \"1\"").depends_on_crate());
        assert!(!nb("// :dep puzzlebook").depends_on_crate());
    }
}
