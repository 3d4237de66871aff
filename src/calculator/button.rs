//! The game's buttons: parsing and printing their labels, and what each one does.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A button of Calculator: The Game.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Button {
    /// `+N`
    Add(i64),
    /// `-N`
    Sub(i64),
    /// `xN`
    Mul(i64),
    /// `/N`, only when the division is exact.
    Div(i64),
    /// `N`: append the digits (the sign is kept: -12 then 4 gives -124).
    Append(String),
    /// `<<`: delete the last digit (the sign is kept: -2 gives 0).
    Delete,
    /// `+/-`: change the sign.
    Negate,
    /// `Reverse`: reverse the digits (the sign is kept).
    Reverse,
    /// `SUM`: the sum of the digits (the sign is kept).
    Sum,
    /// `<Shift`: rotate the digits left (1234 gives 2341).
    ShiftLeft,
    /// `Shift>`: rotate the digits right (1234 gives 4123).
    ShiftRight,
    /// `Mirror`: append the digits reversed (12 gives 1221).
    Mirror,
    /// `a=>b`: replace every occurrence of the digits `a` with `b`.
    Replace(String, String),
    /// `x^2`
    Square,
    /// `x^3`
    Cube,
    /// `Inv10`: each digit d becomes (10 - d) mod 10.
    Inv10,
}

/// A label that is not a button.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{label:?} is not a button; the accepted forms are {}", ACCEPTED)]
pub struct ButtonError {
    /// The label as given.
    pub label: String,
}

/// The accepted label forms, for error messages and `--help`.
pub const ACCEPTED: &str = "+N, -N, xN (or *N), /N, N (append digits), <<, +/-, Reverse, SUM, \
<Shift, Shift>, Mirror, a=>b (replace digits), x^2, x^3, Inv10";

fn digits(s: &str) -> Option<String> {
    (!s.is_empty() && s.chars().all(|c| c.is_ascii_digit())).then(|| s.to_string())
}

impl FromStr for Button {
    type Err = ButtonError;

    /// Parses a label: `x5`, `-6`, `4`, `<<`, `+/-`, `Reverse`, `SUM`, `<Shift`,
    /// `Shift>`, `Mirror`, `1=>2`, `x^2`, `x^3`, `Inv10`.
    fn from_str(label: &str) -> Result<Self, Self::Err> {
        let s = label.trim();
        let err = || ButtonError {
            label: label.to_string(),
        };
        let number = |rest: &str| -> Result<i64, ButtonError> {
            digits(rest)
                .and_then(|d| d.parse::<i64>().ok())
                .ok_or_else(err)
        };
        let lower = s.to_ascii_lowercase();
        let b = match lower.as_str() {
            "<<" => Button::Delete,
            "+/-" => Button::Negate,
            "reverse" => Button::Reverse,
            "sum" => Button::Sum,
            "<shift" => Button::ShiftLeft,
            "shift>" => Button::ShiftRight,
            "mirror" => Button::Mirror,
            "x^2" => Button::Square,
            "x^3" => Button::Cube,
            "inv10" => Button::Inv10,
            _ => {
                if let Some((a, b)) = s.split_once("=>") {
                    Button::Replace(digits(a).ok_or_else(err)?, digits(b).ok_or_else(err)?)
                } else if let Some(rest) = s.strip_prefix('+') {
                    Button::Add(number(rest)?)
                } else if let Some(rest) = s.strip_prefix('-') {
                    Button::Sub(number(rest)?)
                } else if let Some(rest) = lower.strip_prefix('x').or(s.strip_prefix('*')) {
                    Button::Mul(number(rest)?)
                } else if let Some(rest) = s.strip_prefix('/') {
                    let n = number(rest)?;
                    if n == 0 {
                        return Err(err());
                    }
                    Button::Div(n)
                } else if let Some(d) = digits(s) {
                    Button::Append(d)
                } else {
                    return Err(err());
                }
            }
        };
        Ok(b)
    }
}

impl fmt::Display for Button {
    /// The game's label: `x5`, `-6`, `4`, `<<`, …
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Button::Add(n) => write!(f, "+{n}"),
            Button::Sub(n) => write!(f, "-{n}"),
            Button::Mul(n) => write!(f, "x{n}"),
            Button::Div(n) => write!(f, "/{n}"),
            Button::Append(d) => write!(f, "{d}"),
            Button::Delete => f.write_str("<<"),
            Button::Negate => f.write_str("+/-"),
            Button::Reverse => f.write_str("Reverse"),
            Button::Sum => f.write_str("SUM"),
            Button::ShiftLeft => f.write_str("<Shift"),
            Button::ShiftRight => f.write_str("Shift>"),
            Button::Mirror => f.write_str("Mirror"),
            Button::Replace(a, b) => write!(f, "{a}=>{b}"),
            Button::Square => f.write_str("x^2"),
            Button::Cube => f.write_str("x^3"),
            Button::Inv10 => f.write_str("Inv10"),
        }
    }
}

/// Rebuilds a value from a sign and a string of digits; `None` on overflow.
fn signed(negative: bool, digits: &str) -> Option<i64> {
    let d = if digits.is_empty() { "0" } else { digits };
    let magnitude: i64 = d.parse().ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

impl Button {
    /// Parses a comma-separated list of labels, e.g. `"x5,-6,4"`.
    pub fn parse_list(labels: &str) -> Result<Vec<Button>, ButtonError> {
        labels
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(str::parse)
            .collect()
    }

    /// The name the write-up's SMT-LIB model gives this button (`Mul5`, `Sub6`,
    /// `Append4`), or `None` when the Z3 step model cannot express it.
    pub fn smt_name(&self) -> Option<String> {
        Some(match self {
            Button::Add(n) => format!("Add{n}"),
            Button::Sub(n) => format!("Sub{n}"),
            Button::Mul(n) => format!("Mul{n}"),
            Button::Append(d) => format!("Append{d}"),
            Button::Delete => "Delete".to_string(),
            Button::Negate => "Negate".to_string(),
            Button::Square => "Square".to_string(),
            Button::Cube => "Cube".to_string(),
            _ => return None,
        })
    }

    /// The button's effect on `value`, or `None` when the move is invalid
    /// (overflow, an inexact division, a result too large for the display).
    ///
    /// ```
    /// use puzzlebook::calculator::Button;
    /// let append4: Button = "4".parse().unwrap();
    /// assert_eq!(append4.apply(-12), Some(-124));
    /// assert_eq!("/3".parse::<Button>().unwrap().apply(7), None);
    /// ```
    pub fn apply(&self, value: i64) -> Option<i64> {
        let negative = value < 0;
        let mag = value.unsigned_abs().to_string();
        match self {
            Button::Add(n) => value.checked_add(*n),
            Button::Sub(n) => value.checked_sub(*n),
            Button::Mul(n) => value.checked_mul(*n),
            Button::Div(n) => (*n != 0 && value % n == 0).then(|| value / n),
            Button::Append(d) => {
                let magnitude = if mag == "0" { d.clone() } else { mag + d };
                signed(negative, &magnitude)
            }
            Button::Delete => Some(value / 10),
            Button::Negate => value.checked_neg(),
            Button::Reverse => signed(negative, &mag.chars().rev().collect::<String>()),
            Button::Sum => {
                let s: i64 = mag.bytes().map(|b| i64::from(b - b'0')).sum();
                Some(if negative { -s } else { s })
            }
            Button::ShiftLeft => {
                let (first, rest) = mag.split_at(1);
                signed(negative, &format!("{rest}{first}"))
            }
            Button::ShiftRight => {
                let (rest, last) = mag.split_at(mag.len() - 1);
                signed(negative, &format!("{last}{rest}"))
            }
            Button::Mirror => {
                let rev: String = mag.chars().rev().collect();
                signed(negative, &format!("{mag}{rev}"))
            }
            Button::Replace(a, b) => signed(negative, &mag.replace(a.as_str(), b)),
            Button::Square => value.checked_mul(value),
            Button::Cube => value.checked_mul(value)?.checked_mul(value),
            Button::Inv10 => {
                let inv: String = mag
                    .bytes()
                    .map(|b| char::from(b'0' + (10 - (b - b'0')) % 10))
                    .collect();
                signed(negative, &inv)
            }
        }
    }
}
