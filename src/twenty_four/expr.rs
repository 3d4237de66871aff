//! Expressions of the 24 game: the write-up's `output()`, a parser, and an exact
//! rational evaluator that checks every answer independently of Z3.

use std::fmt;

use num_rational::Ratio;
use num_traits::{CheckedAdd, CheckedDiv, CheckedMul, CheckedSub};

/// An exact rational number (128-bit numerator and denominator).
pub type Rational = Ratio<i128>;

/// The four operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

impl Op {
    /// The symbol as the write-up prints it.
    pub fn symbol(self) -> char {
        match self {
            Op::Add => '+',
            Op::Sub => '-',
            Op::Mul => '*',
            Op::Div => '/',
        }
    }

    /// Applies the operation exactly; `None` on division by zero or overflow.
    pub fn apply(self, a: Rational, b: Rational) -> Option<Rational> {
        match self {
            Op::Add => a.checked_add(&b),
            Op::Sub => a.checked_sub(&b),
            Op::Mul => a.checked_mul(&b),
            Op::Div => a.checked_div(&b),
        }
    }
}

/// The write-up's operator code (0 `+`, 1 `-`, 2 `*`, 3 `/`, 4 reversed `-`,
/// 5 reversed `/`) as an operation and whether the operands swap.
///
/// # Panics
/// On a code outside 0..=5.
pub fn op_code(code: u8) -> (Op, bool) {
    match code {
        0 => (Op::Add, false),
        1 => (Op::Sub, false),
        2 => (Op::Mul, false),
        3 => (Op::Div, false),
        4 => (Op::Sub, true),
        5 => (Op::Div, true),
        _ => panic!("operator codes are 0 to 5, not {code}"),
    }
}

/// An arithmetic expression over integers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Expr {
    /// A number.
    Num(i64),
    /// `left op right`.
    Bin(Op, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// `left op right`.
    pub fn bin(op: Op, left: Expr, right: Expr) -> Expr {
        Expr::Bin(op, Box::new(left), Box::new(right))
    }

    /// The exact value; `None` on division by zero or overflow.
    pub fn eval(&self) -> Option<Rational> {
        match self {
            Expr::Num(n) => Some(Rational::from_integer(i128::from(*n))),
            Expr::Bin(op, a, b) => op.apply(a.eval()?, b.eval()?),
        }
    }

    /// The numbers in the order they are written.
    pub fn numbers(&self) -> Vec<i64> {
        match self {
            Expr::Num(n) => vec![*n],
            Expr::Bin(_, a, b) => {
                let mut v = a.numbers();
                v.extend(b.numbers());
                v
            }
        }
    }
}

impl fmt::Display for Expr {
    /// As the write-up prints: every compound operand in parentheses,
    /// `(5 - (1 / 5)) * 5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num(n) => write!(f, "{n}"),
            Expr::Bin(op, a, b) => {
                let side = |e: &Expr, f: &mut fmt::Formatter<'_>| match e {
                    Expr::Num(n) => write!(f, "{n}"),
                    _ => write!(f, "({e})"),
                };
                side(a, f)?;
                write!(f, " {} ", op.symbol())?;
                side(b, f)
            }
        }
    }
}

/// The left-to-right expression `((n0 op0 n1) op1 n2) op2 n3` for the write-up's
/// operator codes.
///
/// # Panics
/// When `ops` is not one shorter than `numbers`, or a code is outside 0..=5.
pub fn left_to_right(numbers: &[i64], ops: &[u8]) -> Expr {
    assert!(
        !numbers.is_empty() && ops.len() + 1 == numbers.len(),
        "{} numbers need {} operators, not {}",
        numbers.len(),
        numbers.len().saturating_sub(1),
        ops.len()
    );
    let mut e = Expr::Num(numbers[0]);
    for (n, code) in numbers[1..].iter().zip(ops) {
        let (op, swap) = op_code(*code);
        e = if swap {
            Expr::bin(op, Expr::Num(*n), e)
        } else {
            Expr::bin(op, e, Expr::Num(*n))
        };
    }
    e
}

/// The write-up's `output(numbers, ops)`: the expression string.
///
/// ```
/// use puzzlebook::twenty_four::output;
/// assert_eq!(output(&[1, 5, 5, 5], &[3, 4, 2]), "(5 - (1 / 5)) * 5");
/// assert_eq!(output(&[8, 3, 3, 8], &[3, 4, 5]), "8 / (3 - (8 / 3))");
/// ```
pub fn output(numbers: &[i64], ops: &[u8]) -> String {
    left_to_right(numbers, ops).to_string()
}

/// An expression string that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot parse {input:?} at byte {at}: {what}")]
pub struct ParseError {
    /// The input.
    pub input: String,
    /// Where parsing stopped.
    pub at: usize,
    /// What was expected.
    pub what: &'static str,
}

/// Parses `+ - * /`, parentheses and non-negative integers with the usual
/// precedence (`*` and `/` bind tighter, all left-associative).
pub fn parse(input: &str) -> Result<Expr, ParseError> {
    let mut p = Parser {
        s: input.as_bytes(),
        i: 0,
        input,
    };
    let e = p.sum()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("the end of the expression"));
    }
    Ok(e)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    input: &'a str,
}

impl Parser<'_> {
    fn err(&self, what: &'static str) -> ParseError {
        ParseError {
            input: self.input.to_string(),
            at: self.i,
            what,
        }
    }
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }
    fn sum(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.product()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.i += 1;
            let r = self.product()?;
            e = Expr::bin(if c == b'+' { Op::Add } else { Op::Sub }, e, r);
        }
        Ok(e)
    }
    fn product(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.atom()?;
        while let Some(c @ (b'*' | b'/')) = self.peek() {
            self.i += 1;
            let r = self.atom()?;
            e = Expr::bin(if c == b'*' { Op::Mul } else { Op::Div }, e, r);
        }
        Ok(e)
    }
    fn atom(&mut self) -> Result<Expr, ParseError> {
        match self.peek() {
            Some(b'(') => {
                self.i += 1;
                let e = self.sum()?;
                if self.peek() != Some(b')') {
                    return Err(self.err("a closing parenthesis"));
                }
                self.i += 1;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                    self.i += 1;
                }
                self.input[start..self.i]
                    .parse()
                    .map(Expr::Num)
                    .map_err(|_| self.err("a number that fits in 64 bits"))
            }
            _ => Err(self.err("a number or an opening parenthesis")),
        }
    }
}

/// Whether `text` parses and evaluates exactly to `target`, using `numbers`
/// (as a multiset) exactly once each: the independent check of every answer.
pub fn verify(text: &str, numbers: &[i64], target: i64) -> bool {
    let Ok(e) = parse(text) else { return false };
    let mut used = e.numbers();
    let mut given = numbers.to_vec();
    used.sort_unstable();
    given.sort_unstable();
    used == given && e.eval() == Some(Rational::from_integer(i128::from(target)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_round_trips_display() {
        for s in [
            "(5 - (1 / 5)) * 5",
            "8 / (3 - (8 / 3))",
            "((2 + 9) * 2) + 2",
            "7",
        ] {
            assert_eq!(parse(s).unwrap().to_string(), s);
        }
        assert_eq!(
            parse("1 + 2 * 3").unwrap().eval(),
            Some(Rational::from_integer(7))
        );
        assert_eq!(
            parse("8 - 4 - 2").unwrap().eval(),
            Some(Rational::from_integer(2))
        );
    }

    #[test]
    fn division_by_zero_is_no_value() {
        assert_eq!(parse("1 / (2 - 2)").unwrap().eval(), None);
        assert!(!verify("24 / (5 - 5)", &[24, 5, 5], 24));
    }

    #[test]
    fn verify_needs_the_exact_multiset() {
        assert!(verify("(5 - (1 / 5)) * 5", &[1, 5, 5, 5], 24));
        assert!(!verify("(5 - (1 / 5)) * 5", &[1, 5, 5, 6], 24));
        assert!(!verify("(5 - (1 / 5)) * 5", &[1, 5, 5, 5], 25));
    }

    #[test]
    fn parse_errors_say_where() {
        let e = parse("(1 + 2").unwrap_err();
        assert_eq!(e.at, 6);
        assert!(parse("1 + x").is_err());
    }
}
