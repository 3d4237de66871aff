//! A run's cell results as JSON, for a run in another process (a grading
//! sandbox) to hand back to the one that scores it.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::notebook::ipynb::Output;
use crate::runner::execute::{CellAt, CellResults, ExecError};

/// Results that cannot be read back.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("the run's results are not readable ({0})")]
pub struct HandoverError(String);

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Results {
    cells: Vec<Cell>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum Cell {
    Outputs(Vec<Out>),
    Failed(Failure),
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum Out {
    Stream {
        name: String,
        text: String,
    },
    Value {
        data: std::collections::BTreeMap<String, String>,
    },
    Display {
        data: std::collections::BTreeMap<String, String>,
    },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct At {
    notebook: String,
    cell: usize,
    label: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum Failure {
    Cell {
        at: At,
        message: String,
    },
    Timeout {
        at: At,
        seconds: u64,
    },
    Memory {
        at: At,
        limit: String,
        message: String,
    },
    Interrupted {
        at: At,
    },
    Engine {
        notebook: String,
        message: String,
    },
}

impl From<&CellAt> for At {
    fn from(a: &CellAt) -> At {
        At {
            notebook: a.notebook.clone(),
            cell: a.cell,
            label: a.label.clone(),
        }
    }
}

impl From<At> for CellAt {
    fn from(a: At) -> CellAt {
        CellAt {
            notebook: a.notebook,
            cell: a.cell,
            label: a.label,
        }
    }
}

/// `cells` as JSON. A build-folder error becomes an engine error with its
/// message.
pub fn to_json(cells: &CellResults) -> String {
    let cells = cells
        .iter()
        .map(|c| match c {
            Ok(outputs) => Cell::Outputs(
                outputs
                    .iter()
                    .map(|o| match o {
                        Output::Stream { name, text } => Out::Stream {
                            name: name.clone(),
                            text: text.clone(),
                        },
                        Output::ExecuteResult { data } => Out::Value { data: data.clone() },
                        Output::DisplayData { data } => Out::Display { data: data.clone() },
                    })
                    .collect(),
            ),
            Err(e) => Cell::Failed(match e {
                ExecError::Cell { at, message } => Failure::Cell {
                    at: at.into(),
                    message: message.clone(),
                },
                ExecError::Timeout { at, seconds } => Failure::Timeout {
                    at: at.into(),
                    seconds: *seconds,
                },
                ExecError::Memory { at, limit, message } => Failure::Memory {
                    at: at.into(),
                    limit: limit.clone(),
                    message: message.clone(),
                },
                ExecError::Interrupted { at } => Failure::Interrupted { at: at.into() },
                ExecError::Engine { notebook, message } => Failure::Engine {
                    notebook: notebook.clone(),
                    message: message.clone(),
                },
                ExecError::BuildDir(e) => Failure::Engine {
                    notebook: String::new(),
                    message: e.to_string(),
                },
            }),
        })
        .collect();
    serde_json::to_string(&Results { cells }).expect("plain data serializes")
}

/// The results [`to_json`] wrote.
pub fn from_json(text: &str) -> Result<CellResults, HandoverError> {
    let results: Results = serde_json::from_str(text).map_err(|e| HandoverError(e.to_string()))?;
    Ok(results
        .cells
        .into_iter()
        .map(|c| match c {
            Cell::Outputs(outputs) => Ok(outputs
                .into_iter()
                .map(|o| match o {
                    Out::Stream { name, text } => Output::Stream { name, text },
                    Out::Value { data } => Output::ExecuteResult { data },
                    Out::Display { data } => Output::DisplayData { data },
                })
                .collect()),
            Cell::Failed(f) => Err(match f {
                Failure::Cell { at, message } => ExecError::Cell {
                    at: at.into(),
                    message,
                },
                Failure::Timeout { at, seconds } => ExecError::Timeout {
                    at: at.into(),
                    seconds,
                },
                Failure::Memory { at, limit, message } => ExecError::Memory {
                    at: at.into(),
                    limit,
                    message,
                },
                Failure::Interrupted { at } => ExecError::Interrupted { at: at.into() },
                Failure::Engine { notebook, message } => ExecError::Engine { notebook, message },
            }),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(cell: usize) -> CellAt {
        CellAt {
            notebook: "s.ipynb".into(),
            cell,
            label: format!("code cell {cell}"),
        }
    }

    #[test]
    fn every_kind_of_result_reads_back_as_written() {
        let cells: CellResults = vec![
            Ok(vec![
                Output::Stream {
                    name: "stdout".into(),
                    text: "a\n\"b\"\u{1b}\n".into(),
                },
                Output::DisplayData {
                    data: [("text/html".to_string(), "<b>1</b>".to_string())].into(),
                },
                Output::ExecuteResult {
                    data: [("text/plain".to_string(), "2".to_string())].into(),
                },
            ]),
            Err(ExecError::Cell {
                at: at(2),
                message: "panicked".into(),
            }),
            Err(ExecError::Timeout {
                at: at(3),
                seconds: 60,
            }),
            Err(ExecError::Memory {
                at: at(4),
                limit: "1 GiB".into(),
                message: "memory allocation failed".into(),
            }),
            Err(ExecError::Interrupted { at: at(5) }),
            Err(ExecError::Engine {
                notebook: "s.ipynb".into(),
                message: "no rustc".into(),
            }),
        ];
        let back = from_json(&to_json(&cells)).unwrap();
        // ExecError has no PartialEq: compare what scoring reads.
        assert_eq!(format!("{back:?}"), format!("{cells:?}"));
    }

    #[test]
    fn anything_else_is_refused() {
        assert!(from_json("").is_err());
        assert!(from_json(r#"{"cells": [], "grade": 5}"#).is_err());
        assert!(
            from_json(r#"{"cells": [{"outputs": [{"stream": {"name": "stdout"}}]}]}"#).is_err()
        );
        assert_eq!(from_json(r#"{"cells": []}"#).unwrap().len(), 0);
    }
}
