//! The session's input history, for `history_request`: every cell the kernel
//! was asked to run, by execution count, answered as IPython's kernel answers
//! (`tail`, `range` and `search` with a glob pattern). One session, numbered
//! [`SESSION`], kept in memory: a new kernel starts with an empty history.
//! Outputs are not kept (IPython keeps none by default either), so an entry
//! asked for with its output carries `null` there.

use serde_json::Value;

/// The number of the kernel's one session in a reply.
pub const SESSION: i64 = 1;

/// How many entries `tail` gives when the request names no `n` (IPython's).
const DEFAULT_TAIL: usize = 10;

/// Every cell the kernel ran, in order: its execution count and code.
#[derive(Debug, Clone, Default)]
pub struct History {
    cells: Vec<(u32, String)>,
}

impl History {
    /// Notes that cell number `count` ran `code` (without its trailing
    /// blank lines and spaces, as IPython keeps it).
    pub fn record(&mut self, count: u32, code: &str) {
        self.cells.push((count, code.trim_end().to_string()));
    }

    /// The `history_reply` content for a request's `content`.
    pub fn reply(&self, content: &Value) -> Value {
        let n = content["n"].as_u64().map(|n| n as usize);
        let chosen: Vec<&(u32, String)> = match content["hist_access_type"].as_str() {
            Some("tail") => last(self.cells.iter().collect(), n.unwrap_or(DEFAULT_TAIL)),
            Some("range") => self.range(content),
            Some("search") => self.search(content, n),
            other => {
                return super::outgoing::error_content(
                    "ValueError",
                    &format!("hist_access_type {other:?} is none of tail, range and search"),
                )
            }
        };
        let output = content["output"].as_bool() == Some(true);
        let history: Vec<Value> = chosen
            .into_iter()
            .map(|(count, code)| {
                let input = if output {
                    array![code, Value::Null]
                } else {
                    Value::from(code.as_str())
                };
                array![SESSION, count, input]
            })
            .collect();
        object! {"status" => "ok", "history" => history}
    }

    /// Lines `start` (default 1) up to `stop` (excluded; to the end when
    /// absent or 0) of the session asked for: this one is `SESSION`, or 0 as
    /// IPython numbers the current session; no other session is kept.
    fn range(&self, content: &Value) -> Vec<&(u32, String)> {
        let session = content["session"].as_i64().unwrap_or(0);
        if session != 0 && session != SESSION {
            return Vec::new();
        }
        let start = content["start"].as_u64().unwrap_or(1);
        let stop = content["stop"].as_u64().filter(|&s| s > 0);
        self.cells
            .iter()
            .filter(|(count, _)| {
                let count = u64::from(*count);
                count >= start && stop.is_none_or(|stop| count < stop)
            })
            .collect()
    }

    /// The cells whose whole code matches the glob `pattern` (default `*`),
    /// the last `n` of them; with `unique`, each code once, at its latest.
    fn search(&self, content: &Value, n: Option<usize>) -> Vec<&(u32, String)> {
        let pattern = content["pattern"].as_str().unwrap_or("*");
        let mut found: Vec<&(u32, String)> = self
            .cells
            .iter()
            .filter(|(_, code)| glob(pattern, code))
            .collect();
        if content["unique"].as_bool() == Some(true) {
            let mut seen = std::collections::HashSet::new();
            found.reverse();
            found.retain(|(_, code)| seen.insert(code.as_str()));
            found.reverse();
        }
        match n {
            Some(n) => last(found, n),
            None => found,
        }
    }
}

fn last<T>(mut items: Vec<T>, n: usize) -> Vec<T> {
    let from = items.len().saturating_sub(n);
    items.split_off(from)
}

/// One step of a glob pattern.
enum Step {
    /// `*`: any run of characters.
    Run,
    /// `?`: any one character.
    One,
    /// `[...]`: one character of a class; `[^...]` one outside it.
    Class { members: Vec<char>, negated: bool },
    /// Any other character: itself.
    Char(char),
}

impl Step {
    /// Whether this step, other than `*`, takes the character `c`.
    fn takes(&self, c: char) -> bool {
        match self {
            Step::Run | Step::One => true,
            Step::Char(p) => *p == c,
            Step::Class { members, negated } => {
                let mut hit = false;
                let mut i = 0;
                while i < members.len() {
                    if i + 2 < members.len() && members[i + 1] == '-' {
                        hit |= members[i] <= c && c <= members[i + 2];
                        i += 3;
                    } else {
                        hit |= members[i] == c;
                        i += 1;
                    }
                }
                hit != *negated
            }
        }
    }
}

/// The steps of a glob pattern; an unclosed `[` is itself.
fn steps(pattern: &str) -> Vec<Step> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => out.push(Step::Run),
            '?' => out.push(Step::One),
            '[' => {
                let negated = chars.get(i + 1) == Some(&'^');
                let body = i + 1 + usize::from(negated);
                // A `]` first in the class is a member, as in SQLite.
                match chars.iter().skip(body + 1).position(|&c| c == ']') {
                    Some(k) => {
                        let close = body + 1 + k;
                        out.push(Step::Class {
                            members: chars[body..close].to_vec(),
                            negated,
                        });
                        i = close;
                    }
                    None => out.push(Step::Char('[')),
                }
            }
            c => out.push(Step::Char(c)),
        }
        i += 1;
    }
    out
}

/// Whether `text` matches `pattern` whole, as SQLite's GLOB (which IPython's
/// search uses) matches: `*` any run, `?` one character, `[...]` one of a
/// class (`[^...]` none of it, `a-z` a range); case matters. Time is the
/// pattern's length times the text's, whatever the pattern.
fn glob(pattern: &str, text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    // matched[j]: the steps so far match the first j characters.
    let mut matched = vec![false; text.len() + 1];
    matched[0] = true;
    for step in steps(pattern) {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            next[j] = match step {
                Step::Run => matched[j] || (j > 0 && next[j - 1]),
                _ => j > 0 && matched[j - 1] && step.takes(text[j - 1]),
            };
        }
        matched = next;
    }
    matched[text.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn session() -> History {
        let mut h = History::default();
        for (count, code) in [
            (1, "let a = 1;"),
            (2, "6 * 7"),
            (3, "a + 1"),
            (4, "6 * 7"),
            (5, "println!(\"hi\");\n\n"),
        ] {
            h.record(count, code);
        }
        h
    }

    fn entries(reply: &Value) -> Vec<(i64, u64, String)> {
        assert_eq!(reply["status"], "ok", "{reply}");
        reply["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e[0].as_i64().unwrap(),
                    e[1].as_u64().unwrap(),
                    e[2].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    fn codes(reply: &Value) -> Vec<String> {
        entries(reply).into_iter().map(|(_, _, c)| c).collect()
    }

    #[test]
    fn tail_gives_the_last_n_in_order() {
        let h = session();
        let r = h.reply(&json!({"hist_access_type": "tail", "n": 2, "output": false, "raw": true}));
        assert_eq!(
            entries(&r),
            [
                (SESSION, 4, "6 * 7".to_string()),
                (SESSION, 5, "println!(\"hi\");".to_string())
            ]
        );
        let all = h.reply(&json!({"hist_access_type": "tail", "n": 100, "output": false}));
        assert_eq!(codes(&all).len(), 5);
    }

    #[test]
    fn with_output_each_entry_is_input_and_output() {
        let r = session().reply(&json!({"hist_access_type": "tail", "n": 1, "output": true}));
        assert_eq!(
            r["history"],
            json!([[SESSION, 5, ["println!(\"hi\");", null]]])
        );
    }

    #[test]
    fn range_is_start_to_stop_excluded_in_this_session_only() {
        let h = session();
        let r = h.reply(&json!({"hist_access_type": "range", "session": SESSION, "start": 2, "stop": 4, "output": false}));
        assert_eq!(codes(&r), ["6 * 7", "a + 1"]);
        let current = h.reply(
            &json!({"hist_access_type": "range", "session": 0, "start": 5, "output": false}),
        );
        assert_eq!(codes(&current), ["println!(\"hi\");"]);
        let other = h.reply(&json!({"hist_access_type": "range", "session": 7, "start": 1, "stop": 3, "output": false}));
        assert_eq!(codes(&other), Vec::<String>::new());
    }

    #[test]
    fn search_matches_whole_code_by_glob_and_unique_keeps_the_latest() {
        let h = session();
        let search = |extra: Value| {
            let mut req = json!({"hist_access_type": "search", "output": false});
            for (k, v) in extra.as_object().unwrap() {
                req[k] = v.clone();
            }
            entries(&h.reply(&req))
        };
        let sixes = search(json!({"pattern": "6 *"}));
        assert_eq!(
            sixes.iter().map(|e| e.1).collect::<Vec<_>>(),
            [2, 4],
            "{sixes:?}"
        );
        assert_eq!(
            search(json!({"pattern": "6 *", "unique": true}))
                .iter()
                .map(|e| e.1)
                .collect::<Vec<_>>(),
            [4]
        );
        assert_eq!(search(json!({"pattern": "*", "n": 2})).len(), 2);
        assert_eq!(search(json!({"pattern": "?"})).len(), 0);
        assert_eq!(
            search(json!({"pattern": "[a-b] + ?"}))
                .iter()
                .map(|e| e.1)
                .collect::<Vec<_>>(),
            [3]
        );
        // The whole code must match: `a` alone matches nothing.
        assert_eq!(search(json!({"pattern": "a"})).len(), 0);
    }

    #[test]
    fn glob_follows_sqlite() {
        let m = glob;
        assert!(m("*", ""));
        assert!(m("a*c", "abbbc"));
        assert!(!m("a*c", "abbbd"));
        assert!(m("a?c", "abc"));
        assert!(!m("A?c", "abc"));
        assert!(m("[^x]b", "ab"));
        assert!(!m("[^a]b", "ab"));
        assert!(m("[]]", "]"));
        assert!(m("[", "["));
        // Many runs cost no more than one pass each.
        let long = "a".repeat(5000);
        assert!(!m(&"*a".repeat(200).replace("*a*a", "*a*b"), &long));
    }

    #[test]
    fn an_unknown_access_type_is_an_error_reply() {
        let r = session().reply(&json!({"hist_access_type": "everything", "output": false}));
        assert_eq!(r["status"], "error");
        assert!(r["ename"].is_string() && r["evalue"].is_string() && r["traceback"].is_array());
    }
}
