//! The pass/fail checks printed under the pouring experiments' comparison tables.
//!
//! A check is passed, failed, or **not checked** when one of its inputs is missing (e.g.
//! "standard ≥ 100× PEG median" in a run with `--models standard,corrective`: there is no PEG
//! median to compare with). The verdict line says `PASS` only if every check had its inputs
//! and passed; missing inputs are named, never counted as a pass.
//!
//! Owns: the verdict and its wording. Does not own: the checks' limits (in `pour2d`, `pour3d`).

/// Checks collected over a comparison table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checks {
    passed: usize,
    failed: Vec<String>,
    unchecked: Vec<String>,
}

impl Checks {
    /// No checks yet.
    pub fn new() -> Checks {
        Checks::default()
    }

    /// Record a check named `name`: `Some(pass)` if its inputs were there, `None` if not.
    /// Names are kept once each (in first-seen order) in the verdict.
    pub fn check(&mut self, name: &str, outcome: Option<bool>) {
        let list = match outcome {
            Some(true) => {
                self.passed += 1;
                return;
            }
            Some(false) => &mut self.failed,
            None => &mut self.unchecked,
        };
        if !list.iter().any(|n| n == name) {
            list.push(name.to_string());
        }
    }

    /// No check failed (checks that could not be made do not fail the run).
    pub fn ok(&self) -> bool {
        self.failed.is_empty()
    }

    /// True if every recorded check was made and passed, and there was at least one.
    pub fn all_checked_and_passed(&self) -> bool {
        self.ok() && self.unchecked.is_empty() && self.passed > 0
    }

    /// `PASS`, `FAIL (…)`, `not checked (…)`, or `PASS where checked; not checked: …`.
    pub fn verdict(&self) -> String {
        let not = |v: &[String]| format!("not checked (input missing): {}", v.join("; "));
        match (
            self.failed.is_empty(),
            self.unchecked.is_empty(),
            self.passed,
        ) {
            (false, true, _) => format!("FAIL: {}", self.failed.join("; ")),
            (false, false, _) => {
                format!("FAIL: {}; {}", self.failed.join("; "), not(&self.unchecked))
            }
            (true, true, 0) => "not checked (no check applies)".into(),
            (true, true, _) => "PASS".into(),
            (true, false, 0) => not(&self.unchecked),
            (true, false, _) => format!("PASS where checked; {}", not(&self.unchecked)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_inputs_are_not_a_pass() {
        // `--models standard,corrective`: no PEG run, so no PEG check can be made.
        let mut c = Checks::new();
        c.check("standard >= 100x PEG median", None);
        c.check("standard >= 100x PEG median", None);
        assert!(c.ok() && !c.all_checked_and_passed());
        assert_eq!(
            c.verdict(),
            "not checked (input missing): standard >= 100x PEG median"
        );
        c.check("PEG max", Some(true));
        assert!(c.verdict().starts_with("PASS where checked; not checked"));
        assert!(!c.verdict().starts_with("PASS\n") && c.verdict() != "PASS");
    }

    #[test]
    fn verdicts() {
        let mut c = Checks::new();
        assert_eq!(c.verdict(), "not checked (no check applies)");
        c.check("a", Some(true));
        assert_eq!(c.verdict(), "PASS");
        assert!(c.all_checked_and_passed());
        c.check("b", Some(false));
        assert!(!c.ok());
        assert_eq!(c.verdict(), "FAIL: b");
        c.check("c", None);
        assert_eq!(c.verdict(), "FAIL: b; not checked (input missing): c");
    }
}
