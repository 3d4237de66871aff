//! Constraints as SMT-LIB text: written with Z3's own printer, and read back
//! only when the text is nothing but declarations of integer and Boolean
//! constants and assertions, so that a text from someone else (a graded
//! student's answer) cannot run a command in the reader's Z3, declare a
//! function no quantifier can range over, or go unnoticed half parsed.
//!
//! Z3's `Z3_solver_from_string` runs every command it reads, `check-sat`,
//! `set-option` and `reset` included, and reports a syntax error only in
//! the context's error code, which the z3 crate does not look at; [`read`]
//! checks the commands before Z3 sees them, and the error code after.

use thiserror::Error;
use z3::ast::{Ast, Bool};
use z3::{Context, Solver};

/// The longest text [`read`] takes, in bytes: 1 MiB. Z3 prints an
/// exercise's constraints in a few kilobytes.
pub const MAX_BYTES: usize = 1 << 20;

/// How deeply [`read`] lets parentheses nest; Z3's printer names shared
/// subterms with `let`, so its texts nest a few dozen deep.
pub const MAX_DEPTH: usize = 1000;

/// Why a text was not read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SmtlibError {
    /// Longer than [`MAX_BYTES`].
    #[error("it is {bytes} bytes long, more than the {MAX_BYTES} an answer may be")]
    TooLong {
        /// Its length.
        bytes: usize,
    },
    /// Not text an SMT-LIB reader takes: a NUL byte, a string or quoted
    /// symbol left open, parentheses that do not match or nest too deep.
    #[error("it is not SMT-LIB: {what}")]
    Syntax {
        /// What is wrong, and where.
        what: String,
    },
    /// A command other than a constant's declaration or an assertion.
    #[error("it has the command `{command}`; an answer may only declare integer and Boolean constants and assert constraints")]
    Command {
        /// The command's name.
        command: String,
    },
    /// A declaration of something that is not an integer or Boolean constant.
    #[error("it declares `{name}` as `{declared}`; an answer may declare only constants of sort Int or Bool")]
    Declaration {
        /// The name declared.
        name: String,
        /// What it was declared as.
        declared: String,
    },
    /// The same name declared twice.
    #[error("it declares `{name}` twice")]
    Redeclared {
        /// The name.
        name: String,
    },
    /// Z3 rejected it.
    #[error("Z3 could not read it: {message}")]
    Z3 {
        /// Z3's message.
        message: String,
    },
}

/// `constraints` as an SMT-LIB script: a declaration of each constant they
/// use, then an `assert` of each, in order, as Z3 prints a benchmark of
/// them (`Z3_benchmark_to_smtlib_string`). Only what they use is declared:
/// a solver's printout would also define every recursive function the
/// context holds, which an earlier notebook cell may have made.
pub fn write(constraints: &[Bool]) -> String {
    let ctx = Context::thread_local();
    let raw = ctx.get_z3_context();
    let truth = Bool::from_bool(true);
    let (formula, assumptions) = constraints.split_last().unwrap_or((&truth, &[]));
    let assumptions: Vec<z3_sys::Z3_ast> = assumptions.iter().map(|c| c.get_z3_ast()).collect();
    let count = u32::try_from(assumptions.len()).expect("fewer than 2^32 constraints");
    // SAFETY: the context is this thread's, alive for `ctx`'s life; every
    // AST is of it; the strings are NUL-terminated; the result is copied
    // before any other call into Z3.
    let text = unsafe {
        let p = z3_sys::Z3_benchmark_to_smtlib_string(
            raw,
            c"".as_ptr(),
            c"".as_ptr(),
            c"unknown".as_ptr(),
            c"".as_ptr(),
            count,
            assumptions.as_ptr(),
            formula.get_z3_ast(),
        );
        if p.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    // What a benchmark has besides: its status and `(check-sat)`.
    text.lines()
        .filter(|l| {
            !l.starts_with("(set-info ") && !l.starts_with("(check-sat)") && !l.starts_with(';')
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The constraints an SMT-LIB script asserts, in this thread's Z3 context:
/// its constants are the context's constants of the same name and sort, so
/// `x` in the text is `Int::new_const("x")`. Only `declare-const`,
/// `declare-fun` with no arguments (of sort `Int` or `Bool`) and `assert`
/// are taken, each name declared once; anything else is an error, and Z3
/// never sees the text.
pub fn read(text: &str) -> Result<Vec<Bool>, SmtlibError> {
    if text.len() > MAX_BYTES {
        return Err(SmtlibError::TooLong { bytes: text.len() });
    }
    if let Some(at) = text.find('\0') {
        return Err(SmtlibError::Syntax {
            what: format!("a NUL byte at byte {at}"),
        });
    }
    let forms = top_level_forms(text)?;
    let mut declared = std::collections::BTreeSet::new();
    for form in &forms {
        let name = match form.first().map(String::as_str) {
            Some("assert") => continue,
            Some("declare-const") => match &form[1..] {
                [name, sort] if is_sort(sort) => name,
                rest => return Err(declaration(form, rest)),
            },
            Some("declare-fun") => match &form[1..] {
                [name, arguments, sort] if arguments == "()" && is_sort(sort) => name,
                rest => return Err(declaration(form, rest)),
            },
            Some(other) => {
                return Err(SmtlibError::Command {
                    command: other.to_string(),
                })
            }
            None => {
                return Err(SmtlibError::Syntax {
                    what: "an empty command `()`".into(),
                })
            }
        };
        // `|x|` and `x` are one symbol to Z3.
        let bare = name
            .strip_prefix('|')
            .and_then(|n| n.strip_suffix('|'))
            .unwrap_or(name);
        if !declared.insert(bare.to_string()) {
            return Err(SmtlibError::Redeclared { name: bare.into() });
        }
    }
    let ctx = Context::thread_local();
    let solver = Solver::new();
    solver.from_string(text);
    let raw = ctx.get_z3_context();
    // SAFETY: the context is this thread's, alive for `ctx`'s life.
    let code = unsafe { z3_sys::Z3_get_error_code(raw) };
    if code != z3_sys::ErrorCode::Ok {
        // SAFETY: as above; Z3 returns a static string for each code.
        let message = unsafe {
            let p = z3_sys::Z3_get_error_msg(raw, code);
            if p.is_null() {
                format!("{code:?}")
            } else {
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        return Err(SmtlibError::Z3 { message });
    }
    Ok(solver.get_assertions())
}

/// A byte of a simple symbol, a numeral, a decimal or a keyword.
fn is_symbol_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"~!@$%^&*_-+=<>.?/:".contains(&c)
}

fn is_sort(token: &str) -> bool {
    token == "Int" || token == "Bool"
}

fn declaration(form: &[String], rest: &[String]) -> SmtlibError {
    SmtlibError::Declaration {
        name: rest.first().cloned().unwrap_or_default(),
        declared: form.join(" "),
    }
}

/// Each top-level form of `text` as its tokens at depth one: the command
/// and its arguments, a nested list as one token, `()` when empty and `(…)`
/// otherwise (enough to tell a declaration's shape). Only the bytes of
/// SMT-LIB's simple symbols, numerals and keywords, `|`-quoted symbols
/// without `\`, parentheses, white space and `;` comments are taken: each
/// is read by every Z3 version as it is read here.
fn top_level_forms(text: &str) -> Result<Vec<Vec<String>>, SmtlibError> {
    let syntax = |what: String| SmtlibError::Syntax { what };
    let bytes = text.as_bytes();
    let mut forms: Vec<Vec<String>> = Vec::new();
    let mut depth = 0usize;
    // Whether the list open at depth two holds anything.
    let mut inner = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        match c {
            b'\0' => return Err(syntax(format!("a NUL byte at byte {i}"))),
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(syntax(format!(
                        "parentheses nested more than {MAX_DEPTH} deep at byte {i}"
                    )));
                }
                match depth {
                    1 => forms.push(Vec::new()),
                    2 => inner = false,
                    _ => inner = true,
                }
                i += 1;
                continue;
            }
            b')' => {
                if depth == 0 {
                    return Err(syntax(format!("a `)` with no `(` at byte {i}")));
                }
                if depth == 2 {
                    let list = if inner { "(…)" } else { "()" };
                    forms.last_mut().expect("a form is open").push(list.into());
                }
                depth -= 1;
                i += 1;
                continue;
            }
            b'"' => {
                return Err(syntax(format!(
                    "a string at byte {i}; an answer over integers and Booleans has none"
                )))
            }
            b'|' => {
                // A quoted symbol. Z3 4.8.12 reads `\|` as a `|` inside it,
                // and other versions otherwise: refused, so that both
                // readers end it at the same byte.
                i += 1;
                loop {
                    match bytes.get(i) {
                        None => {
                            return Err(syntax(format!(
                                "a quoted symbol opened at byte {start} is never closed"
                            )))
                        }
                        Some(b'\\') => {
                            return Err(syntax(format!(
                                "a `\\` in the quoted symbol at byte {start}"
                            )))
                        }
                        Some(b'|') => {
                            i += 1;
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
            }
            // Z3's white space, and no more: a byte Z3 refuses ends its
            // reading of the form there, and what follows would be read by
            // its error recovery as a command of its own (form feed did).
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            c if is_symbol_byte(c) => {
                while i < bytes.len() && is_symbol_byte(bytes[i]) {
                    i += 1;
                }
            }
            _ => {
                // `#|` starts a comment for Z3, `#x` a bit vector; neither
                // belongs in an answer, and no other byte does.
                let shown = text[i..].chars().next().unwrap_or('?');
                return Err(syntax(format!("{shown:?} at byte {i}")));
            }
        }
        // An atom: a quoted symbol or a plain one.
        let token = &text[start..i];
        match depth {
            0 => return Err(syntax(format!("`{token}` outside any command"))),
            1 => forms
                .last_mut()
                .expect("a form is open")
                .push(token.to_string()),
            _ => inner = true,
        }
    }
    if depth > 0 {
        return Err(syntax("a `(` is never closed".into()));
    }
    Ok(forms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::Int;

    #[test]
    fn what_is_written_reads_back_as_the_same_constraints() {
        let (x, y, z) = (
            Int::new_const("x"),
            Int::new_const("y"),
            Int::new_const("z"),
        );
        let p = Bool::new_const("p");
        let constraints = vec![
            x.ge(1),
            (&x + &z).eq(&y),
            p.implies(z.gt(0)),
            x.ge(0)
                .ite(&(&x / 10), &(x.unary_minus() / 10).unary_minus())
                .eq(&y),
        ];
        let text = write(&constraints);
        assert!(text.contains("(declare-fun x () Int)"), "{text}");
        assert_eq!(read(&text).unwrap(), constraints);
        // Comments, strings and quoted symbols are read as Z3 reads them.
        let odd =
            "; a comment (with a paren\n(declare-const |a b| Int)\n(assert (> |a b| 2)) ; done";
        assert_eq!(read(odd).unwrap(), [Int::new_const("a b").gt(2)]);
    }

    #[test]
    fn a_command_is_refused_before_z3_runs_it() {
        for command in [
            "check-sat",
            "set-option",
            "reset",
            "push",
            "pop",
            "get-model",
            "eval",
            "echo",
            "define-fun",
            "exit",
        ] {
            let text = format!("(declare-const x Int)\n(assert (> x 1))\n({command} :timeout 0)");
            assert_eq!(
                read(&text),
                Err(SmtlibError::Command {
                    command: command.into()
                }),
                "{command}"
            );
        }
    }

    #[test]
    fn text_two_readers_could_split_differently_is_refused() {
        // Each hides a `set-option` from a reader that took `#|` for a
        // token, `\|` for the end of a quoted symbol, or a string's quote
        // for its end; Z3 would run it.
        let syntax = |text: &str| match read(text) {
            Err(SmtlibError::Syntax { what }) => what,
            other => panic!("{text:?}: {other:?}"),
        };
        assert_eq!(
            syntax(
                "(assert #| | \" |# true) (set-option :regular-output-channel \"/tmp/x\") ; \")"
            ),
            "'#' at byte 8"
        );
        assert_eq!(
            syntax("(declare-const |a\\| Int)\n; | Int) (set-option :timeout 1)"),
            "a `\\` in the quoted symbol at byte 15"
        );
        assert_eq!(
            syntax("(assert (= x \"\\\" (check-sat) \"))"),
            "a string at byte 13; an answer over integers and Booleans has none"
        );
        assert_eq!(syntax("(assert é)"), "'é' at byte 8");
        assert_eq!(
            syntax("; \0 in a comment\n(assert true)"),
            "a NUL byte at byte 2"
        );
    }

    #[test]
    fn only_integer_and_boolean_constants_may_be_declared_once_each() {
        let declared = |text: &str| match read(text) {
            Err(SmtlibError::Declaration { name, .. }) => name,
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(declared("(declare-fun f (Int) Int)"), "f");
        assert_eq!(declared("(declare-fun g ((Int)) Int)"), "g");
        assert_eq!(declared("(declare-const r Real)"), "r");
        assert_eq!(declared("(declare-fun a () (Array Int Int))"), "a");
        assert_eq!(
            read("(declare-const x Int)(declare-fun x () Int)"),
            Err(SmtlibError::Redeclared { name: "x".into() })
        );
        assert_eq!(
            read("(declare-const x Int)(declare-const |x| Bool)"),
            Err(SmtlibError::Redeclared { name: "x".into() })
        );
    }

    #[test]
    fn only_z3_s_white_space_separates() {
        // A form feed is white space to Rust's `is_ascii_whitespace` and not
        // to Z3, whose error recovery would then run the `set-option`.
        assert_eq!(
            read("(assert (not true)\x0c(set-option :memory_max_size 1))"),
            Err(SmtlibError::Syntax {
                what: "'\\u{c}' at byte 18".into()
            })
        );
        assert_eq!(
            read("(assert\x0b(= 1 1))"),
            Err(SmtlibError::Syntax {
                what: "'\\u{b}' at byte 7".into()
            })
        );
        // What is taken, Z3 takes too: it reads these without an error.
        let crlf = read("(declare-const x Int)\r\n(assert\t(= x\r1))\r\n").unwrap();
        assert_eq!(crlf.len(), 1);
    }

    #[test]
    fn broken_text_is_refused_with_where() {
        let syntax = |text: &str| match read(text) {
            Err(SmtlibError::Syntax { what }) => what,
            other => panic!("{text:?}: {other:?}"),
        };
        assert_eq!(syntax("(assert true))"), "a `)` with no `(` at byte 13");
        assert_eq!(syntax("(assert (> x 1)"), "a `(` is never closed");
        assert_eq!(
            syntax("(assert (= x |open))"),
            "a quoted symbol opened at byte 13 is never closed"
        );
        assert_eq!(syntax("x (assert true)"), "`x` outside any command");
        assert_eq!(syntax("(assert\0 true)"), "a NUL byte at byte 7");
        let deep = format!(
            "(assert {}true{})",
            "(not ".repeat(MAX_DEPTH),
            ")".repeat(MAX_DEPTH)
        );
        assert!(syntax(&deep).starts_with("parentheses nested more than 1000 deep"));
        let long = format!("(assert {})", " ".repeat(MAX_BYTES));
        assert!(matches!(read(&long), Err(SmtlibError::TooLong { .. })));
    }

    #[test]
    fn what_z3_cannot_read_is_an_error_not_a_partial_answer() {
        // An undeclared name, and a term of the wrong sort, after a good
        // assertion that Z3 would otherwise keep alone.
        for text in [
            "(declare-const x Int)(assert (> x 1))(assert (> y 1))",
            "(declare-const x Int)(assert (> x 1))(assert (+ x 1))",
        ] {
            assert!(
                matches!(read(text), Err(SmtlibError::Z3 { .. })),
                "{text}: {:?}",
                read(text)
            );
        }
        // The context is usable afterwards.
        assert_eq!(
            read("(declare-const x Int)(assert (> x 1))").unwrap(),
            [Int::new_const("x").gt(1)]
        );
    }
}

#[cfg(test)]
mod write_tests {
    use super::*;
    use z3::ast::Int;
    use z3::{RecFuncDecl, Sort};

    #[test]
    fn what_is_written_is_read_back_whatever_else_the_context_holds() {
        // A recursive function, as an earlier cell of a notebook may make:
        // a solver's printout defines it, which `read` refuses.
        let f = RecFuncDecl::new("count_down", &[&Sort::int()], &Sort::int());
        let n = Int::new_const("n");
        f.add_def(
            &[&n],
            &n.le(0)
                .ite(&Int::from_i64(0), &f.apply(&[&(&n - 1)]).as_int().unwrap()),
        );
        let x = Int::new_const("x");
        let y = Int::new_const("y");
        let constraints = [x.ge(0).implies(y.eq(&x / 10)), y.lt(&x)];
        let text = write(&constraints);
        assert!(!text.contains("define-fun"), "{text}");
        assert!(!text.contains("check-sat"), "{text}");
        let back = read(&text).unwrap();
        assert_eq!(back.len(), 2, "{text}");
        assert_eq!(back[0], constraints[0]);
        assert_eq!(back[1], constraints[1]);
        assert!(read(&write(&[])).unwrap().is_empty());
    }
}
