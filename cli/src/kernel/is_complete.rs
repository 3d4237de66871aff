//! Whether a cell's code is finished, for `is_complete_request`: a console
//! sends Enter as a new line while the code is `incomplete` (an open bracket,
//! string or block comment) and runs it once it is `complete`; a stray or
//! mismatched closing bracket is `invalid`. Read with rustc's own lexer (the
//! one rust-analyzer, and so evcxr, uses), so brackets inside strings, chars
//! and comments do not count, and `'a` is a lifetime, not an open char.

use ra_ap_rustc_lexer::{tokenize, FrontmatterAllowed, LiteralKind, TokenKind};

/// What `is_complete_reply` says of a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completeness {
    /// Ready to run.
    Complete,
    /// More is to come; the next line's indent, four spaces per open bracket.
    Incomplete { indent: String },
    /// No more text can make it valid.
    Invalid,
}

impl Completeness {
    /// The reply's content.
    pub fn reply(&self) -> serde_json::Value {
        match self {
            Completeness::Complete => object! {"status" => "complete"},
            Completeness::Incomplete { indent } => {
                object! {"status" => "incomplete", "indent" => indent.clone()}
            }
            Completeness::Invalid => object! {"status" => "invalid"},
        }
    }
}

/// Whether `code` is a finished cell. Lines that are evcxr commands
/// (`:dep …`, one line each, TOML rather than Rust) are not read.
pub fn completeness(code: &str) -> Completeness {
    let rust: String = code
        .split_inclusive('\n')
        .map(|line| {
            if line.trim_start().starts_with(':') {
                if line.ends_with('\n') {
                    "\n"
                } else {
                    ""
                }
            } else {
                line
            }
        })
        .collect();
    let code = rust.as_str();
    let mut open: Vec<TokenKind> = Vec::new();
    let mut at = 0usize;
    for token in tokenize(code, FrontmatterAllowed::No) {
        let start = at;
        at += token.len as usize;
        let reaches_end = at == code.len();
        match token.kind {
            TokenKind::OpenParen | TokenKind::OpenBrace | TokenKind::OpenBracket => {
                open.push(token.kind)
            }
            TokenKind::CloseParen | TokenKind::CloseBrace | TokenKind::CloseBracket => {
                let opener = match token.kind {
                    TokenKind::CloseParen => TokenKind::OpenParen,
                    TokenKind::CloseBrace => TokenKind::OpenBrace,
                    _ => TokenKind::OpenBracket,
                };
                if open.pop() != Some(opener) {
                    return Completeness::Invalid;
                }
            }
            TokenKind::BlockComment {
                terminated: false, ..
            } => return incomplete(0),
            TokenKind::Literal { kind, .. } => match kind {
                LiteralKind::Str { terminated: false }
                | LiteralKind::ByteStr { terminated: false }
                // The next line goes on inside the string: no indent.
                | LiteralKind::CStr { terminated: false } => return incomplete(0),
                // A char cannot run over a line: no more text finishes it.
                LiteralKind::Char { terminated: false }
                | LiteralKind::Byte { terminated: false } => return Completeness::Invalid,
                // An unterminated raw string runs to the end; a malformed
                // opening (`r#x`) does not.
                LiteralKind::RawStr { n_hashes: None }
                | LiteralKind::RawByteStr { n_hashes: None }
                | LiteralKind::RawCStr { n_hashes: None } => {
                    return if reaches_end && code[start..].contains('"') {
                        incomplete(0)
                    } else {
                        Completeness::Invalid
                    };
                }
                _ => {}
            },
            _ => {}
        }
    }
    if open.is_empty() {
        Completeness::Complete
    } else {
        incomplete(open.len())
    }
}

fn incomplete(depth: usize) -> Completeness {
    Completeness::Incomplete {
        indent: "    ".repeat(depth),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: &str) -> &'static str {
        match completeness(code) {
            Completeness::Complete => "complete",
            Completeness::Incomplete { .. } => "incomplete",
            Completeness::Invalid => "invalid",
        }
    }

    #[test]
    fn finished_cells_are_complete() {
        for code in [
            "",
            "1 + 1",
            "let x = 1;",
            "fn f() {}\nf()",
            ":dep puzzlebook = { path = \"..\" }",
            // TOML's single quotes, which Rust would read as a lifetime.
            ":dep z3 = { git = 'https://example.org/z3.rs' }\nlet x = 1;",
            "let s = \"a { ( [\";",
            "let c = '{';",
            "fn f<'a>(x: &'a str) -> &'a str { x }",
            "// a comment with (\nlet x = 1;",
            "/* nested /* comment */ ( */ 2",
            "let r = r#\"a \" { \"#;",
            "let b = b'[';",
            // Not valid Rust, but no bracket is open: compiling it says why.
            "let x = 1 +;",
        ] {
            assert_eq!(status(code), "complete", "{code:?}");
        }
    }

    #[test]
    fn open_brackets_strings_and_comments_are_incomplete_with_an_indent() {
        for code in [
            "fn f() {",
            "let v = vec![1,\n2",
            "f(",
            "let s = \"abc",
            "let s = b\"abc",
            "let r = r#\"abc\"",
            "/* a comment",
            "/* outer /* inner */",
        ] {
            assert_eq!(status(code), "incomplete", "{code:?}");
        }
        assert_eq!(
            completeness("fn f() {\n    let v = vec![(1,"),
            Completeness::Incomplete {
                indent: " ".repeat(12)
            }
        );
        // Inside a string or comment the next line gets no indent: it would
        // be part of the text.
        for code in ["let s = \"abc", "f(vec![\"abc", "f(/* note"] {
            assert_eq!(
                completeness(code),
                Completeness::Incomplete {
                    indent: String::new()
                },
                "{code:?}"
            );
        }
        assert_eq!(status(":dep a = { path = \"..\" }\nfn f() {"), "incomplete");
    }

    #[test]
    fn stray_or_mismatched_closers_and_broken_chars_are_invalid() {
        for code in [
            "}",
            "let x = 1;)",
            "fn f() { (1] }",
            "f(]",
            "let c = '{;",
            "let c = '\\n",
        ] {
            assert_eq!(status(code), "invalid", "{code:?}");
        }
    }

    #[test]
    fn the_reply_is_the_spec_s() {
        assert_eq!(
            completeness("f(").reply(),
            serde_json::json!({"status": "incomplete", "indent": "    "})
        );
        assert_eq!(
            completeness("f()").reply(),
            serde_json::json!({"status": "complete"})
        );
        assert_eq!(
            completeness(")").reply(),
            serde_json::json!({"status": "invalid"})
        );
    }
}
