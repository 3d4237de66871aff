//! The files between the three parties of a grading: the answer a student's
//! process hands in, the reference a run of the teacher's notebook writes,
//! and how the grader reads both (JSON, size-capped, unknown fields refused).
//!
//! One file per exercise, named after it: `<dir>/<id>.json`. An exercise
//! has parts, each labelled (`[1, 5, 5, 5]` for one input of several; `""`
//! when it has one), and each part is constraints over the interface, a
//! number, or a set of tuples.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::{Exercise, Near, Show};

/// The variable that makes [`super::hand_in`] write the student's answers,
/// as files in the folder it names.
pub const HAND_IN_VAR: &str = "PUZZLEBOOK_HAND_IN";

/// The variable that makes [`super::Answer::check`] write the reference, as
/// files in the folder it names.
pub const REFERENCE_VAR: &str = "PUZZLEBOOK_REFERENCE";

/// The largest file [`read`] takes: 4 MiB, room for a few parts of
/// [`crate::smtlib::MAX_BYTES`] each.
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// The most parts a file may have.
pub const MAX_PARTS: usize = 64;

/// The most elements a handed set may have, and numbers in an element.
pub const MAX_ELEMENTS: usize = 100_000;

/// An exercise's interface, as the reference run writes it: what the
/// grader needs of [`Exercise`] to compare and to show a witness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interface {
    /// The exercise's name, `02-1`.
    pub id: String,
    /// The interface variables, integers, in order.
    pub variables: Vec<String>,
    /// How a value is shown: `None` for `name=value`, else the letters
    /// [`Exercise::shown_as_letters`] names.
    pub letters: Option<String>,
    /// Up to this many solutions a side is listed.
    pub limit: usize,
    /// Z3's time limit for each query, in milliseconds.
    pub timeout_ms: u32,
    /// The values witnesses are chosen near ([`Exercise::near`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub near: Option<Near>,
}

impl Interface {
    /// `exercise`'s interface, or why it cannot be written: its values are
    /// shown by a function, which no file can hold.
    pub fn of(exercise: &Exercise) -> Result<Interface, HandedError> {
        let letters = match &exercise.show {
            Show::Plain => None,
            Show::Letters(l) => Some(l.clone()),
            Show::By(_) => {
                return Err(HandedError::ShownByFunction {
                    exercise: exercise.id.clone(),
                })
            }
        };
        Ok(Interface {
            id: exercise.id.clone(),
            variables: exercise.variables.clone(),
            letters,
            limit: exercise.limit,
            timeout_ms: exercise.timeout_ms,
            near: exercise.near.clone(),
        })
    }

    /// The [`Exercise`] it describes.
    pub fn exercise(&self) -> Exercise {
        let mut e = Exercise::new(self.id.clone(), self.variables.clone())
            .listing_up_to(self.limit)
            .timeout_ms(self.timeout_ms);
        // One value a variable, as [`Exercise::near`] requires of the
        // teacher; a file that says otherwise brings no witness near.
        e.near = self
            .near
            .clone()
            .filter(|n| n.values.len() == self.variables.len());
        match &self.letters {
            Some(l) => e.shown_as_letters(l),
            None => e,
        }
    }
}

/// One labelled part of an answer or a reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part<T> {
    /// What the part is for (an input, shown in feedback); `""` alone.
    pub label: String,
    /// The part itself.
    pub value: T,
}

/// What a student's process hands in for one part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Handed {
    /// Constraints over the interface variables, as [`crate::smtlib::write`]
    /// prints them.
    Constraints {
        /// The SMT-LIB text.
        smtlib: String,
    },
    /// A number.
    Number {
        /// It.
        value: i64,
    },
    /// A set of tuples of numbers.
    Set {
        /// Its elements.
        elements: Vec<Vec<i64>>,
    },
}

impl Handed {
    /// What it is, for feedback: "constraints", "a number", "a set".
    pub fn what(&self) -> &'static str {
        match self {
            Handed::Constraints { .. } => "constraints",
            Handed::Number { .. } => "a number",
            Handed::Set { .. } => "a set",
        }
    }
}

/// A student's answer to one exercise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandedIn {
    /// The exercise's name.
    pub exercise: String,
    /// Its parts, in the order handed in.
    pub parts: Vec<Part<Handed>>,
}

/// A reference rule as text: its name and its constraint as SMT-LIB.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleText {
    /// The rule's name, as feedback says it.
    pub name: String,
    /// Its constraint, as [`crate::smtlib::write`] prints it.
    pub smtlib: String,
    /// Its notes ([`crate::grade::Rule::noting`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<NoteText>,
}

/// A rule's note as text: the statement and its constraint as SMT-LIB.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteText {
    /// The statement, as feedback says it.
    pub text: String,
    /// Its constraint, as [`crate::smtlib::write`] prints it.
    pub smtlib: String,
}

/// What the reference expects of one part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Expected {
    /// Constraints meaning what these rules mean together.
    Rules {
        /// The rules.
        rules: Vec<RuleText>,
    },
    /// This number.
    Number {
        /// It.
        value: i64,
        /// Why it is the number, as a sentence.
        why: String,
    },
    /// This set.
    Set {
        /// Its elements.
        elements: Vec<Vec<i64>>,
        /// When the set is a choice among candidates: each candidate, with
        /// why the reference keeps or removes it, in the puzzle's words.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reasons: Vec<(Vec<i64>, String)>,
    },
}

/// A typical wrong answer to one part, written down by the teacher, and
/// the hint a student whose answer means the same reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mistake {
    /// The hint, in the puzzle's words ("you counted question 11 itself").
    pub hint: String,
    /// The wrong answer, as a student's process would hand it in.
    pub answer: Handed,
}

/// The reference of one exercise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// The exercise's interface.
    pub exercise: Interface,
    /// Its parts, in the order checked.
    pub parts: Vec<Part<Expected>>,
    /// Its typical mistakes, each for a part, in the order written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mistakes: Vec<Part<Mistake>>,
    /// How its points are shared among its parts.
    #[serde(default, skip_serializing_if = "Scoring::is_per_part")]
    pub scoring: Scoring,
}

/// How an exercise's points are shared among its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// Each part right gets its share: an exercise of four parts, three of
    /// them right, gets three quarters of its points.
    #[default]
    PerPart,
    /// All the points when every part is right, else none: for parts that
    /// are samples of one function, where a guess right on some would
    /// otherwise earn points ([`super::Answer::all_or_nothing`]).
    AllOrNothing,
}

impl Scoring {
    fn is_per_part(&self) -> bool {
        *self == Scoring::PerPart
    }
}

/// Why a file was not written or not read.
#[derive(Debug, Error)]
pub enum HandedError {
    /// An exercise name that cannot name a file.
    #[error("the exercise name {0:?} cannot name a file: use ASCII letters, digits, `-` and `_`, at most 64")]
    BadName(String),
    /// Values shown by a function.
    #[error("exercise {exercise} shows its values by a function, which cannot be handed to the grader; use `shown_as_letters`")]
    ShownByFunction {
        /// The exercise.
        exercise: String,
    },
    /// A file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// Could not be read, for the reason given.
    #[error("{0}")]
    Unreadable(String),
    /// Larger than [`MAX_FILE_BYTES`].
    #[error("it is larger than the {MAX_FILE_BYTES} bytes an answer may be")]
    TooLarge,
    /// Not the format.
    #[error("it is not an answer file: {0}")]
    Format(String),
    /// Too many parts, elements or numbers.
    #[error("it has {what}, more than the grader takes")]
    TooMany {
        /// Of what.
        what: String,
    },
    /// For another exercise than the file's name says.
    #[error("it is for exercise {found}, not {expected}")]
    OtherExercise {
        /// The file's name.
        expected: String,
        /// What the file says.
        found: String,
    },
}

/// Whether `id` can name a file: 1 to 64 ASCII letters, digits, `-`, `_`.
pub fn is_file_name(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The file of exercise `id` in `dir`.
pub fn file_of(dir: &Path, id: &str) -> Result<PathBuf, HandedError> {
    if !is_file_name(id) {
        return Err(HandedError::BadName(id.to_string()));
    }
    Ok(dir.join(format!("{id}.json")))
}

/// Writes `value` as exercise `id`'s file in `dir`, whole or not at all
/// (a file beside it, then renamed over it).
pub fn write<T: Serialize>(dir: &Path, id: &str, value: &T) -> Result<(), HandedError> {
    let path = file_of(dir, id)?;
    let io = |source| HandedError::Io {
        path: path.clone(),
        source,
    };
    let text = serde_json::to_vec(value).map_err(|e| HandedError::Format(e.to_string()))?;
    let partial = dir.join(format!(".{id}.json.partial"));
    std::fs::write(&partial, text).map_err(io)?;
    std::fs::rename(&partial, &path).map_err(io)
}

/// Reads exercise `id`'s file in `dir`: `Ok(None)` when there is none. Reads
/// at most [`MAX_FILE_BYTES`], follows no link, and takes nothing but the
/// format.
pub fn read<T: for<'de> Deserialize<'de>>(dir: &Path, id: &str) -> Result<Option<T>, HandedError> {
    match read_bytes(dir, id)? {
        Some(bytes) => from_bytes(&bytes).map(Some),
        None => Ok(None),
    }
}

/// The bytes of exercise `id`'s file in `dir`, read as [`read`] reads them,
/// to be taken apart by [`from_bytes`] elsewhere.
pub fn read_bytes(dir: &Path, id: &str) -> Result<Option<Vec<u8>>, HandedError> {
    use std::io::Read;
    let path = file_of(dir, id)?;
    let io = |source| HandedError::Io {
        path: path.clone(),
        source,
    };
    let file = match open_no_follow(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    if !file.metadata().map_err(io)?.is_file() {
        return Err(HandedError::Format("it is not a regular file".into()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(HandedError::TooLarge);
    }
    Ok(Some(bytes))
}

/// The value `bytes` hold, as [`read`] takes it.
pub fn from_bytes<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, HandedError> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(HandedError::TooLarge);
    }
    serde_json::from_slice(bytes).map_err(|e| HandedError::Format(e.to_string()))
}

#[cfg(target_os = "linux")]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // Linux's O_NOFOLLOW and O_NONBLOCK (a FIFO planted in its place opens
    // at once, and is then refused as not a regular file).
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(0o400_000 | 0o4_000)
        .open(path)
}

#[cfg(not(target_os = "linux"))]
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::Error::other("it is a link"));
    }
    std::fs::File::open(path)
}

impl HandedIn {
    /// Checks what serde does not: the exercise's name, and the numbers of
    /// parts and elements.
    pub fn checked(self, id: &str) -> Result<HandedIn, HandedError> {
        if self.exercise != id {
            return Err(HandedError::OtherExercise {
                expected: id.to_string(),
                found: self.exercise.chars().take(64).collect(),
            });
        }
        if self.parts.len() > MAX_PARTS {
            return Err(HandedError::TooMany {
                what: format!("{} parts", self.parts.len()),
            });
        }
        for part in &self.parts {
            if let Handed::Set { elements } = &part.value {
                let numbers: usize = elements.iter().map(Vec::len).sum();
                if elements.len() > MAX_ELEMENTS || numbers > MAX_ELEMENTS * 8 {
                    return Err(HandedError::TooMany {
                        what: format!("a set of {} elements", elements.len()),
                    });
                }
            }
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_cannot_name_a_file_are_refused() {
        for bad in ["", "../x", "a/b", "a.b", "é", &"x".repeat(65)] {
            assert!(file_of(Path::new("/d"), bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            file_of(Path::new("/d"), "02-1_b").unwrap(),
            Path::new("/d/02-1_b.json")
        );
    }

    #[test]
    fn a_file_round_trips_and_unknown_fields_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let answer = HandedIn {
            exercise: "02-2".into(),
            parts: vec![Part {
                label: String::new(),
                value: Handed::Number { value: 2 },
            }],
        };
        write(dir.path(), "02-2", &answer).unwrap();
        let back: HandedIn = read(dir.path(), "02-2").unwrap().unwrap();
        assert_eq!(back, answer);
        assert!(read::<HandedIn>(dir.path(), "02-3").unwrap().is_none());
        let extra = br#"{"exercise":"02-2","parts":[],"points":2}"#;
        assert!(matches!(
            from_bytes::<HandedIn>(extra),
            Err(HandedError::Format(_))
        ));
        let kind =
            br#"{"exercise":"02-2","parts":[{"label":"","value":{"kind":"verdict","value":1}}]}"#;
        assert!(matches!(
            from_bytes::<HandedIn>(kind),
            Err(HandedError::Format(_))
        ));
        // A student hands in elements only: the reasons a feedback gives are
        // the reference's.
        let reasons = br#"{"exercise":"04-1","parts":[{"label":"","value":{"kind":"set","elements":[[2,2]],"reasons":[[[2,2],"kept"]]}}]}"#;
        assert!(matches!(
            from_bytes::<HandedIn>(reasons),
            Err(HandedError::Format(_))
        ));
    }

    #[test]
    fn a_set_s_reasons_round_trip_and_an_older_set_has_none() {
        let with = Expected::Set {
            elements: vec![vec![1, 4]],
            reasons: vec![
                (vec![1, 4], "(2, 3) also sums to 5".into()),
                (vec![3, 3], "no other pair sums to 6".into()),
            ],
        };
        let text = serde_json::to_vec(&with).unwrap();
        assert_eq!(from_bytes::<Expected>(&text).unwrap(), with);
        let older = br#"{"kind":"set","elements":[[1,4]]}"#;
        assert_eq!(
            from_bytes::<Expected>(older).unwrap(),
            Expected::Set {
                elements: vec![vec![1, 4]],
                reasons: Vec::new()
            }
        );
    }

    #[test]
    fn a_file_too_large_a_link_or_a_fifo_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let big = vec![b' '; MAX_FILE_BYTES as usize + 1];
        std::fs::write(dir.path().join("a.json"), &big).unwrap();
        assert!(matches!(
            read::<HandedIn>(dir.path(), "a"),
            Err(HandedError::TooLarge)
        ));
        #[cfg(unix)]
        {
            std::fs::write(dir.path().join("target"), b"{}").unwrap();
            std::os::unix::fs::symlink(dir.path().join("target"), dir.path().join("b.json"))
                .unwrap();
            assert!(read::<HandedIn>(dir.path(), "b").is_err());
            let fifo = dir.path().join("c.json");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert!(read::<HandedIn>(dir.path(), "c").is_err());
            }
        }
    }

    #[test]
    fn what_serde_does_not_check_is_checked() {
        let many = HandedIn {
            exercise: "x".into(),
            parts: (0..=MAX_PARTS)
                .map(|i| Part {
                    label: i.to_string(),
                    value: Handed::Number { value: 0 },
                })
                .collect(),
        };
        assert!(matches!(
            many.checked("x"),
            Err(HandedError::TooMany { .. })
        ));
        let other = HandedIn {
            exercise: "y".into(),
            parts: Vec::new(),
        };
        assert!(matches!(
            other.checked("x"),
            Err(HandedError::OtherExercise { .. })
        ));
    }

    #[test]
    fn an_interface_round_trips_and_a_function_is_refused() {
        let e = Exercise::new("01-1", ["Q1", "Q2"])
            .shown_as_letters("ABCDE")
            .listing_up_to(0)
            .timeout_ms(5);
        let i = Interface::of(&e).unwrap();
        let back = i.exercise();
        assert!(matches!(&back.show, Show::Letters(l) if l == "ABCDE"));
        assert_eq!((back.limit, back.timeout_ms), (0, 5));
        assert_eq!(back.variables, ["Q1", "Q2"]);
        assert_eq!(back.near, None);
        assert!(Interface::of(&e.clone().shown_as(|n, _| n.to_string())).is_err());
        // The values witnesses are chosen near travel with it, through JSON.
        let near = e.near("the sheet", [4, 1]);
        let json = serde_json::to_string(&Interface::of(&near).unwrap()).unwrap();
        let back: Interface = serde_json::from_str(&json).unwrap();
        assert_eq!(back.exercise().near, near.near);
        // Without them, the field is left out; a file whose values are not
        // one a variable brings nothing near.
        assert!(!serde_json::to_string(&i).unwrap().contains("near"));
        let wrong = json.replace("[4,1]", "[4,1,2]");
        assert_ne!(wrong, json);
        let wrong: Interface = serde_json::from_str(&wrong).unwrap();
        assert_eq!(wrong.exercise().near, None);
    }
}
