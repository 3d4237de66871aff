//! What the runner and the kernel tell a reader about Z3 values kept in
//! variables across cells. With the library's `z3-dylib` feature (every
//! notebook loads it, and so does the kernel) all cells share one Z3, and such
//! values cross cells safely. Without it each cell links its own copy of Z3,
//! and a value from an earlier cell crashes the next cell that uses it; so
//! does mixing the z3 crate loaded by itself (`:dep z3`) with the shared one.
//! One behaviour for both front ends: while values are at risk, a warning
//! after a cell when the set of variables holding Z3 values changes (and is
//! not empty), and a note on a crash while any are held.

use evcxr::CommandContext;

/// Watches a session's cells for variables that hold Z3 values.
#[derive(Debug, Clone, Default)]
pub struct Z3Watch {
    /// The sources of the cells that succeeded, for the names their `use`
    /// items bring in from `z3`.
    sources: Vec<String>,
    /// The variables holding Z3 values after the last cell: `(name, type)`.
    held: Vec<(String, String)>,
    /// Whether the crate was last loaded with its shared Z3 (`z3-dylib`, or
    /// `polars-dylib`, which turns it on).
    shared: bool,
    /// Whether a cell loaded the z3 crate by itself, a second copy of Z3.
    own_z3: bool,
}

impl Z3Watch {
    /// A watch for a session whose crate is loaded with its shared Z3 before
    /// the first cell, as the kernel's `init.evcxr` loads it.
    #[cfg(test)]
    fn shared() -> Z3Watch {
        Z3Watch {
            shared: true,
            ..Z3Watch::default()
        }
    }

    /// A watch for a session that ran `init` (the kernel's `init.evcxr`)
    /// before its first cell: shared when its `:dep puzzlebook` asks for the
    /// shared Z3, as `kernel install` writes it (an older kernelspec's does not).
    pub fn after_init(init: &str) -> Z3Watch {
        let mut watch = Z3Watch::default();
        watch.read_deps(init);
        watch
    }

    /// Takes note of the `:dep` commands in `source`.
    fn read_deps(&mut self, source: &str) {
        for (name, spec) in dep_commands(source) {
            match name {
                "puzzlebook" => self.shared = shares_z3(spec),
                "z3" => self.own_z3 = true,
                _ => {}
            }
        }
    }

    /// Whether a Z3 value kept in a variable may crash a later cell: each
    /// cell has its own Z3, or two copies of the z3 crate are loaded.
    fn at_risk(&self) -> bool {
        !self.shared || self.own_z3
    }

    /// After a cell with `source` succeeded in `ctx`: the warning to show,
    /// when the variables that hold Z3 values are not the ones they were and
    /// such values are at risk in a later cell.
    pub fn succeeded(&mut self, ctx: &CommandContext, source: &str) -> Option<String> {
        let was_at_risk = self.at_risk();
        self.read_deps(source);
        self.sources.push(source.to_string());
        let sources: Vec<&str> = self.sources.iter().map(String::as_str).collect();
        let held = z3_variables(ctx, &sources);
        self.note(held, was_at_risk)
    }

    /// Keeps `held` as the variables holding Z3 values, and says so when they
    /// changed or have just become at risk (a `:dep` without the shared Z3).
    fn note(&mut self, held: Vec<(String, String)>, was_at_risk: bool) -> Option<String> {
        let changed = held != self.held || !was_at_risk;
        self.held = held;
        (self.at_risk() && changed && !self.held.is_empty()).then(|| z3_hint(&self.held))
    }

    /// After a cell failed with `message`: the note to add when it crashed
    /// while earlier cells left Z3 values at risk in variables, or when it
    /// failed to link a Z3 function that this build's Z3 lacks.
    pub fn failed(&self, message: &str) -> Option<String> {
        if let Some(symbol) = missing_z3_symbol(message) {
            return Some(too_old(symbol, puzzlebook::libz3::BUILT_AGAINST));
        }
        if let Some(note) = unloadable_on_old_z3(message, puzzlebook::libz3::BUILT_AGAINST) {
            return Some(note);
        }
        (self.at_risk() && !self.held.is_empty() && crashed(message)).then(|| {
            format!(
                "The cell crashed after an earlier cell left Z3 values in variables: {}",
                z3_hint(&self.held)
            )
        })
    }
}

/// The `:dep NAME = SPEC` commands of a cell's source, as `(NAME, SPEC)`.
fn dep_commands(source: &str) -> impl Iterator<Item = (&str, &str)> {
    source.lines().filter_map(|line| {
        let rest = line.trim_start().strip_prefix(":dep")?;
        let (name, spec) = rest.split_once('=').unwrap_or((rest, ""));
        Some((name.trim(), spec.trim()))
    })
}

/// Whether a `:dep puzzlebook` spec turns on the crate's shared Z3 (a TOML
/// string, in either quotes).
fn shares_z3(spec: &str) -> bool {
    ["z3-dylib", "polars-dylib"]
        .iter()
        .any(|f| spec.contains(&format!("\"{f}\"")) || spec.contains(&format!("'{f}'")))
}

/// The variables `ctx` keeps that hold a value of a `z3` type, with their
/// types, sorted, given the sources of the cells run so far. [`Z3Watch`] asks
/// after each cell.
fn z3_variables(ctx: &evcxr::CommandContext, sources: &[&str]) -> Vec<(String, String)> {
    let names = z3_names(sources);
    let mut vars: Vec<(String, String)> = ctx
        .variables_and_types()
        .filter(|(_, ty)| holds_z3(ty, &names))
        .map(|(n, ty)| (n.to_string(), ty.to_string()))
        .collect();
    vars.sort();
    vars
}

/// The names the cells so far bring into scope from the `z3` crate, read from
/// their `use` items: `use puzzlebook::z3::ast::{Int, Real};` gives `Int` and
/// `Real`; a glob such as `use puzzlebook::z3::ast::*;` gives the crate's
/// usual type names from that module.
///
/// evcxr names a variable's type as the cell wrote it (`Int`, not
/// `z3::ast::Int`), so this is what tells which names are Z3's.
fn z3_names(sources: &[&str]) -> Vec<String> {
    const AST: [&str; 10] = [
        "Int", "Real", "Bool", "BV", "Float", "Array", "Set", "Seq", "Dynamic", "Datatype",
    ];
    const TOP: [&str; 7] = [
        "Solver", "Optimize", "Model", "FuncDecl", "Sort", "Params", "Context",
    ];
    let mut names = Vec::new();
    for source in sources {
        for stmt in source.split(';') {
            let code: Vec<&str> = stmt
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            let code = code.join(" ");
            let Some(path) = code.trim().strip_prefix("use ") else {
                continue;
            };
            let Some(at) = path.find("z3::").map(|i| i + "z3::".len()) else {
                continue;
            };
            let rest = path[at..].trim();
            // `ast::{Int, Real}` or `ast::Int` or `ast::*`: the module, then the items.
            let (module, items) = match rest.find('{') {
                Some(i) => (&rest[..i], rest[i + 1..].trim_end_matches('}')),
                None => match rest.rfind("::") {
                    Some(i) => (&rest[..i], &rest[i + 2..]),
                    None => ("", rest),
                },
            };
            for item in items.split(',').map(str::trim).filter(|i| !i.is_empty()) {
                if item == "*" {
                    let all: &[&str] = if module.contains("ast") { &AST } else { &TOP };
                    names.extend(all.iter().map(|n| n.to_string()));
                } else {
                    // `Int as Z3Int` brings in `Z3Int`; `ast::Int` brings in `Int`.
                    let name = item.split_whitespace().last().unwrap_or(item);
                    names.push(name.rsplit("::").next().unwrap_or(name).to_string());
                }
            }
        }
    }
    names.retain(|n| !Z3_PLAIN_DATA.contains(&n.as_str()));
    names.sort();
    names.dedup();
    names
}

/// Types of the `z3` crate that are plain data, with no Z3 context inside
/// (a check's answer, kinds of terms): safe to keep across cells.
const Z3_PLAIN_DATA: [&str; 7] = [
    "SatResult",
    "DeclKind",
    "SortKind",
    "AstKind",
    "GoalPrecision",
    "ParamKind",
    "Version",
];

/// Whether a type, as evcxr names it, is or contains one of the `z3` crate's:
/// a path through `z3::`, or one of `z3_names` (`Int`, `Vec<Real>`, …).
fn holds_z3(ty: &str, z3_names: &[String]) -> bool {
    let z3_path = ty.match_indices("z3::").any(|(i, _)| {
        let item = ty[i..]
            .split(|c: char| !c.is_alphanumeric() && c != '_' && c != ':')
            .next()
            .unwrap_or_default();
        !Z3_PLAIN_DATA.contains(&item.rsplit("::").next().unwrap_or_default())
    });
    z3_path
        || ty
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|word| z3_names.iter().any(|n| n == word))
}

/// What to tell a reader about variables that hold Z3 values.
fn z3_hint(vars: &[(String, String)]) -> String {
    let held: Vec<String> = vars
        .iter()
        .map(|(n, ty)| format!("`{n}` holds a Z3 value (of type `{ty}`)"))
        .collect();
    format!(
        "{}. It cannot be used in a later cell: this session's cells each link their own copy of Z3 (the crate was loaded without its `z3-dylib` feature, or the `z3` crate was loaded by itself). Load the crate as the notebooks do, `:dep puzzlebook = {{ path = \"..\", features = [\"z3-dylib\"] }}`, and use its `puzzlebook::z3`: then every cell shares one Z3.",
        held.join(", ")
    )
}

/// The `Z3_…` function a cell's build could not link (the linker's
/// "undefined reference to `Z3_mk_…'"), if that is why it failed.
fn missing_z3_symbol(message: &str) -> Option<&str> {
    let at = message.find("undefined reference to `Z3_")? + "undefined reference to `".len();
    let rest = &message[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// What to tell a reader whose cell calls a Z3 function older Z3s lack.
fn too_old(symbol: &str, z3: &str) -> String {
    let min = puzzlebook::libz3::MIN_SUPPORTED;
    format!(
        "`{symbol}` is not in Z3 {z3}, the Z3 this build links: the z3 crate calls Z3 \
         functions up to Z3 {min}, the oldest it supports, and some are missing from \
         older ones. Use another z3 function for the same thing, or build against a newer \
         Z3 (docs/z3-versions.md: scripts/with-z3-wheel)."
    )
}

/// evcxr links a cell as a shared library, so a z3 function missing from the
/// libz3 shows only when the cell is loaded, as "dlopen failed" (evcxr
/// drops the loader's reason). On a Z3 older than the z3 crate supports,
/// that is the likely reason, and the note says so.
fn unloadable_on_old_z3(message: &str, z3: &str) -> Option<String> {
    let min = puzzlebook::libz3::MIN_SUPPORTED;
    (message.contains("dlopen failed") && puzzlebook::libz3::older(z3, min)).then(|| {
        format!(
            "The cell could not be loaded. On Z3 {z3}, older than {min}, the oldest the \
             z3 crate supports, the likely reason is a z3 function that Z3 {z3} lacks \
             (such as `Real::from_rational`, which needs `Z3_mk_real_int64`). Use another \
             z3 function for the same thing, or build against a newer Z3 \
             (docs/z3-versions.md: scripts/with-z3-wheel)."
        )
    })
}

/// Whether a cell's failure is the evcxr process dying of a signal such as
/// SIGSEGV, as it does when a Z3 value from another cell's Z3 is used.
fn crashed(message: &str) -> bool {
    message.contains("SIGSEGV")
        || message.contains("signal: 11")
        || message.contains("Segmentation fault")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z3_types_are_recognised_and_named_in_the_hint() {
        let names = z3_names(&[
            "use puzzlebook::prelude::*;\nuse puzzlebook::z3::ast::{Ast, Bool, Int as I};",
            "// Z3's solver:\nuse puzzlebook::z3::Solver;\nlet x = 1;",
            "use puzzlebook::z3::ast::*;",
        ]);
        for n in ["Ast", "Bool", "I", "Solver", "Real", "Dynamic"] {
            assert!(names.contains(&n.to_string()), "{n} in {names:?}");
        }
        assert_eq!(
            z3_names(&["use puzzlebook::z3::ast::Int as Z3Int;"]),
            ["Z3Int"]
        );
        assert_eq!(
            z3_names(&["use puzzlebook::z3::{ast::Int, Solver};"]),
            ["Int", "Solver"]
        );
        assert!(holds_z3("z3::ast::Int", &[]));
        assert!(holds_z3("Vec<Real>", &names));
        assert!(holds_z3("(Solver, Vec<Real>, Vec<I>)", &names));
        assert!(!holds_z3("DataFrame", &names));
        assert!(!holds_z3("Vec<i64>", &names));
        // A check's answer is plain data, however it is named.
        let names = z3_names(&["use puzzlebook::z3::{SatResult, Solver};"]);
        assert_eq!(names, ["Solver"]);
        assert!(!holds_z3("(SatResult, Option<Vec<[i64; 3]>>)", &names));
        assert!(!holds_z3("z3::SatResult", &names));
        assert!(holds_z3("(z3::SatResult, z3::Solver)", &names));
        assert!(z3_names(&["use puzzlebook::prelude::*;"]).is_empty());
        let hint = z3_hint(&[("x".into(), "z3::ast::Int".into())]);
        assert!(
            hint.starts_with(
                "`x` holds a Z3 value (of type `z3::ast::Int`). It cannot be used in a later cell"
            ),
            "{hint}"
        );
        assert!(hint.contains("features = [\"z3-dylib\"]"), "{hint}");
        assert!(crashed(
            "Subprocess terminated with status: signal: 11 (SIGSEGV)"
        ));
        assert!(!crashed("error[E0308]: mismatched types"));
    }

    #[test]
    fn a_crash_is_explained_only_while_z3_values_are_held() {
        let mut watch = Z3Watch::default();
        let segv = "Subprocess terminated with status: signal: 11 (SIGSEGV)";
        assert_eq!(watch.failed(segv), None);
        watch.held = vec![("x".into(), "Int".into())];
        let note = watch.failed(segv).expect("a note");
        assert!(
            note.starts_with("The cell crashed after an earlier cell left Z3 values in variables: `x` holds a Z3 value (of type `Int`)"),
            "{note}"
        );
        assert_eq!(watch.failed("error[E0308]: mismatched types"), None);
        // With one shared Z3 a crash is not the values' doing ...
        let mut shared = Z3Watch::shared();
        shared.held = vec![("x".into(), "Int".into())];
        assert_eq!(shared.failed(segv), None);
        // ... unless the z3 crate is loaded a second time, by itself.
        shared.own_z3 = true;
        assert!(shared.failed(segv).is_some());
    }

    #[test]
    fn the_dep_commands_tell_whether_cells_share_one_z3() {
        let deps: Vec<_> = dep_commands(
            ":dep puzzlebook = { path = \"..\", features = [\"z3-dylib\"] }\n  :dep z3 = \"0.22\"\nlet a = 1;",
        )
        .collect();
        assert_eq!(
            deps,
            [
                ("puzzlebook", "{ path = \"..\", features = [\"z3-dylib\"] }"),
                ("z3", "\"0.22\"")
            ]
        );
        assert!(shares_z3(deps[0].1));
        assert!(shares_z3(
            "{ path = \"..\", features = [\"polars-dylib\"] }"
        ));
        assert!(!shares_z3("{ path = \"..\" }"));
        assert!(!shares_z3("{ path = \"..\", features = [\"polars\"] }"));
        assert!(shares_z3("{ path = '..', features = ['z3-dylib'] }"));
        assert!(Z3Watch::default().at_risk());
        assert!(!Z3Watch::shared().at_risk());
        // The kernel's init: as `kernel install` writes it, and as an older
        // kernelspec's said it.
        let init = ":opt 0\n:dep puzzlebook = { path = \"/c\", features = [\"z3-dylib\"] }\n";
        assert!(!Z3Watch::after_init(init).at_risk());
        assert!(Z3Watch::after_init(":dep puzzlebook = { path = \"/c\" }\n").at_risk());
    }

    #[test]
    fn held_values_are_named_when_they_change_or_become_at_risk() {
        let x = vec![("x".to_string(), "Int".to_string())];
        // Shared: nothing to say, whatever is held.
        let mut watch = Z3Watch::shared();
        assert_eq!(watch.note(x.clone(), false), None);
        // The crate loaded again without the shared Z3: the same `x` is now at
        // risk, and said at once ...
        watch.read_deps(":dep puzzlebook = { path = \"..\" }");
        assert!(watch.note(x.clone(), false).is_some());
        // ... and not again while nothing changes.
        assert_eq!(watch.note(x.clone(), true), None);
        let y = vec![("y".to_string(), "Real".to_string())];
        assert!(watch.note(y, true).is_some());
        assert_eq!(watch.note(Vec::new(), true), None);
    }

    #[test]
    fn a_z3_function_missing_from_the_linked_z3_is_named_in_words() {
        let linker = "error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: \
            /tmp/x/libcode_3.so: undefined reference to `Z3_mk_real_int64'\n\
            collect2: error: ld returned 1 exit status";
        assert_eq!(missing_z3_symbol(linker), Some("Z3_mk_real_int64"));
        assert_eq!(missing_z3_symbol("undefined reference to `foo'"), None);
        let note = Z3Watch::default().failed(linker).expect("a note");
        assert!(
            note.starts_with("`Z3_mk_real_int64` is not in Z3 "),
            "{note}"
        );
        assert!(note.contains("scripts/with-z3-wheel"), "{note}");
        let dlopen = "While processing instruction `Ok(\"LOAD_AND_RUN /x/libcode_4.so \
            run_user_code_3\")`, got error: Message(\"dlopen failed\")";
        let note = unloadable_on_old_z3(dlopen, "4.8.12").expect("a note");
        assert!(note.starts_with("The cell could not be loaded. On Z3 4.8.12, older than"));
        assert_eq!(unloadable_on_old_z3(dlopen, "5.4.1"), None);
        assert_eq!(unloadable_on_old_z3("mismatched types", "4.8.12"), None);
    }
}
