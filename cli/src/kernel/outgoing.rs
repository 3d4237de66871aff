//! The last look at each message the kernel sends, where the forked server
//! builds a message the v5 message spec does not allow (its `send` calls
//! this from a `puzzlebook:` hook):
//! - an `execute_reply` with status `error` carries `ename`, `evalue` and
//!   `traceback`: those of the first `error` the cell showed (evcxr_jupyter
//!   sent the status alone, which Jupyter's schema rejects);
//! - a `kernel_info_reply`'s `language_info` names its lexer
//!   `pygments_lexer`, as the spec spells it (evcxr_jupyter wrote
//!   `pygment_lexer`, which no tool reads).
//!
//! One kernel serves one session and runs one cell at a time, so the error
//! to repeat is the first one sent for the request the reply answers.
//! [`error_content`] is the one builder of an error's fields for the
//! kernel's own replies.

use std::borrow::Cow;
use std::sync::Mutex;

use serde_json::Value;

/// The request the last `error` message answered, and its content.
static FIRST_ERROR: Mutex<Option<(String, Value)>> = Mutex::new(None);

/// The content to send for a message with `header`, `parent_header` and
/// `content`.
pub(crate) fn content<'c>(
    header: &Value,
    parent_header: &Value,
    content: &'c Value,
) -> Cow<'c, Value> {
    let parent = parent_header["msg_id"].as_str().unwrap_or("");
    match header["msg_type"].as_str() {
        Some("error") => {
            let mut first = crate::kernel::locks::lock(&FIRST_ERROR);
            if first.as_ref().is_none_or(|(id, _)| id != parent) {
                *first = Some((parent.to_string(), content.clone()));
            }
            Cow::Borrowed(content)
        }
        Some("execute_reply") if content["status"] == "error" && content.get("ename").is_none() => {
            let first = crate::kernel::locks::lock(&FIRST_ERROR);
            let shown = first
                .as_ref()
                .filter(|(id, _)| id == parent)
                .map(|(_, error)| error);
            Cow::Owned(with_error(content, shown))
        }
        Some("kernel_info_reply") => Cow::Owned(with_lexer_named(content)),
        _ => Cow::Borrowed(content),
    }
}

/// An error reply's content (also an `error` message's, but for `status`):
/// `ename`, `evalue`, and a one-line traceback that says both.
pub(crate) fn error_content(ename: &str, evalue: &str) -> Value {
    object! {
        "status" => "error",
        "ename" => ename,
        "evalue" => evalue,
        "traceback" => array![format!("{ename}: {evalue}")],
    }
}

/// `reply` with the error fields of `shown`, the error its cell showed, or
/// a plain one if it showed none.
fn with_error(reply: &Value, shown: Option<&Value>) -> Value {
    let mut reply = reply.clone();
    let fallback = error_content("Error", "the cell failed");
    let shown = shown.unwrap_or(&fallback);
    for key in ["ename", "evalue", "traceback"] {
        reply[key] = shown[key].clone();
    }
    if !reply["traceback"].is_array() {
        reply["traceback"] = array![];
    }
    for key in ["ename", "evalue"] {
        if !reply[key].is_string() {
            reply[key] = fallback[key].clone();
        }
    }
    reply
}

/// `info` with its `language_info` lexer under the spec's key.
fn with_lexer_named(info: &Value) -> Value {
    let mut info = info.clone();
    if let Some(language) = info["language_info"].as_object_mut() {
        if let Some(lexer) = language.remove("pygment_lexer") {
            language.entry("pygments_lexer").or_insert(lexer);
        }
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn header(kind: &str) -> Value {
        json!({"msg_type": kind, "msg_id": "m"})
    }

    fn parent(id: &str) -> Value {
        json!({"msg_id": id})
    }

    #[test]
    fn an_error_reply_repeats_the_first_error_its_cell_showed() {
        let first = json!({"ename": "Error", "evalue": "mismatched types", "traceback": ["mismatched types", "^^^ expected u32"]});
        let second = json!({"ename": "Error", "evalue": "second", "traceback": []});
        // Unique request ids: the memory is the process's.
        let cell = "cell-repeat-first";
        assert_eq!(*content(&header("error"), &parent(cell), &first), first);
        content(&header("error"), &parent(cell), &second);
        let bare = json!({"status": "error", "execution_count": 3});
        let sent = content(&header("execute_reply"), &parent(cell), &bare).into_owned();
        assert_eq!(
            sent,
            json!({"status": "error", "execution_count": 3, "ename": "Error", "evalue": "mismatched types", "traceback": ["mismatched types", "^^^ expected u32"]})
        );
        // A reply to a request that showed no error gets a plain one.
        let other = content(&header("execute_reply"), &parent("cell-no-error"), &bare).into_owned();
        assert_eq!(other["ename"], "Error");
        assert_eq!(other["evalue"], "the cell failed");
        assert_eq!(other["traceback"], json!(["Error: the cell failed"]));
    }

    #[test]
    fn complete_replies_and_other_messages_go_as_they_are() {
        let ours = json!({"status": "error", "execution_count": 1, "ename": "Panic", "evalue": "p", "traceback": []});
        assert!(matches!(
            content(&header("execute_reply"), &parent("x"), &ours),
            Cow::Borrowed(_)
        ));
        let ok = json!({"status": "ok", "execution_count": 1});
        assert_eq!(*content(&header("execute_reply"), &parent("x"), &ok), ok);
        let stream = json!({"name": "stdout", "text": "hi\n"});
        assert_eq!(*content(&header("stream"), &parent("x"), &stream), stream);
    }

    #[test]
    fn kernel_info_names_its_lexer_as_the_spec_does() {
        let info = json!({"status": "ok", "language_info": {"name": "Rust", "pygment_lexer": "rust", "codemirror_mode": "rust"}});
        let sent = content(&header("kernel_info_reply"), &parent("k"), &info).into_owned();
        assert_eq!(
            sent["language_info"],
            json!({"name": "Rust", "pygments_lexer": "rust", "codemirror_mode": "rust"})
        );
    }
}
