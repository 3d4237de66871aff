//! Replies to the requests evcxr_jupyter 0.22 leaves unanswered, so that no
//! client waits for ever: `is_complete_request` ([`super::is_complete`]),
//! `history_request` ([`super::history`]), `comm_info_request` (no comm stays
//! open: evcxr's one target closes each comm at once), and any other request
//! the kernel does not serve, which gets an error reply naming it. The forked
//! `core.rs` calls these from a `puzzlebook:` hook on each channel.

use serde_json::Value;

use super::history::History;
use super::is_complete::completeness;
use super::jupyter::jupyter_message::JupyterMessage;
use super::outgoing::error_content;

/// The requests the forked server answers itself on the shell channel.
const SERVED_BY_UPSTREAM: &[&str] = &[
    "kernel_info_request",
    "execute_request",
    "complete_request",
    "inspect_request",
];

/// Our reply to a shell `message`, or `None` when the server's own handling
/// applies (the requests it serves, and messages that want no reply, such
/// as `comm_msg`).
pub(crate) fn shell_reply(message: &JupyterMessage, history: &History) -> Option<JupyterMessage> {
    shell_reply_content(message.message_type(), message.get_content(), history)
        .map(|content| message.new_reply().with_content(content))
}

/// [`shell_reply`]'s content for a request of type `kind` with `content`.
fn shell_reply_content(kind: &str, content: &Value, history: &History) -> Option<Value> {
    Some(match kind {
        "is_complete_request" => completeness(content["code"].as_str().unwrap_or("")).reply(),
        "history_request" => history.reply(content),
        "comm_info_request" => object! {"status" => "ok", "comms" => object!{}},
        kind if SERVED_BY_UPSTREAM.contains(&kind) => return None,
        kind if kind.ends_with("_request") => unsupported_content(kind, "shell"),
        _ => return None,
    })
}

/// Whether a control-channel message of type `kind` gets [`unsupported`]'s
/// reply: any request but the ones the server serves there.
pub(crate) fn unsupported_on_control(kind: &str) -> bool {
    kind.ends_with("_request")
        && !matches!(
            kind,
            "kernel_info_request" | "shutdown_request" | "interrupt_request"
        )
}

/// The error reply to a control-channel request the kernel does not serve.
pub(crate) fn unsupported(message: &JupyterMessage) -> JupyterMessage {
    message
        .new_reply()
        .with_content(unsupported_content(message.message_type(), "control"))
}

/// An error reply's content for a request of type `kind` that the kernel
/// does not serve on `channel`.
fn unsupported_content(kind: &str, channel: &str) -> Value {
    let evalue = match kind {
        "shutdown_request" | "interrupt_request" => {
            format!("the puzzlebook kernel takes {kind} on the control channel, not the {channel} channel")
        }
        _ => format!("the puzzlebook kernel does not serve {kind} (on the {channel} channel)"),
    };
    error_content("NotImplementedError", &evalue)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_request_upstream_ignores_gets_its_reply() {
        let mut history = History::default();
        history.record(1, "6 * 7");
        let reply = |kind: &str, content: Value| shell_reply_content(kind, &content, &history);
        let r = reply("is_complete_request", json!({"code": "fn f() {"})).unwrap();
        assert_eq!(r, json!({"status": "incomplete", "indent": "    "}));
        let r = reply(
            "history_request",
            json!({"hist_access_type": "tail", "n": 5, "output": false, "raw": true}),
        )
        .unwrap();
        assert_eq!(r, json!({"status": "ok", "history": [[1, 1, "6 * 7"]]}));
        let r = reply("comm_info_request", json!({})).unwrap();
        assert_eq!(r, json!({"status": "ok", "comms": {}}));
    }

    #[test]
    fn an_unknown_request_gets_an_error_reply_and_other_messages_none() {
        let history = History::default();
        let reply = |kind: &str| shell_reply_content(kind, &json!({}), &history);
        let c = reply("frobnicate_request").unwrap();
        assert_eq!(c["status"], "error");
        assert_eq!(c["ename"], "NotImplementedError");
        assert!(c["evalue"].as_str().unwrap().contains("frobnicate_request"));
        assert!(c["traceback"].is_array());
        let c = reply("shutdown_request").unwrap();
        assert!(c["evalue"].as_str().unwrap().contains("control channel"));
        for kind in [
            "execute_request",
            "kernel_info_request",
            "complete_request",
            "inspect_request",
            "comm_msg",
            "comm_open",
            "comm_close",
        ] {
            assert!(reply(kind).is_none(), "{kind}");
        }
    }

    #[test]
    fn on_control_only_requests_the_server_does_not_serve_get_the_error() {
        assert!(unsupported_on_control("debug_request"));
        assert!(unsupported_on_control("usage_request"));
        for kind in [
            "interrupt_request",
            "shutdown_request",
            "kernel_info_request",
            "comm_msg",
        ] {
            assert!(!unsupported_on_control(kind), "{kind}");
        }
        let c = unsupported_content("debug_request", "control");
        assert_eq!(c["status"], "error");
        assert!(c["evalue"].as_str().unwrap().contains("debug_request"));
    }
}
