//! `puzzlebook solve …`: each chapter's command-line answer, rendered as text.

use puzzlebook::srat::{self, Q13Form, Q20Mode};
use puzzlebook::SolveError;

/// Options of `puzzlebook solve srat`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SratOptions {
    /// Leave question 20 unconstrained.
    pub q20_free: bool,
    /// Write Q13 in the iff form.
    pub q13_iff: bool,
    /// Append the explanation table.
    pub explain: bool,
}

/// The most sheets counted when proving uniqueness or listing solutions.
pub const SOLUTION_LIMIT: usize = 1000;

/// The text `puzzlebook solve srat` prints: the answer lines, then `unique: yes`
/// or the number of solutions (each further sheet listed), then the explanation.
pub fn srat(opts: SratOptions) -> Result<String, SolveError> {
    let q13 = if opts.q13_iff {
        Q13Form::Iff
    } else {
        Q13Form::Implications
    };
    let q20 = if opts.q20_free {
        Q20Mode::Free
    } else {
        Q20Mode::Define
    };
    let test = srat::standard_test(q13, q20);
    let answers = test.solve()?;
    let mut out = answers.to_string();
    let all = test.all_solutions(SOLUTION_LIMIT)?;
    if all.len() == 1 {
        out.push_str("unique: yes\n");
    } else {
        let more = if all.len() >= SOLUTION_LIMIT {
            "at least "
        } else {
            ""
        };
        out.push_str(&format!("unique: no, {more}{} solutions\n", all.len()));
        for a in &all {
            out.push_str(&format!("  {}\n", a.letters()));
        }
    }
    if opts.explain {
        out.push('\n');
        out.push_str(&srat::explain_standard(&answers)?.to_terminal());
    }
    Ok(out)
}

/// Options of `puzzlebook solve calculator`.
#[derive(Debug, Clone)]
pub struct CalculatorOptions {
    /// The start value.
    pub start: i64,
    /// The goal.
    pub goal: i64,
    /// The most moves.
    pub moves: usize,
    /// Comma-separated button labels.
    pub buttons: String,
    /// List every solution.
    pub all: bool,
    /// Print the SMT-LIB 2 script first.
    pub smt2: bool,
}

/// A calculator command that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum CalculatorError {
    /// A bad label.
    #[error(transparent)]
    Button(#[from] puzzlebook::calculator::ButtonError),
    /// No buttons or no moves.
    #[error("{0}")]
    Input(String),
    /// Z3 failed.
    #[error(transparent)]
    Model(#[from] puzzlebook::calculator::ModelError),
    /// Over a limit of this machine.
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
}

/// The text `puzzlebook solve calculator` prints and whether a solution exists.
pub fn calculator(o: &CalculatorOptions) -> Result<(String, bool), CalculatorError> {
    use puzzlebook::calculator::{self, Button, Level};
    let buttons = Button::parse_list(&o.buttons)?;
    if buttons.is_empty() {
        return Err(CalculatorError::Input(format!(
            "no buttons given; pass --buttons with labels such as \"x5,-6,4\" ({})",
            calculator::ACCEPTED
        )));
    }
    if o.moves == 0 {
        return Err(CalculatorError::Input("--moves must be at least 1".into()));
    }
    crate::limits::check_calculator(o.moves)?;
    let level = Level::new(o.start, o.goal, o.moves, buttons);
    let mut out = String::new();
    if o.smt2 {
        out.push_str(&calculator::smt2_script(&level, o.moves)?);
        out.push('\n');
    }
    let (_, sols) = calculator::solve(&level, o.all)?;
    if sols.is_empty() {
        out.push_str(&format!("no solution within {} moves\n", o.moves));
        return Ok((out, false));
    }
    for (i, s) in sols.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&s.to_string());
    }
    Ok((out, true))
}

/// The text `puzzlebook solve 24` prints and whether a solution exists.
pub fn twenty_four(
    numbers: &[i64],
    target: i64,
    method: puzzlebook::twenty_four::Method,
    all: bool,
) -> Result<(String, bool), puzzlebook::twenty_four::TwentyFourError> {
    let sols = puzzlebook::twenty_four::solve(numbers, target, method, all)?;
    if sols.is_empty() {
        return Ok(("no solution\n".to_string(), false));
    }
    Ok((
        sols.iter().map(|e| format!("{e} = {target}\n")).collect(),
        true,
    ))
}

/// How `puzzlebook solve sum-product` prints its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    /// Org tables.
    Org,
    /// Tab-separated, as the write-up's page shows them.
    Tsv,
    /// Boxed terminal tables.
    Text,
    /// No tables: how many candidates each "I don't know" leaves, then the
    /// conclusion. Takes about 20 bytes a pair, so --max 10000 and more fit.
    Summary,
}

/// A sum-product command that cannot run.
#[derive(Debug, thiserror::Error)]
pub enum SumProductCommandError {
    /// The chapter's own error.
    #[error(transparent)]
    Puzzle(#[from] puzzlebook::sum_product::SumProductError),
    /// Over a limit of this machine.
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
}

/// The text `puzzlebook solve sum-product` prints: each named table (or, in
/// the summary format, how many candidates each leaves), then the conclusion.
/// `progress` hears each count of the summary as it is known.
pub fn sum_product(
    max: i64,
    format: TableFormat,
    progress: impl FnMut(&puzzlebook::sum_product::StepCount),
) -> Result<String, SumProductCommandError> {
    let memory = crate::limits::available_memory();
    if format == TableFormat::Summary {
        crate::limits::check_sum_product_counts(max, memory)?;
        let c = puzzlebook::sum_product::Counts::play_with(max, progress)?;
        return Ok(format!("{}\n{}\n", c.table().to_tsv(), c.conclusion()));
    }
    crate::limits::check_sum_product(max, memory)?;
    let d = puzzlebook::sum_product::Dialogue::play_plain(max)?;
    let mut out = String::new();
    for step in d.tables() {
        let t = step.table();
        out.push_str(&format!("{}\n", step.name));
        out.push_str(&match format {
            TableFormat::Org => t.to_org(),
            TableFormat::Tsv | TableFormat::Summary => t.to_tsv(),
            TableFormat::Text => t.to_terminal(),
        });
        out.push('\n');
    }
    out.push_str(&d.conclusion());
    out.push('\n');
    Ok(out)
}
