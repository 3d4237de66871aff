//! The runner's modes, one enum as insta's snapshot modes are.

/// What a report run may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Never write; fail on any stale hash or difference. The default when `CI` is set.
    Check {
        /// Also execute the notebooks and compare outputs byte for byte.
        execute: bool,
    },
    /// Execute what is stale and write notebooks and reports atomically.
    Update {
        /// Execute every notebook even when its hashes match.
        force: bool,
    },
}

impl Mode {
    /// The mode of `puzzlebook report`: update, unless the `CI` environment
    /// variable is set (to anything but empty, `0` or `false`) and `--update` was
    /// not given, in which case check.
    pub fn for_report(force: bool, update: bool, ci: Option<&str>) -> Mode {
        let in_ci = ci.is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
        if in_ci && !update {
            Mode::Check { execute: force }
        } else {
            Mode::Update { force }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ci_makes_report_a_check() {
        assert_eq!(
            Mode::for_report(false, false, None),
            Mode::Update { force: false }
        );
        assert_eq!(
            Mode::for_report(false, false, Some("true")),
            Mode::Check { execute: false }
        );
        assert_eq!(
            Mode::for_report(true, false, Some("1")),
            Mode::Check { execute: true }
        );
        assert_eq!(
            Mode::for_report(false, true, Some("true")),
            Mode::Update { force: false }
        );
        assert_eq!(
            Mode::for_report(false, false, Some("false")),
            Mode::Update { force: false }
        );
    }
}
