//! What a cell shows besides text, as Jupyter messages: a line of its
//! standard output that [`puzzlebook::rich::display`] or
//! [`puzzlebook::rich::clear_output`] printed becomes `display_data` or
//! `clear_output` for the cell's request, in order with the lines around it.

use puzzlebook::rich::Shown;
use serde_json::Value;

use super::jupyter::jupyter_message::JupyterMessage;

/// The message to send for `line` of stream `name`, a child of the cell's
/// `request`; `None` for a line that is text.
pub(crate) fn message(name: &str, line: &str, request: &JupyterMessage) -> Option<JupyterMessage> {
    let (kind, content) = shown_content(name, line)?;
    Some(request.new_message(kind).with_content(content))
}

/// The type and content of the message for `line` of stream `name`.
fn shown_content(name: &str, line: &str) -> Option<(&'static str, Value)> {
    if name != "stdout" {
        return None;
    }
    Some(match Shown::parse(line)? {
        Shown::Display(data) => (
            "display_data",
            object! {
                "data" => data_value(data),
                "metadata" => object!(),
                "transient" => object!(),
            },
        ),
        Shown::Clear { wait } => ("clear_output", object! { "wait" => wait }),
    })
}

/// The `data` of a display: each MIME type's content as a string, but JSON
/// types' as the JSON they hold, as the server sends a cell's value.
fn data_value(data: std::collections::BTreeMap<String, String>) -> Value {
    Value::Object(
        data.into_iter()
            .map(|(mime, content)| {
                let value = if mime.contains("json") {
                    serde_json::from_str(&content).unwrap_or(Value::String(content))
                } else {
                    Value::String(content)
                };
                (mime, value)
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_display_line_on_stdout_is_display_data_and_other_lines_are_text() {
        let line = r#"PUZZLEBOOK_DISPLAY_DATA {"text/html":"<b>x</b>","text/plain":"x"}"#;
        let (kind, content) = shown_content("stdout", line).expect("a display");
        assert_eq!(kind, "display_data");
        assert_eq!(
            content,
            json!({"data": {"text/html": "<b>x</b>", "text/plain": "x"}, "metadata": {}, "transient": {}})
        );
        // The same on standard error, or not at a line's start, is text.
        assert!(shown_content("stderr", line).is_none());
        assert!(shown_content("stdout", &format!("x{line}")).is_none());
        assert!(shown_content("stdout", "PUZZLEBOOK_DISPLAY_DATA {not json").is_none());
        assert!(shown_content("stdout", "a line").is_none());
    }

    #[test]
    fn a_clear_line_is_clear_output_with_its_wait() {
        for (line, wait) in [
            ("PUZZLEBOOK_CLEAR_OUTPUT", false),
            ("PUZZLEBOOK_CLEAR_OUTPUT wait", true),
        ] {
            let (kind, content) = shown_content("stdout", line).expect("a clear");
            assert_eq!(kind, "clear_output");
            assert_eq!(content, json!({ "wait": wait }));
        }
        assert!(shown_content("stdout", "PUZZLEBOOK_CLEAR_OUTPUT now").is_none());
    }

    #[test]
    fn json_types_are_sent_as_json() {
        let line = r#"PUZZLEBOOK_DISPLAY_DATA {"application/json":"{\"a\":1}"}"#;
        let (_, content) = shown_content("stdout", line).unwrap();
        assert_eq!(content["data"]["application/json"]["a"], 1);
    }
}
